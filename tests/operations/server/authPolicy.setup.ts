// What the Server API allowlist tests (<operationId>.test.ts for listAuthPolicyRows, createAuthPolicyRow,
// updateAuthPolicyRow, deleteAuthPolicyRow) share: a service on its localnet, a seeded app with a secret key, and
// helpers. Contracts are installed on the localnet out of band (tests/support/sorobanAuth.ts); a Stellar Asset
// Contract and an unreachable RPC are played by the gateway's contract read.
import { after, before } from 'node:test';
import { seedCredentials, type SeededCredentials } from '../../support/credentials';
import { call } from '../../support/http';
import { startTestService, type TestService } from '../../support/service';

/** Set by useService()'s hooks: ES module bindings are live, so read them inside tests, not at load time. */
export let svc: TestService;
export let creds: SeededCredentials;

const key = (secretKey?: string) => ({ 'x-service-api-key': secretKey ?? creds.secretKey });

export const listRows = (secretKey?: string) =>
  call(svc.url, 'listAuthPolicyRows', 'GET', '/v1/auth-policy/rows', { headers: key(secretKey) });
export const createRow = (body: unknown, secretKey?: string) =>
  call(svc.url, 'createAuthPolicyRow', 'POST', '/v1/auth-policy/rows', { headers: key(secretKey), body });
export const updateRow = (rowId: string, body: unknown, secretKey?: string) =>
  call(svc.url, 'updateAuthPolicyRow', 'PATCH', `/v1/auth-policy/rows/${rowId}`, { headers: key(secretKey), body });
export const deleteRow = (rowId: string, secretKey?: string) =>
  call(svc.url, 'deleteAuthPolicyRow', 'DELETE', `/v1/auth-policy/rows/${rowId}`, { headers: key(secretKey) });

/** The app's audit entries of an allowlist action, oldest first. */
export const auditOf = (appId: string, action: string) =>
  svc.deps.db('audit_log').where({ app_id: appId, action }).orderBy('created_at');

/** Starts the service (and what the tests need of it) before the calling suite's tests and stops it after. */
export function useService(): void {
  before(async () => {
    svc = await startTestService();
    creds = await seedCredentials(svc.deps.db);
  });
  after(async () => {
    await svc?.stop();
  });
}
