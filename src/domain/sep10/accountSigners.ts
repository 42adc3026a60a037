// Who may sign for a Stellar account, read through Stellar RPC (getLedgerEntries of the account entry; never
// Horizon): the master key with its weight and the account's ed25519 signers, and the medium threshold SEP-10
// signatures must reach.
import { Keypair, rpc, StrKey, xdr } from '@stellar/stellar-sdk';
import type { NetworkName } from '../../config';
import { AppError } from '../errors';
import { StellarUnavailableError } from '../../infra/stellar/errors';

export interface AccountSigners {
  /** The account's medium threshold. */
  threshold: number;
  /** Keys with a weight above 0 (WebAuth's signer summary shape). */
  signers: { key: string; weight: number; type: 'ed25519_public_key' }[];
}

/**
 * The signers of an account entry. A key of weight 0 is left out, so its signature counts as an unknown one: a
 * disabled master key must not sign an operator in. Pre-authorized transactions, hash(x) and signed-payload signers
 * cannot sign a challenge, so they are left out too.
 */
export function accountSignersOf(account: string, entry: xdr.AccountEntry): AccountSigners {
  const [masterWeight = 0, , medium = 0] = entry.thresholds.toBytes();
  const signers: AccountSigners['signers'] = [];
  if (masterWeight > 0) signers.push({ key: account, weight: masterWeight, type: 'ed25519_public_key' });
  for (const { key, weight } of entry.signers) {
    if (key.type !== 'signerKeyTypeEd25519' || weight === 0) continue;
    signers.push({
      key: StrKey.encodeEd25519PublicKey(Buffer.from(key.ed25519.toBytes())),
      weight,
      type: 'ed25519_public_key',
    });
  }
  return { threshold: medium, signers };
}

/** Attempts per lookup: one retry rides out a dropped connection. */
const ATTEMPTS = 2;
const TIMEOUT_MS = 5000;

/**
 * A lookup of accounts' signers on the network's Stellar RPC: undefined for an account not on-chain; 503
 * STELLAR_UNAVAILABLE when no RPC is configured for the network or it cannot be reached.
 */
export function rpcAccountSigners(
  rpcUrl: string | undefined,
  network: NetworkName,
): (account: string) => Promise<AccountSigners | undefined> {
  const server = rpcUrl
    ? new rpc.Server(rpcUrl, { allowHttp: rpcUrl.startsWith('http://'), timeout: TIMEOUT_MS })
    : undefined;
  return async (account) => {
    if (!server)
      throw new AppError('STELLAR_UNAVAILABLE', {
        message: `No Stellar RPC is configured for ${network}`,
        headers: { 'Retry-After': '60' },
      });
    const key = xdr.LedgerKey.account(
      new xdr.LedgerKeyAccount({ accountId: Keypair.fromPublicKey(account).xdrAccountId() }),
    );
    let lastError: unknown;
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      try {
        const { entries } = await server.getLedgerEntries(key);
        const entry = entries[0]?.val;
        return entry?.type === 'account' ? accountSignersOf(account, entry.account) : undefined;
      } catch (err) {
        lastError = err;
      }
    }
    throw new StellarUnavailableError(`${network} RPC did not answer ${ATTEMPTS} getLedgerEntries attempts`, {
      cause: lastError,
    });
  };
}
