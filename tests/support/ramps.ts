// What the ramp tests share: a testnet app with the demo USDC (so the sandbox ramp offers it), a funded user holding a
// USDC line, quotes and starts through the SDK API, and the sandbox deposit page confirmed as a browser posts it. For
// the tests of the real providers against their stand-ins: the demo issuer delivering an on-ramp as a provider would,
// a user signed in with their own (external) wallet, a provider's webhook posted to the service, and what the wallet's
// history and the `ramp.updated` deliveries say.
import assert from 'node:assert/strict';
import { Account, Keypair, Memo, Operation, TransactionBuilder } from '@stellar/stellar-sdk';
import { updateAppSettings, type App } from '../../src/domain/apps/store';
import { SYSTEM_ACTOR } from '../../src/domain/audit/auditLog';
import { AppError } from '../../src/domain/errors';
import { fromStroops } from '../../src/domain/money/amounts';
import { updateWebhookConfig, type WebhookEventName } from '../../src/domain/webhooks/endpoints';
import { updateRampSettings, type RampSettingsInput } from '../../src/domain/ramps/settings';
import { demoUsdcIssuer, issueDemoUsdc } from '../../src/domain/treasury/demoUsdc';
import { parseAsset } from '../../src/infra/stellar/gateway';
import type { SeededCredentials } from './credentials';
import { createDpopKey } from './dpop';
import { call, conforming } from './http';
import { appWithWallet, eventually, gatewayOf, untilFunded } from './funding';
import { sendWithProof } from './operators';
import type { TestService } from './service';
import { setWalletSignIn, signInUser, type UserClient } from './users';
import type { WebhookReceiver } from './webhookReceiver';

/** A testnet app with its funded wallets and the demo USDC as its asset (Immediate funding, 2 XLM each). */
export async function rampApp(svc: TestService): Promise<{ app: App; creds: SeededCredentials; usdc: string }> {
  const setup = await appWithWallet(svc, { settings: { fundingMode: 'immediate', startingBalanceXlm: '2' } });
  const { asset: usdc } = await issueDemoUsdc(svc.deps, setup.app);
  const app = (await updateAppSettings(svc.deps.db, setup.app.id, {}))!;
  return { app, creds: setup.creds, usdc };
}

/** A user of the app whose wallet is funded (and trusts the app's assets). */
export async function fundedRampUser(svc: TestService, creds: SeededCredentials): Promise<UserClient> {
  const user = await signInUser(svc, creds);
  await untilFunded(svc, user.signIn.wallet.walletId);
  return user;
}

export interface QuoteInput {
  providerId?: string;
  direction: 'on' | 'off';
  fiatCurrency?: string;
  asset: string;
  amount: string;
  amountIn?: 'fiat' | 'crypto';
}

export const quoteRamp = (user: UserClient, input: QuoteInput) =>
  user.call('createRampQuote', 'POST', '/v1/ramps/quotes', {
    body: { providerId: 'sandbox', fiatCurrency: 'USD', amountIn: 'crypto', ...input },
  });

/** createRampQuote, 201 asserted; the quote. */
export async function quoteOk(user: UserClient, input: QuoteInput) {
  const res = await quoteRamp(user, input);
  assert.equal(res.status, 201, res.text);
  return res.body.content;
}

export const startRamp = (user: UserClient, quoteId: string, idempotencyKey?: string) =>
  user.call('startRamp', 'POST', '/v1/ramps/transactions', {
    body: { quoteId },
    ...(idempotencyKey ? { headers: { 'idempotency-key': idempotencyKey } } : {}),
  });

export const getRamp = (user: UserClient, rampTxId: string) =>
  user.call('getRampTransaction', 'GET', `/v1/ramps/transactions/${rampTxId}`);

/** The developer confirms the deposit on the sandbox page (the URL the deposit instructions carry). */
export async function confirmSandboxDeposit(confirmUrl: string): Promise<Response> {
  return fetch(confirmUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ confirm: 'deposit' }).toString(),
  });
}

