// What the tests of the wallet sign-in operations (createWalletSignInChallenge, verifyWalletSignIn) share: the
// service on localnet, apps that offer Stellar wallet sign-in, and the SEP-10 steps a user's wallet performs.
// What they cover: challenges for the app's site, signatures checked against the account's on-chain signers, single
// use, one user and one external wallet per account, the service never signing for such a wallet, and a payment
// built by the service, signed in the client and paid by the app's fee-bump.
import { after, before } from 'node:test';
import { Keypair, TransactionBuilder } from '@stellar/stellar-sdk';
import { call } from '../../support/http';
import { createDpopKey, type DpopKey } from '../../support/dpop';
import { appWithWallet } from '../../support/funding';
import { sendWithProof } from '../../support/operators';
import { startTestService, type TestService } from '../../support/service';
import { setWalletSignIn } from '../../support/users';

/** Set by useService()'s hooks: ES module bindings are live, so read them inside tests, not at load time. */
export let svc: TestService;

/**
 * A funded app (gas and funding wallets) whose users may sign in with a Stellar wallet (unless `enabled: false`),
 * with `assets` configured.
 */
export async function walletApp(opts: { enabled?: boolean; assets?: string[] } = {}) {
  const seeded = await appWithWallet(svc, opts.assets ? { settings: { assets: opts.assets } } : {});
  await setWalletSignIn(svc, seeded.app.id, opts.enabled ?? true);
  return seeded;
}

export const challenge = (publishableKey: string, account: string, headers: Record<string, string> = {}) =>
  call(svc.url, 'createWalletSignInChallenge', 'GET', `/v1/auth/wallet/challenge?account=${account}`, {
    headers: { 'x-service-api-key': publishableKey, ...headers },
  });

/** The wallet's part: sign the challenge with `signers` (the account's own key unless given). */
export function signChallenge(transaction: string, networkPassphrase: string, signers: Keypair[]): string {
  const tx = TransactionBuilder.fromXDR(transaction, networkPassphrase);
  for (const kp of signers) tx.sign(kp);
  return tx.toXDR();
}

export const verify = (publishableKey: string, transaction: string, key?: DpopKey) =>
  (async () =>
    sendWithProof(svc.url, key ?? (await createDpopKey()), {}, 'POST', '/v1/auth/wallet/verify', {
      headers: { 'x-service-api-key': publishableKey },
      body: { transaction },
    }))();

/** A full wallet sign-in of `account` (a challenge signed by its own key), with the DPoP key the session is bound to. */
export async function walletSignIn(publishableKey: string, account: Keypair) {
  const c = await challenge(publishableKey, account.publicKey());
  if (c.status !== 200) throw new Error(`challenge answered ${c.status}: ${c.text}`);
  const key = await createDpopKey();
  const res = await verify(
    publishableKey,
    signChallenge(c.body.content.transaction, c.body.content.networkPassphrase, [account]),
    key,
  );
  return { res, key, networkPassphrase: c.body.content.networkPassphrase as string };
}

/** Starts the service (and what the tests need of it) before the calling suite's tests and stops it after. */
export function useService(): void {
  before(async () => {
    svc = await startTestService({}, { closeLedgersEveryMs: 100 });
  });
  after(async () => {
    await svc?.stop();
  });
}
