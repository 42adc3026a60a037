// Signing a Soroban authorization entry for a user's custodial wallet, under the app's allowlist (policyRows.ts).
// Decided in this order, each failure answered with the app's id and name (SorobanAuthDenial):
//   1. the entry decodes as a SorobanAuthorizationEntry with ADDRESS or ADDRESS_V2 credentials (400 ENTRY_INVALID)
//   2. its address is the session's wallet (403 ADDRESS_MISMATCH)
//   3. the app has enabled rows (403 NO_POLICY)
//   4. the root invocation and every sub-invocation match an enabled row (403 CONTRACT_NOT_ALLOWED, then
//      FUNCTION_NOT_ALLOWED); creating a contract is never allowlisted
//   5. validUntilLedger lies after the latest ledger and at most 300 ledgers past it (403 EXPIRATION_TOO_LONG)
// Then the wallet key is unwrapped (audited as key.decrypt, purpose auth_entry.sign) and the SDK's authorizeEntry
// signs the entry, keeping its credential type (the V2 payload binds the address too).
import { authorizeEntry, StrKey, xdr } from '@stellar/stellar-sdk';
import type { ErrorCode } from '../../../generated/server/catalogue.gen';
import type { App } from '../apps/store';
import type { AuditActor } from '../audit/auditLog';
import { gatewayFor } from '../chain/gateways';
import type { Deps } from '../deps';
import { AppError } from '../errors';
import { externalWalletCannotSign, withWalletKeypair } from '../wallets/custody';
import type { WalletRecord } from '../wallets/store';
import { ANY, enabledPolicyRows, type AuthPolicyRow } from './policyRows';

/** The furthest ahead a signature may expire: about 25 minutes of 5-second ledgers. */
export const MAX_VALIDITY_LEDGERS = 300;
/** The expiration when the request names none: about 10 minutes. */
export const DEFAULT_VALIDITY_LEDGERS = 120;

export interface SignAuthEntryInput {
  app: App;
  wallet: WalletRecord;
  /** Base64 SorobanAuthorizationEntry. */
  entry: string;
  validUntilLedger?: number;
  actor: AuditActor;
  ip?: string;
}

export interface SignedAuthEntry {
  signedEntry: string;
  validUntilLedger: number;
  publicKey: string;
}

type Invocation = xdr.SorobanAuthorizedInvocationWire;

/** A denial or invalid entry: the code with the deciding app named (SorobanAuthDenial). */
function denial(app: App, code: ErrorCode, message: string, cause?: unknown): AppError {
  return new AppError(code, { message, fields: { applicationId: app.id, applicationName: app.name }, cause });
}

function decode(app: App, entry: string): xdr.SorobanAuthorizationEntryWire {
  const invalid = (why: string, cause?: unknown) =>
    denial(
      app,
      'SOROBAN_AUTH_ENTRY_INVALID',
      `The entry does not decode as a SorobanAuthorizationEntry with address credentials: ${why}`,
      cause,
    );
  let decoded: xdr.SorobanAuthorizationEntryWire;
  try {
    decoded = xdr.SorobanAuthorizationEntry.schema.decode(new Uint8Array(Buffer.from(entry, 'base64')));
  } catch (err) {
    throw invalid('not valid XDR', err);
  }
  // Base64 that decodes to other bytes than it says (stray characters) is refused rather than guessed at.
  if (Buffer.from(xdr.SorobanAuthorizationEntry.schema.encode(decoded)).toString('base64') !== entry)
    throw invalid('not canonical base64 XDR');
  if (decoded.credentials.type !== 1 && decoded.credentials.type !== 2)
    throw invalid('only ADDRESS and ADDRESS_V2 credentials can be signed here');
  return decoded;
}

/** The G- or C-address an entry's credentials authorize. */
function credentialAddress(entry: xdr.SorobanAuthorizationEntryWire): string | undefined {
  const creds = entry.credentials;
  const address = creds.type === 1 ? creds.address.address : creds.type === 2 ? creds.addressV2.address : undefined;
  if (address?.type === 0) return StrKey.encodeEd25519PublicKey(Buffer.from(address.accountId.ed25519));
  if (address?.type === 1) return StrKey.encodeContract(Buffer.from(address.contractId));
  return undefined;
}

