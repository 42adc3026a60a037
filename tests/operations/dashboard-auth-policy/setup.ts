// What the dashboard-auth-policy operations' tests in this folder share: a service on its localnet, operators (an
// owner with a developer on the team, and an outsider) and helpers. The rows' rules are the Server API's (one domain
// module, tests/operations/server/*AuthPolicyRow.test.ts go through every row-save code); these tests check the
// Dashboard surface: the session, membership, the app's network and the operator as the audited actor.
import { after, before } from 'node:test';
import { signInOperator, teamAppOf, type OperatorClient } from '../../support/operators';
import { startTestService, type TestService } from '../../support/service';

/** Set by useService()'s hooks: ES module bindings are live, so read them inside tests, not at load time. */
export let svc: TestService;
export let owner: OperatorClient;
export let developer: OperatorClient;
export let outsider: OperatorClient;

/** A new app of `owner`, with `developer` on its team. */
export const teamApp = (): Promise<string> => teamAppOf(owner, [[developer, 'developer']], 'Auth policy app');

const rows = (appId: string) => `/api/v1/apps/${appId}/auth-policy/rows`;
export const listRows = (client: OperatorClient, appId: string) =>
  client.call('listAppAuthPolicyRows', 'GET', rows(appId));
export const createRow = (client: OperatorClient, appId: string, body: unknown) =>
  client.call('createAppAuthPolicyRow', 'POST', rows(appId), { body });
export const updateRow = (client: OperatorClient, appId: string, rowId: string, body: unknown) =>
  client.call('updateAppAuthPolicyRow', 'PATCH', `${rows(appId)}/${rowId}`, { body });
export const deleteRow = (client: OperatorClient, appId: string, rowId: string) =>
  client.call('deleteAppAuthPolicyRow', 'DELETE', `${rows(appId)}/${rowId}`);

/** The app's audit entries of an allowlist action, oldest first. */
export const auditOf = (appId: string, action: string) =>
  svc.deps.db('audit_log').where({ app_id: appId, action }).orderBy('created_at');

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

export const contractInterfaceOf = (client: OperatorClient, appId: string, contractId: string) =>
  client.call('getAppContractInterface', 'GET', `/api/v1/apps/${appId}/contracts/${contractId}`);
