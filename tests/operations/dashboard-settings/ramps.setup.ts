// What the ramp settings operations' tests share: a service with the sandbox ramp provider on, operators (an owner
// with a developer on the team, and an outsider), testnet apps with assets, and the two operations' calls.
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { updateAppSettings } from '../../../src/domain/apps/store';
import { demoUsdcIssuer } from '../../../src/domain/treasury/demoUsdc';
import { signInOperator, teamAppOf, type OperatorClient } from '../../support/operators';
import { startTestService, type TestService } from '../../support/service';

export const API_KEY = 'brg_test_4mQ9xV4tR7wY1zB3nC6dE0gH5jL2';
export const OTHER_ISSUER_ASSET = 'EURC:GBBD47IF6LWK7P7MDEVSCWR7DPUWV3NY3DTQEVFL4NAT4AQH3ZLLFLA5';

/** Set by useRampService()'s hooks: ES module bindings are live, so read them inside tests, not at load time. */
export let svc: TestService;
export let owner: OperatorClient;
export let developer: OperatorClient;
export let outsider: OperatorClient;
/** The service's demo USDC (what the sandbox ramps). */
export let usdc: string;

export function useRampService(): void {
  before(async () => {
    svc = await startTestService({ RAMPS_SANDBOX: 'on' });
    [owner, developer, outsider] = await Promise.all([signInOperator(svc), signInOperator(svc), signInOperator(svc)]);
    usdc = `USDC:${demoUsdcIssuer(svc.deps.secrets).publicKey()}`;
  });
  after(async () => {
    await svc?.stop();
  });
}

export const pathOf = (appId: string) => `/api/v1/apps/${appId}/ramps`;
export const get = (client: OperatorClient, appId: string) => client.call('getRampSettings', 'GET', pathOf(appId));
export const put = (client: OperatorClient, appId: string, body: unknown) =>
  client.call('updateRampSettings', 'PUT', pathOf(appId), { body });

/** A testnet app of the owner (the developer on its team) with `assets` configured. */
export async function appWith(assets: string[]): Promise<string> {
  const appId = await teamAppOf(owner, [[developer, 'developer']], 'Ramp app');
  await updateAppSettings(svc.deps.db, appId, { assets });
  return appId;
}

/** Asserts a refusal with its status and code; answers the error's details. */
export function refused(res: { status: number; body: any; text: string }, status: number, code: string): any {
  assert.deepEqual([res.status, res.body?.code], [status, code], res.text);
  return res.body.details;
}