/** The wallet's balance of `asset` on the chain, as a decimal string ('0' without a line). */
export async function assetBalance(svc: TestService, address: string, asset: string): Promise<string> {
  const [line] = await gatewayOf(svc).trustlines(address, [asset]);
  return fromStroops(line?.balanceStroops ?? 0n);
}

/** The wallet's XLM balance in stroops. */
export async function xlmStroops(svc: TestService, address: string): Promise<bigint> {
  return (await gatewayOf(svc).loadAccount(address))?.balanceStroops ?? 0n;
}

/** The demo USDC's issuer: the Stellar side of the stand-ins (it delivers on-ramps and burns what off-ramps pay it). */
export const demoIssuer = (svc: TestService): Keypair => demoUsdcIssuer(svc.deps.secrets);

/**
 * A provider delivering an on-ramp: `amount` of `asset` paid from the demo issuer to `to`, in a ledger when this
 * resolves. Answers the transaction's hash (what the provider then reports as the ramp's stellar hash).
 */
export async function deliverFromIssuer(
  svc: TestService,
  to: string,
  asset: string,
  amount: string,
  memo?: string,
): Promise<string> {
  const gw = gatewayOf(svc);
  const issuer = demoIssuer(svc);
  const [account, figures] = await Promise.all([gw.loadAccount(issuer.publicKey()), gw.ledgerFigures()]);
  if (!account) throw new Error('the demo issuer is not on the ledger');
  const builder = new TransactionBuilder(new Account(issuer.publicKey(), account.sequence), {
    fee: String(figures.baseFeeStroops),
    networkPassphrase: gw.networkPassphrase,
  })
    .addOperation(Operation.payment({ destination: to, asset: parseAsset(asset), amount }))
    .setTimeout(60);
  if (memo) builder.addMemo(Memo.text(memo));
  const tx = builder.build();
  tx.sign(issuer);
  await gw.submitAndConfirm(tx, { timeoutMs: 30_000 });
  return Buffer.from(tx.hash()).toString('hex');
}

/**
 * A user of the app signed in with their own Stellar wallet (SEP-10; the account need not exist): an external
 * wallet, which the service holds no key for. Turns wallet sign-in on for the app.
 */
export async function externalWalletUser(svc: TestService, creds: SeededCredentials, appId: string) {
  await setWalletSignIn(svc, appId, true);
  const account = Keypair.random();
  const headers = { 'x-service-api-key': creds.publishableKey };
  const challenge = await call(
    svc.url,
    'createWalletSignInChallenge',
    'GET',
    `/v1/auth/wallet/challenge?account=${account.publicKey()}`,
    { headers },
  );
  assert.equal(challenge.status, 200, challenge.text);
  const tx = TransactionBuilder.fromXDR(challenge.body.content.transaction, challenge.body.content.networkPassphrase);
  tx.sign(account);
  const key = await createDpopKey();
  const state: { nonce?: string } = {};
  const verify = await sendWithProof(svc.url, key, state, 'POST', '/v1/auth/wallet/verify', {
    headers,
    body: { transaction: tx.toXDR() },
  });
  assert.equal(verify.status, 200, verify.text);
  const { tokens, user } = verify.body.content;
  const client: UserClient = {
    userId: user.userId,
    email: '',
    publishableKey: creds.publishableKey,
    key,
    accessToken: tokens.accessToken,
    refreshToken: tokens.refreshToken,
    sessionId: tokens.sessionId,
    signIn: verify.body.content,
    state,
    rawCall: (method, path, opts = {}) =>
      sendWithProof(svc.url, key, state, method, path, {
        ...opts,
        headers: { ...opts.headers, ...headers },
        accessToken: client.accessToken,
      }),
    call: async (operationId, method, path, opts = {}) =>
      conforming(operationId, method, path, await client.rawCall(method, path, opts)),
  };
  return { client, account };
}

