// What tests of the sdk-auth operations in this folder share: the service they run against, its state and helpers
// (the tests are in <operationId>.test.ts). What they cover:
// End-user email sign-in on the SDK API, on real PostgreSQL: codes through the dev outbox, the first sign-in creating
// the user and their wallet, one user per address per app, no enumeration, the code limits, DPoP binding of the
// tokens, the app's token lifetimes, the code given back when the sign-in fails after it, and nothing in clear.
import { after, before } from 'node:test';
import { seedCredentials, type SeededCredentials } from '../../support/credentials';
import { createDpopKey } from '../../support/dpop';
import { sendWithProof } from '../../support/operators';
import { startTestService, type TestService } from '../../support/service';

/** Set by useService()'s hooks: ES module bindings are live, so read them inside tests, not at load time. */
export let svc: TestService;
/** A fresh app per test: the per-IP limits count per app, so tests do not share them. */
export const freshApp = () => seedCredentials(svc.deps.db);
export const verify = (creds: SeededCredentials, body: unknown, key?: Awaited<ReturnType<typeof createDpopKey>>) =>
  (async () =>
    sendWithProof(svc.url, key ?? (await createDpopKey()), {}, 'POST', '/v1/auth/email/verify', {
      headers: { 'x-service-api-key': creds.publishableKey },
      body,
    }))();
export const wrongCodeFor = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');
/** Lets the address ask for a new code at once (the 60 s resend window is not what these tests are about). */
export const allowResend = (email: string) =>
  svc.deps
    .db('email_codes')
    .where({ email })
    .update({ sent_at: new Date(Date.now() - 61_000) });

/** Starts the service (and what the tests need of it) before the calling suite's tests and stops it after. */
export function useService(): void {
  before(async () => {
    svc = await startTestService();
  });
  after(async () => {
    await svc?.stop();
  });
}
