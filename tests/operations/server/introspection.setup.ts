// What tests of the server operations in this folder share: the service they run against, its state and helpers
// (the tests are in <operationId>.test.ts). What they cover:
// Server API users (secret key), on real PostgreSQL: setting and clearing the app's own id for a user (unique within
// the app), looking a user up by it, and checking an end user's access token (valid, expired, signed out, another
// app's, not a user token).
import { after, before } from 'node:test';
import { seedCredentials, type SeededCredentials } from '../../support/credentials';
import { call } from '../../support/http';
import { capturingLogger } from '../../support/log';
import { startTestService, type TestService } from '../../support/service';

/** Set by useService()'s hooks: ES module bindings are live, so read them inside tests, not at load time. */
export let svc: TestService;
export let creds: SeededCredentials;
export const captured = capturingLogger();
export const introspect = (token: string, key = creds.secretKey) =>
  call(svc.url, 'introspectUserToken', 'POST', '/v1/tokens/introspect', {
    headers: { 'x-service-api-key': key },
    body: { token },
  });

/** Starts the service (and what the tests need of it) before the calling suite's tests and stops it after. */
export function useService(): void {
  before(async () => {
    svc = await startTestService({}, { log: captured.log });
    creds = await seedCredentials(svc.deps.db);
  });
  after(async () => {
    await svc?.stop();
  });
}
