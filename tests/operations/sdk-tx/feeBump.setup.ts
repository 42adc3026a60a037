// What tests of the sdk-tx operations in this folder share: the service they run against, its state and helpers
// (the tests are in <operationId>.test.ts). What they cover:
// Sponsored transactions under pressure and refusal, on the real service (PostgreSQL + localnet, a ledger every
// 200 ms): Idempotency-Key and duplicate submissions reach the chain once, the daily operations cap is never
// overshot, each policy rule answers its own code (and is recorded), and the checks on signed XDRs.
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { Account, Asset, Keypair, Operation, TransactionBuilder } from '@stellar/stellar-sdk';
import type { App } from '../../../src/domain/apps/store';
import { saveFeePolicy, DEFAULT_FEE_POLICY, type FeePolicy } from '../../../src/domain/feePolicy/policy';
import { SYSTEM_ACTOR } from '../../../src/domain/audit/auditLog';
import { startTestService, type TestService } from '../../support/service';
import { signInUser, type UserClient } from '../../support/users';
import { appWithWallet, gatewayOf } from '../../support/funding';

/** Set by useService()'s hooks: ES module bindings are live, so read them inside tests, not at load time. */
export let svc: TestService;
export let app: App;
export let creds: Awaited<ReturnType<typeof appWithWallet>>['creds'];
export let appWalletKey: string;

export async function setPolicy(patch: Partial<FeePolicy>): Promise<void> {
  await saveFeePolicy(svc.deps.db, {
    appId: app.id,
    policy: { ...DEFAULT_FEE_POLICY, ...patch },
    actor: SYSTEM_ACTOR,
    at: new Date(),
  });
}

/** A signed-in user with a funded wallet. */
export async function fundedUser(): Promise<UserClient> {
  const user = await signInUser(svc, creds);
  assert.equal(user.signIn.wallet.funded, true, 'funded at sign-in');
  return user;
}

export const pay = (amount = '1', destination = appWalletKey) => ({
  operation: { type: 'payment', destination, asset: 'native', amount },
});

/** Fee-bumps the gas wallet signed for the user's own transactions (activations are the funding flow's). */
export async function feeBumpsSigned(user: UserClient): Promise<number> {
  const rows = await svc.deps
    .db('transactions')
    .where({ user_id: user.userId })
    .whereNot({ origin: 'activation' })
    .whereNotNull('envelope_xdr')
    .count<{ count: string }[]>('* as count');
  return Number(rows[0]!.count);
}

// --- helpers ---

export async function topUp(user: UserClient, amount: string): Promise<void> {
  const gw = gatewayOf(svc);
  const funder = Keypair.random();
  await gw.fundWithFriendbot(funder.publicKey());
  const account = (await gw.loadAccount(funder.publicKey()))!;
  const tx = new TransactionBuilder(new Account(funder.publicKey(), account.sequence), {
    fee: '100',
    networkPassphrase: gw.networkPassphrase,
  })
    .addOperation(Operation.payment({ destination: user.signIn.wallet.publicKey, asset: Asset.native(), amount }))
    .setTimeout(60)
    .build();
  tx.sign(funder);
  await gw.submitAndConfirm(tx);
}

export async function waitForSequence(user: UserClient, sequence: bigint): Promise<void> {
  const gw = gatewayOf(svc);
  for (let i = 0; i < 100; i++) {
    if (BigInt((await gw.loadAccount(user.signIn.wallet.publicKey))!.sequence) === sequence) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(
    BigInt((await gw.loadAccount(user.signIn.wallet.publicKey))!.sequence),
    sequence,
    'the wallet sequence advanced exactly once',
  );
}

export async function unsignedOps(user: UserClient, ops: ReturnType<typeof Operation.payment>[]): Promise<string> {
  const gw = gatewayOf(svc);
  const account = (await gw.loadAccount(user.signIn.wallet.publicKey))!;
  const builder = new TransactionBuilder(new Account(user.signIn.wallet.publicKey, account.sequence), {
    fee: '100',
    networkPassphrase: gw.networkPassphrase,
  });
  for (const op of ops) builder.addOperation(op);
  return builder.setTimeout(60).build().toXDR();
}

export async function signOps(user: UserClient, ops: ReturnType<typeof Operation.payment>[]): Promise<string> {
  const signed = await user.call('signTransaction', 'POST', '/v1/tx/sign', {
    body: { unsignedXdr: await unsignedOps(user, ops) },
  });
  assert.equal(signed.status, 200, signed.text);
  return signed.body.content.signedXdr;
}

export async function submitOps(user: UserClient, ops: ReturnType<typeof Operation.payment>[]) {
  return user.call('submitTransaction', 'POST', '/v1/tx/submit', { body: { signedXdr: await signOps(user, ops) } });
}

export async function buildPaymentXdr(user: UserClient): Promise<string> {
  const built = await user.call('buildTransaction', 'POST', '/v1/tx/build', { body: pay('1') });
  assert.equal(built.status, 201, built.text);
  return built.body.content.unsignedXdr;
}

export async function signedPayment(user: UserClient): Promise<string> {
  await topUp(user, '2');
  const built = await user.call('buildTransaction', 'POST', '/v1/tx/build', { body: pay('1') });
  assert.equal(built.status, 201, built.text);
  const signed = await user.call('signTransaction', 'POST', '/v1/tx/sign', { body: { txId: built.body.content.txId } });
  assert.equal(signed.status, 200, signed.text);
  return signed.body.content.signedXdr;
}

/** Starts the service (and what the tests need of it) before the calling suite's tests and stops it after. */
export function useService(): void {
  before(async () => {
    svc = await startTestService({ LEDGER_FOLLOWER: 'off' }, { closeLedgersEveryMs: 200 });
    const setup = await appWithWallet(svc, { settings: { fundingMode: 'immediate' } });
    ({ app, creds } = setup);
    appWalletKey = setup.appWallet.publicKey;
  });
  after(async () => {
    await svc?.stop();
  });
}
