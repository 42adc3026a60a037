// End users in tests: sign in through the real SDK email-code flow (the code read from the service's dev outbox), then
// call SDK API operations with the app's publishable key, the access token and a fresh DPoP proof per request,
// following the server's nonce. The SDK counterpart of signInOperator (operators.ts).
import type { OperationId } from '../../generated/server/catalogue.gen';
import { call, conforming, type CallOptions } from './http';
import { latestCode, sendWithProof, testEmail } from './operators';
import type { ObservedResponse } from './spec';
import type { TestService } from './service';
import { createDpopKey, type DpopKey } from './dpop';
import { updateAuthProviders } from '../../src/domain/oauth/appProviders';

export interface UserClient {
  userId: string;
  email: string;
  publishableKey: string;
  key: DpopKey;
  accessToken: string;
  refreshToken: string;
  sessionId: string;
  /** The SdkSignInResult of the sign-in (tokens, user, wallet). */
  signIn: any;
  /** The newest DPoP nonce the server sent this client. */
  state: { nonce?: string };
  /** Calls an SDK operation with the key and the session (token + fresh proof), checking the answer against the contract. */
  call(
    operationId: OperationId,
    method: string,
    path: string,
    opts?: CallOptions,
  ): Promise<ObservedResponse & { body: any }>;
  /** The same without the contract check. */
  rawCall(method: string, path: string, opts?: CallOptions): Promise<ObservedResponse & { body: any }>;
}

/** Asks for a sign-in code for `email` in the app of `publishableKey`. */
export async function startUserEmailSignIn(
  svc: TestService,
  publishableKey: string,
  email: string,
): Promise<ObservedResponse & { body: any }> {
  return call(svc.url, 'startEmailSignIn', 'POST', '/v1/auth/email/start', {
    headers: { 'x-service-api-key': publishableKey },
    body: { email },
  });
}

/**
 * Signs an end user in by email code in the app of `creds.publishableKey` (creating the user and their wallet on the
 * first sign-in) and returns a client for their session.
 */
export async function signInUser(
  svc: TestService,
  creds: { publishableKey: string },
  email: string = testEmail('user'),
): Promise<UserClient> {
  let start = await startUserEmailSignIn(svc, creds.publishableKey, email);
  // The same address signed in less than a minute ago (a journey signing its user in again): wait out the resend
  // delay as a client would, by the answer's Retry-After.
  const retryAfter = Number(start.headers.get('retry-after'));
  if (start.status === 429 && Number.isInteger(retryAfter) && retryAfter <= 60) {
    await new Promise((r) => setTimeout(r, retryAfter * 1000 + 100));
    start = await startUserEmailSignIn(svc, creds.publishableKey, email);
  }
  if (start.status !== 200) throw new Error(`email start answered ${start.status}: ${start.text}`);
  const key = await createDpopKey();
  const state: { nonce?: string } = {};
  const withKey = (opts: CallOptions = {}): CallOptions => ({
    ...opts,
    headers: { ...opts.headers, 'x-service-api-key': creds.publishableKey },
  });
  const verify = await sendWithProof(
    svc.url,
    key,
    state,
    'POST',
    '/v1/auth/email/verify',
    withKey({ body: { email, code: latestCode(svc, email) } }),
  );
  if (verify.status !== 200) throw new Error(`email verify answered ${verify.status}: ${verify.text}`);
  const { tokens, user } = verify.body.content;
  const client: UserClient = {
    userId: user.userId,
    email,
    publishableKey: creds.publishableKey,
    key,
    accessToken: tokens.accessToken,
    refreshToken: tokens.refreshToken,
    sessionId: tokens.sessionId,
    signIn: verify.body.content,
    state,
    async rawCall(method, path, opts = {}) {
      return sendWithProof(svc.url, key, state, method, path, { ...withKey(opts), accessToken: client.accessToken });
    },
    async call(operationId, method, path, opts = {}) {
      return conforming(operationId, method, path, await client.rawCall(method, path, opts));
    },
  };
  return client;
}

/** Turns sign-in with the user's own Stellar wallet (SEP-10) on or off for the app; email stays on. */
export async function setWalletSignIn(
  svc: Pick<TestService, 'deps'>,
  appId: string,
  enabled: boolean = true,
): Promise<void> {
  await updateAuthProviders(
    svc.deps.db,
    svc.deps.secrets,
    appId,
    { email: { enabled: true }, google: { enabled: false }, github: { enabled: false }, stellar: { enabled } },
    new Date(),
  );
}