/** Throws the first denial of the invocation tree (depth first, root first), if any. */
function checkTree(app: App, rows: AuthPolicyRow[], invocation: Invocation): void {
  const fn = invocation.function;
  if (fn.type !== 0)
    throw denial(app, 'SOROBAN_AUTH_CONTRACT_NOT_ALLOWED', 'Creating a contract is not allowlisted for this app');
  const target = fn.contractFn.contractAddress;
  if (target.type !== 1)
    throw denial(
      app,
      'SOROBAN_AUTH_ENTRY_INVALID',
      'An invocation in the entry targets an address that is no contract',
    );
  const contract = StrKey.encodeContract(Buffer.from(target.contractId));
  const name = fn.contractFn.functionName.toString();
  const forContract = rows.filter((r) => r.contract === contract || r.contract === ANY);
  if (forContract.length === 0)
    throw denial(app, 'SOROBAN_AUTH_CONTRACT_NOT_ALLOWED', `Contract ${contract} is not allowlisted`);
  if (!forContract.some((r) => r.functions.includes(ANY) || r.functions.includes(name)))
    throw denial(
      app,
      'SOROBAN_AUTH_FUNCTION_NOT_ALLOWED',
      `Function "${name}" of contract ${contract} is not allowlisted`,
    );
  for (const sub of invocation.subInvocations) checkTree(app, rows, sub);
}

/** Signs the entry for the wallet when the app's allowlist permits every invocation in it (see the header). */
export async function signAuthEntry(
  deps: Pick<Deps, 'db' | 'kms' | 'clock' | 'stellar'>,
  input: SignAuthEntryInput,
): Promise<SignedAuthEntry> {
  const { app, wallet } = input;
  if (wallet.custody === 'external') throw externalWalletCannotSign();
  // 1-2. the entry and whose it is
  const decoded = decode(app, input.entry);
  const address = credentialAddress(decoded);
  if (address !== wallet.publicKey)
    throw denial(
      app,
      'SOROBAN_AUTH_ADDRESS_MISMATCH',
      `The entry authorizes ${address ?? 'an unsupported address'}, not this user's wallet ${wallet.publicKey}`,
    );
  // 3-4. the allowlist over the whole tree
  const rows = await enabledPolicyRows(deps.db, app.id);
  if (rows.length === 0)
    throw denial(app, 'SOROBAN_AUTH_NO_POLICY', 'The app has no enabled Soroban auth allowlist rows');
  checkTree(app, rows, decoded.rootInvocation);
  // 5. the expiration, against the latest ledger read now
  const gateway = gatewayFor(deps, app.network);
  const latest = (await gateway.ledgerFigures()).sequence;
  const validUntilLedger = input.validUntilLedger ?? latest + DEFAULT_VALIDITY_LEDGERS;
  if (validUntilLedger <= latest)
    throw denial(
      app,
      'SOROBAN_AUTH_EXPIRATION_TOO_LONG',
      `validUntilLedger ${validUntilLedger} is not after the latest ledger ${latest}`,
    );
  if (validUntilLedger > latest + MAX_VALIDITY_LEDGERS)
    throw denial(
      app,
      'SOROBAN_AUTH_EXPIRATION_TOO_LONG',
      `validUntilLedger ${validUntilLedger} is more than ${MAX_VALIDITY_LEDGERS} ledgers after the latest ledger ${latest} (at most ${latest + MAX_VALIDITY_LEDGERS})`,
    );
  // 6. sign with the unwrapped key (the decryption is audited before the key is used)
  const entry = xdr.SorobanAuthorizationEntry.fromXDR(input.entry, 'base64');
  const signed = await withWalletKeypair(
    deps,
    {
      walletId: wallet.id,
      purpose: 'auth_entry.sign',
      actor: input.actor,
      ...(input.ip !== undefined ? { ip: input.ip } : {}),
    },
    async (keypair) => {
      try {
        return await authorizeEntry(entry, keypair, validUntilLedger, gateway.networkPassphrase);
      } catch (err) {
        throw denial(app, 'SOROBAN_AUTH_SIGN_FAILED', 'Signing the entry failed; retry', err);
      }
    },
  );
  return { signedEntry: signed.toXDR('base64'), validUntilLedger, publicKey: wallet.publicKey };
}
