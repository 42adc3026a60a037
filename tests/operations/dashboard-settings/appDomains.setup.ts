// What tests of the dashboard-settings operations in this folder share: the service they run against, its state and helpers
// (the tests are in <operationId>.test.ts). What they cover:
// Dashboard domains over HTTP with real operator sessions, every answer checked against the contract: reading and
// replacing an app's allowed origins and OAuth redirect URIs (exact forms only, in the operator's order, both lists in
// one transaction), the gate using the new origins at once, field errors keyed like the router's, cross-operator
// isolation and archived apps.
import { after, before } from 'node:test';
import { signInOperator, teamAppOf, type OperatorClient } from '../../support/operators';
import { startTestService, type TestService } from '../../support/service';

export const VALID_G = 'GCQ53WWRBL6HVSDNRMZKFZD7SP5DKYC6JFWSRLPQCVGD6Y42TYIN73Q2';

/** Set by useService()'s hooks: ES module bindings are live, so read them inside tests, not at load time. */
export let svc: TestService;
export let owner: OperatorClient;
export let developer: OperatorClient;
export let outsider: OperatorClient;

/** A new app of `owner` with `developer` on its team. */
export const teamApp = (): Promise<string> => teamAppOf(owner, [[developer, 'developer']], 'Domains app');

export const put = (client: OperatorClient, appId: string, body: unknown) =>
  client.call('updateAppDomains', 'PUT', `/api/v1/apps/${appId}/domains`, { body });
export const get = (client: OperatorClient, appId: string) =>
  client.call('getAppDomains', 'GET', `/api/v1/apps/${appId}/domains`);

/** Starts the service (and what the tests need of it) before the calling suite's tests and stops it after. */
export function useService(): void {
  before(async () => {
    svc = await startTestService();
    [owner, developer, outsider] = await Promise.all([signInOperator(svc), signInOperator(svc), signInOperator(svc)]);
  });
  after(async () => {
    await svc?.stop();
  });
}
