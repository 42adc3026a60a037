// What the dashboard-treasury operations' tests in this folder share: the service and state they run against, and
// helpers.
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createAppWithWallet } from '../../../src/domain/wallets/appWallets';
import { signInOperator, type OperatorClient } from '../../support/operators';
import { startTestService, type TestService } from '../../support/service';
import { accountOnChain } from '../../support/funding';

/** The state the hooks of useService() set: read it inside tests, not at load time. */
export const ctx = {} as {
  svc: TestService;
  operator: OperatorClient;
};

/** Starts the service (and what the tests need of it) before the file's tests and stops it after. */
export function useService(): void {
  before(async () => {
    ctx.svc = await startTestService({}, { closeLedgersEveryMs: 100 });
    ctx.operator = await signInOperator(ctx.svc);
  });
  after(async () => {
    await ctx.svc?.stop();
  });
}

/** An app created through the Dashboard API: createApp funds its global wallet from friendbot in the background. */
export async function newApp(name: string): Promise<string> {
  const created = await ctx.operator.call('createApp', 'POST', '/api/v1/apps', { body: { name, network: 'testnet' } });
  assert.equal(created.status, 201, created.text);
  return created.body.content.appId;
}

/** An app of the operator whose wallet nobody funds (created below the API, so no friendbot call). */
export async function newUnfundedApp(name: string): Promise<string> {
  const { app } = await createAppWithWallet(ctx.svc.deps, {
    name,
    network: 'testnet',
    ownerOperatorId: ctx.operator.operatorId,
  });
  return app.id;
}

/** Waits until createApp's background friendbot call has created the app wallet's account. */
export async function walletOnChain(appId: string): Promise<string> {
  const publicKey: string = (await treasury(appId)).body.content.wallets[0].publicKey;
  await accountOnChain(ctx.svc, publicKey);
  return publicKey;
}

export const treasury = (appId: string) => ctx.operator.call('getTreasury', 'GET', `/api/v1/apps/${appId}/treasury`);
export const setLayout = (appId: string, layout: 'single' | 'split') =>
  ctx.operator.call('updateTreasuryWallets', 'PUT', `/api/v1/apps/${appId}/treasury/wallets`, { body: { layout } });
