// What tests of the sdk-auth operations in this folder share: the service they run against, its state and helpers
// (the tests are in <operationId>.test.ts). What they cover:
// End-user sessions on the SDK API, on real PostgreSQL: refresh rotation (one successor under 50 parallel uses, reuse
// after the grace revokes the family, the app's current lifetimes, tokens of another app refused), sign-out (this
// session or every session of the user in the app), the session list and revoking one session.
import { after, before } from 'node:test';
import { sendWithProof } from '../../support/operators';
import { startTestService, type TestService } from '../../support/service';
import type { UserClient } from '../../support/users';

/** refreshSession as `who` sends it: its publishable key, a proof by its DPoP key following its nonce. */
export const refresh = (
  svc: TestService,
  who: Pick<UserClient, 'key' | 'state' | 'publishableKey'>,
  refreshToken: string,
  headers: Record<string, string> = {},
) =>
  sendWithProof(svc.url, who.key, who.state, 'POST', '/v1/auth/refresh', {
    headers: { ...headers, 'x-service-api-key': who.publishableKey },
    body: { refreshToken },
  });

/** Set by useService()'s hooks: ES module bindings are live, so read them inside tests, not at load time. */
export let svc: TestService;
export let noGrace: TestService;

/** Starts the service (and what the tests need of it) before the calling suite's tests and stops it after. */
export function useService(): void {
  before(async () => {
    svc = await startTestService();
    noGrace = await startTestService({ REFRESH_REUSE_GRACE_SECONDS: '0' });
  });
  after(async () => {
    await svc?.stop();
    await noGrace?.stop();
  });
}
