// What tests of the dashboard-auth operations in this folder share: the service they run against, its state and helpers
// (the tests are in <operationId>.test.ts). What they cover:
// Operator sign-in and sessions on real PostgreSQL: email codes through the dev outbox, DPoP-bound access tokens
// (nonces, replay, key binding, htm/htu/iat/ath), refresh rotation with reuse detection, sign-out.
import { after, before } from 'node:test';
import { startTestService, type TestService } from '../../support/service';

/** Set by useService()'s hooks: ES module bindings are live, so read them inside tests, not at load time. */
export let svc: TestService;

/** Starts the service (and what the tests need of it) before the calling suite's tests and stops it after. */
export function useService(): void {
  before(async () => {
    svc = await startTestService();
  });
  after(async () => {
    await svc?.stop();
  });
}
