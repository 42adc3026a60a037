// What the KYC settings operations' tests share: a service with the sandbox KYC provider on, operators (an owner with
// a developer on the team, and an outsider), apps on either network, and the two operations' calls.
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { signInOperator, teamAppOf, type OperatorClient } from '../../support/operators';
import { startTestService, type TestService } from '../../support/service';

/** Set by useKycService()'s hooks: ES module bindings are live, so read them inside tests, not at load time. */
export let svc: TestService;
export let owner: OperatorClient;
export let developer: OperatorClient;
export let outsider: OperatorClient;

export const pathOf = (appId: string) => `/api/v1/apps/${appId}/kyc`;
export const get = (client: OperatorClient, appId: string) => client.call('getKycSettings', 'GET', pathOf(appId));
export const put = (client: OperatorClient, appId: string, body: unknown) =>
  client.call('updateKycSettings', 'PUT', pathOf(appId), { body });

/** A testnet app of the owner with the developer on its team. */
export const teamApp = () => teamAppOf(owner, [[developer, 'developer']], 'KYC app');

/** A new app of `client` on `network`. */
export async function appOn(client: OperatorClient, network: 'testnet' | 'mainnet'): Promise<string> {
  const created = await client.call('createApp', 'POST', '/api/v1/apps', { body: { name: 'KYC app', network } });
  assert.equal(created.status, 201, created.text);
  return created.body.content.appId;
}

/** Starts the service (KYC_SANDBOX on) and signs the operators in before the suite's tests; stops it after. */
export function useKycService(): void {
  before(async () => {
    svc = await startTestService({ KYC_SANDBOX: 'on' });
    [owner, developer, outsider] = await Promise.all([signInOperator(svc), signInOperator(svc), signInOperator(svc)]);
  });
  after(async () => {
    await svc?.stop();
  });
}
