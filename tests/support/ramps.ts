// What the ramp tests share: a testnet app with the demo USDC (so the sandbox ramp offers it), a funded user holding a
// USDC line, quotes and starts through the SDK API, and the sandbox deposit page confirmed as a browser posts it.
import assert from 'node:assert/strict';
import { updateAppSettings, type App } from '../../src/domain/apps/store';
import { fromStroops } from '../../src/domain/money/amounts';
import { issueDemoUsdc } from '../../src/domain/treasury/demoUsdc';
import type { SeededCredentials } from './credentials';
import { appWithWallet, gatewayOf, untilFunded } from './funding';
import type { TestService } from './service';
import { signInUser, type UserClient } from './users';

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