/** A provider's webhook as it delivers it (exact bytes and headers) to receiveRampWebhook, checked against the contract. */
export const postRampWebhook = (
  svc: TestService,
  providerId: string,
  appId: string,
  signed: { headers: Record<string, string>; rawBody: Buffer },
) =>
  call(svc.url, 'receiveRampWebhook', 'POST', `/v1/ramps/webhooks/${providerId}/${appId}`, {
    headers: signed.headers,
    rawBody: new Uint8Array(signed.rawBody),
  });

/** The statuses `ramp.updated` announced for a ramp, in the order delivered (duplicates kept). */
export function rampUpdates(receiver: WebhookReceiver, rampTxId: string): { status: string; data: any }[] {
  return receiver.received
    .map((d) => JSON.parse(d.body) as { event: string; data: any })
    .filter((b) => b.event === 'ramp.updated' && b.data.rampTxId === rampTxId)
    .map((b) => ({ status: b.data.status as string, data: b.data }));
}

/** The wallet's history (getTxHistory) as hash -> record. */
export async function historyByHash(user: UserClient): Promise<Map<string, { status: string; summary: string }>> {
  const res = await user.call('getTxHistory', 'GET', '/v1/tx/history?limit=50');
  assert.equal(res.status, 200, res.text);
  const records = res.body.content.records as { hash: string; status: string; summary: string }[];
  return new Map(records.map((r) => [r.hash, r]));
}

/** The app's ramp providers saved as the dashboard's updateRampSettings saves them. */
export const saveRampProviders = (svc: TestService, app: App, providers: RampSettingsInput['providers']) =>
  updateRampSettings(svc.deps, app, { providers }, { actor: SYSTEM_ACTOR, at: new Date() });

/** The contract's error updateRampSettings refuses `providers` with (fails when they are saved). */
export async function settingsRefusal(
  svc: TestService,
  app: App,
  providers: RampSettingsInput['providers'],
): Promise<AppError> {
  try {
    await saveRampProviders(svc, app, providers);
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  assert.fail(`the ramp settings were saved: ${JSON.stringify(providers)}`);
}

/** Points the app's webhook endpoint at `url` for `events`; answers the signing secret. */
export async function subscribeWebhooks(
  svc: TestService,
  appId: string,
  url: string,
  events: WebhookEventName[] = ['ramp.updated'],
): Promise<string> {
  const config = await updateWebhookConfig(svc.deps, {
    appId,
    url,
    enabled: true,
    events,
    actor: SYSTEM_ACTOR,
    at: new Date(),
  });
  return config.secret!;
}

/**
 * Waits until the user's history has the on-ramp's delivery and the off-ramp's payment (asserting their amounts), and
 * until `ramp.updated` announced both ramps completed; answers the statuses announced for each, in order.
 */
export async function awaitRampSteps(
  user: UserClient,
  receiver: WebhookReceiver,
  onRamp: { txId: string; deliveryHash: string; amount: string },
  offRamp: { txId: string; paymentHash: string; amount: string },
): Promise<{ on: string[]; off: string[] }> {
  await eventually(
    'the history has the delivery and the payment',
    async () => {
      const history = await historyByHash(user);
      return (
        history.get(onRamp.deliveryHash)?.status === 'SUCCESS' && history.get(offRamp.paymentHash)?.status === 'SUCCESS'
      );
    },
    30_000,
  );
  const history = await historyByHash(user);
  assert.match(history.get(onRamp.deliveryHash)!.summary, new RegExp(`${onRamp.amount} USDC`));
  assert.match(history.get(offRamp.paymentHash)!.summary, new RegExp(`${offRamp.amount} USDC`));
  await eventually(
    'ramp.updated delivered for each step',
    async () =>
      rampUpdates(receiver, onRamp.txId).at(-1)?.status === 'completed' &&
      rampUpdates(receiver, offRamp.txId).at(-1)?.status === 'completed',
    30_000,
  );
  return {
    on: rampUpdates(receiver, onRamp.txId).map((u) => u.status),
    off: rampUpdates(receiver, offRamp.txId).map((u) => u.status),
  };
}
