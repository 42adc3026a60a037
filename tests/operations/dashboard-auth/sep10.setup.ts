// What tests of the dashboard-auth operations in this folder share: the service they run against, its state and helpers
// (the tests are in <operationId>.test.ts). What they cover:
// Operator sign-in with a Stellar wallet (SEP-10) on real PostgreSQL and the in-process localnet: challenges are read
// and signed with the SDK's WebAuth helpers as a wallet would; accounts are created and given signers on-chain.
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { Keypair, Networks, Operation, rpc, TransactionBuilder, WebAuth } from '@stellar/stellar-sdk';
import { sep10SigningKeypair } from '../../../src/domain/sep10/challenges';
import { call } from '../../support/http';
import { createDpopKey } from '../../support/dpop';
import { build, newAccounts, submitOk, type TestNet } from '../../support/localnet';
import { sendWithProof } from '../../support/operators';
import { responseViolations } from '../../support/spec';
import { startTestService, type TestService } from '../../support/service';

export const DOMAIN = 'dashboard.onboard.test';

export async function getChallenge(svc: TestService, account: string) {
  return call(svc.url, 'createSep10Challenge', 'GET', `/api/v1/auth/sep10/challenge?account=${account}`);
}

/**
 * What a wallet does: reads the challenge (checking the service's key and domains), then signs it, for the testnet
 * unless `signFor` names another network's passphrase.
 */
export function walletSigns(
  svc: TestService,
  challenge: string,
  signers: Keypair[],
  opts: { domain?: string; signFor?: string } = {},
): string {
  const server = sep10SigningKeypair(svc.deps.secrets).publicKey();
  const domain = opts.domain ?? DOMAIN;
  const { tx } = WebAuth.readChallengeTx(challenge, server, Networks.TESTNET, domain, domain);
  const signable = TransactionBuilder.fromXDR(tx.toXDR(), opts.signFor ?? Networks.TESTNET);
  signable.sign(...signers);
  return signable.toXDR();
}

/** POST /api/v1/auth/sep10/verify with a fresh DPoP key; the answer is checked against the contract. */
export async function verify(svc: TestService, transaction: string) {
  const key = await createDpopKey();
  const state: { nonce?: string } = {};
  const res = await sendWithProof(svc.url, key, state, 'POST', '/api/v1/auth/sep10/verify', { body: { transaction } });
  assert.deepEqual(responseViolations('verifySep10Challenge', res), [], res.text.slice(0, 300));
  return { ...res, key, state };
}

export async function signIn(svc: TestService, account: string, signers: Keypair[]) {
  const { body } = await getChallenge(svc, account);
  return verify(svc, walletSigns(svc, body.content.transaction, signers));
}

export function assertWalletAuthFailed(res: { status: number; body: any }, message?: RegExp): void {
  assert.equal(res.status, 401, JSON.stringify(res.body));
  assert.equal(res.body.code, 'WALLET_AUTH_FAILED');
  if (message) assert.match(res.body.message, message);
}

/** Set by useService()'s hooks: ES module bindings are live, so read them inside tests, not at load time. */
export let svc: TestService;
export let net: TestNet;
/** An on-chain account with extra signers and thresholds, set with setOptions by its master key. */
export async function multisigAccount(opts: {
  masterWeight: number;
  medThreshold: number;
  signers: { key: Keypair; weight: number }[];
}): Promise<Keypair> {
  const [account] = await newAccounts(net, 1, '10');
  const ops = [
    ...opts.signers.map((s) =>
      Operation.setOptions({ signer: { ed25519PublicKey: s.key.publicKey(), weight: s.weight } }),
    ),
    Operation.setOptions({
      masterWeight: opts.masterWeight,
      lowThreshold: 1,
      medThreshold: opts.medThreshold,
      highThreshold: opts.medThreshold,
    }),
  ];
  await submitOk(net, await build(net, account, ops));
  return account;
}

/** Starts the service (and what the tests need of it) before the calling suite's tests and stops it after. */
export function useService(): void {
  before(async () => {
    svc = await startTestService({ SEP10_HOME_DOMAIN: DOMAIN });
    const localnet = svc.localnet!;
    net = {
      localnet,
      server: new rpc.Server(localnet.rpcUrl, { allowHttp: true }),
      root: Keypair.master(localnet.networkPassphrase),
      passphrase: localnet.networkPassphrase,
      stop: async () => {},
    };
  });
  after(async () => {
    await svc?.stop();
  });
}
