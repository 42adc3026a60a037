// What tests of the dashboard-settings operations in this folder share: the service they run against, its state and helpers
// (the tests are in <operationId>.test.ts). What they cover:
// An app's end-user sign-in providers over HTTP with real operator sessions, every answer checked against the
// contract: the defaults, client ids and write-only secrets (sealed at rest, answered only as clientSecretSet),
// keep-or-delete semantics, the 422 for an enabled provider without credentials (nothing written), who may read and
// change them, and validation.
import { after, before } from 'node:test';
import { signInOperator, teamAppOf, type OperatorClient } from '../../support/operators';
import { startTestService, type TestService } from '../../support/service';

export const GOOGLE_ID = '1234567890-abc123def456.apps.googleusercontent.com';
export const GOOGLE_SECRET = 'GOCSPX-settings-test-secret-4mQ9xV4tR7wY';
export const GITHUB_ID = 'Iv1.0123456789abcdef';
export const GITHUB_SECRET = 'github-settings-test-secret-0123456789abcdef';

/** Set by useService()'s hooks: ES module bindings are live, so read them inside tests, not at load time. */
export let svc: TestService;
export let owner: OperatorClient;
export let developer: OperatorClient;
export let outsider: OperatorClient;

/** A new app of `owner` with `developer` on its team. */
export const teamApp = (): Promise<string> => teamAppOf(owner, [[developer, 'developer']], 'Providers app');

export const put = (client: OperatorClient, appId: string, body: unknown) =>
  client.call('updateAuthProviders', 'PUT', `/api/v1/apps/${appId}/auth-providers`, { body });
export const get = (client: OperatorClient, appId: string) =>
  client.call('getAuthProviders', 'GET', `/api/v1/apps/${appId}/auth-providers`);
export const bothEnabled = {
  email: { enabled: true },
  google: { enabled: true, clientId: GOOGLE_ID, clientSecret: GOOGLE_SECRET },
  github: { enabled: true, clientId: GITHUB_ID, clientSecret: GITHUB_SECRET },
};
export const bothShown = {
  email: { enabled: true },
  google: { enabled: true, clientId: GOOGLE_ID, clientSecretSet: true },
  github: { enabled: true, clientId: GITHUB_ID, clientSecretSet: true },
  stellar: { enabled: false },
};

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
