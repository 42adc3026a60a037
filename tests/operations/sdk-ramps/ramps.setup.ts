// What the SDK ramp operations' tests share: the real service with the sandbox ramp provider on and no KYC offered (the
// sandbox then starts ramps without one; KYC first is rampsSandbox.test.ts's subject), a testnet app whose asset is the
// service's demo USDC (what the sandbox ramps: no chain is needed to quote or start an on-ramp), its users, and calls.
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { findApp, updateAppSettings, type App } from '../../../src/domain/apps/store';
import { demoUsdcIssuer } from '../../../src/domain/treasury/demoUsdc';
import { seedCredentials, type SeededCredentials } from '../../support/credentials';
import { startTestService, type TestService } from '../../support/service';
import { signInUser, type UserClient } from '../../support/users';

/** Set by useRampsService()'s hooks: ES module bindings are live, so read them inside tests, not at load time. */
export let svc: TestService;
export let app: App;
export let creds: SeededCredentials;
export let usdc: string;

export function useRampsService(): void {
  before(async () => {
    svc = await startTestService({ RAMPS_SANDBOX: 'on', KYC_SANDBOX: 'off' });
    creds = await seedCredentials(svc.deps.db, { name: 'Ramps app' });
    usdc = `USDC:${demoUsdcIssuer(svc.deps.secrets).publicKey()}`;
    await updateAppSettings(svc.deps.db, creds.app.id, { assets: [usdc] });
    app = (await findApp(svc.deps.db, creds.app.id))!;
  });
  after(async () => {
    await svc?.stop();
  });
}

export const newUser = (): Promise<UserClient> => signInUser(svc, creds);

export const quote = (user: UserClient, body: Record<string, unknown>) =>
  user.call('createRampQuote', 'POST', '/v1/ramps/quotes', {
    body: { providerId: 'sandbox', direction: 'on', fiatCurrency: 'USD', asset: usdc, amountIn: 'fiat', ...body },
  });

/** An on-ramp quote of `amount` USD (201 asserted); its id. */
export async function onRampQuote(user: UserClient, amount = '100'): Promise<string> {
  const res = await quote(user, { amount });
  assert.equal(res.status, 201, res.text);
  return res.body.content.quoteId;
}

export const start = (user: UserClient, quoteId: string) =>
  user.call('startRamp', 'POST', '/v1/ramps/transactions', { body: { quoteId } });

export function refused(res: { status: number; body: any; text: string }, status: number, code: string): any {
  assert.deepEqual([res.status, res.body?.code], [status, code], res.text);
  return res.body;
}
