// The client's state machines and flow rules, against a fake SDK API (fakeService.ts): every auth transition, every
// INVALID_FLOW case, late answers dropped, the session renewed before expiry, followed across tabs and ended when
// the service says so; the data stores reset on a session change; history keeps the newest request's answer.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeJwt } from 'jose';
import {
  AUTH_ERROR_CODES,
  createOnboard,
  FlowError,
  memoryKeyStore,
  memoryStorage,
  type AuthState,
  type OnboardOptions,
  type StorageAdapter,
  type WalletAdapter,
} from '../src/index';
import {
  clientOf,
  deferred,
  fail,
  FakeService,
  G,
  ok,
  PUB,
  signInResult,
  tokens,
  type FakeAnswer,
} from './fakeService';

function emailService(): FakeService {
  return new FakeService()
    .on('POST /v1/auth/email/start', () =>
      ok('SDK_EMAIL_CODE_SENT', { sent: true, expiresInSeconds: 600, resendAfterSeconds: 30 }),
    )
    .on('POST /v1/auth/email/verify', (r) =>
      (r.body as { code: string }).code === '123456'
        ? ok('SDK_EMAIL_SIGN_IN_VERIFIED', signInResult())
        : fail(401, 'EMAIL_CODE_INVALID', 'The code is wrong'),
    )
    .on('POST /v1/auth/logout', () => ok('SDK_SIGNED_OUT', { everywhere: false, revokedSessions: 1 }))
    .on('GET /v1/wallet/balances', () => ok('WALLET_BALANCES', { publicKey: G, network: 'testnet', balances: [] }));
}

async function signedIn(fake = emailService(), extra: Partial<OnboardOptions> = {}) {
  const client = await clientOf(fake, extra);
  client.beginEmailLogin();
  await client.sendEmailCode('ada@example.com');
  await client.verifyEmailCode('123456');
  assert.equal(client.auth.get().step, 'authenticated');
  return client;
}

/** A BuiltTransaction as buildTransaction answers it. */
const builtTx = (txId: string, unsignedXdr: string) => ({
  txId,
  unsignedXdr,
  networkPassphrase: 'Test SDF Network ; September 2015',
  estimatedFeeXlm: '0.00002',
  summary: { title: 'Send 1 XLM' },
});
const errorCodeOf = (state: AuthState) => (state.step === 'error' ? state.errorCode : undefined);
const throwsInvalidFlow = (fn: () => unknown) =>
  assert.throws(fn, (err: unknown) => err instanceof FlowError && err.code === 'INVALID_FLOW');
const rejectsInvalidFlow = (fn: () => Promise<unknown>) =>
  assert.rejects(fn, (err: unknown) => err instanceof FlowError && err.code === 'INVALID_FLOW');

describe('auth state machine: email code', () => {
  test('restoring -> idle at ready; subscribe replays the current state and unsubscribes', async () => {
    const client = createOnboard({ publishableKey: PUB, baseUrl: 'https://x.test', fetch: emailService().fetch });
    const seen: string[] = [];
    const stop = client.auth.subscribe((s) => seen.push(s.step));
    await client.ready();
    assert.deepEqual(seen, ['restoring', 'idle']);
    stop();
    client.beginEmailLogin();
    assert.deepEqual(seen, ['restoring', 'idle']);
    const late: string[] = [];
    client.auth.subscribe((s) => late.push(s.step));
    assert.deepEqual(late, ['entering_email']);
  });

  test('the happy path and each request it makes, with a proof and no access token before sign-in', async () => {
    const fake = emailService();
    const client = await clientOf(fake);
    const seen: AuthState[] = [];
    client.auth.subscribe((s) => seen.push(s));
    client.beginEmailLogin();
    const sending = client.sendEmailCode(' ada@example.com ');
    assert.deepEqual(client.auth.get(), { step: 'sending_email', email: 'ada@example.com' });
    await sending;
    const entering = client.auth.get();
    assert.equal(entering.step, 'entering_code');
    assert.ok(entering.step === 'entering_code' && entering.resendAvailableAt.getTime() > Date.now() + 25_000);
    await client.verifyEmailCode('123456');
    assert.deepEqual(
      seen.map((s) => s.step),
      ['idle', 'entering_email', 'sending_email', 'entering_code', 'verifying_email_code', 'authenticated'],
    );
    const verify = fake.seen.find((r) => r.path === '/v1/auth/email/verify')!;
    assert.equal(verify.headers.get('x-service-api-key'), PUB);
    assert.equal(verify.headers.get('authorization'), null);
    const proof = decodeJwt(verify.headers.get('dpop')!);
    assert.equal(proof.htm, 'POST');
    assert.equal(proof.htu, 'https://api.example.test/v1/auth/email/verify');
    // After sign-in, calls carry the access token and a proof bound to it.
    await client.refreshBalances();
    const call = fake.seen.at(-1)!;
    assert.equal(call.headers.get('authorization'), 'DPoP at-1');
    assert.ok(decodeJwt(call.headers.get('dpop')!).ath);
  });

  test('a wrong code is an error state; another code may be tried; a resend from entering_code', async () => {
    const client = await clientOf(emailService());
    client.beginEmailLogin();
    await client.sendEmailCode('ada@example.com');
    await client.sendEmailCode('ada@example.com'); // resend
    await client.verifyEmailCode('000000');
    const state = client.auth.get();
    assert.equal(state.step, 'error');
    assert.ok(state.step === 'error');
    assert.equal(state.errorCode, 'EMAIL_CODE_INVALID');
    assert.equal(state.previousStep, 'verifying_email_code');
    assert.equal(state.apiCode, 'EMAIL_CODE_INVALID');
    assert.equal(state.message, 'The code is wrong');
    assert.ok(AUTH_ERROR_CODES.has(state.errorCode));
    await client.verifyEmailCode('123456');
    assert.equal(client.auth.get().step, 'authenticated');
  });

  test('a failed send: EMAIL_SEND_FAILED, RATE_LIMITED, NETWORK_ERROR as states; sending again is allowed', async () => {
    let answer: FakeAnswer = fail(503, 'SERVICE_UNAVAILABLE');
    const fake = emailService().on('POST /v1/auth/email/start', () => answer);
    const client = await clientOf(fake);
    client.beginEmailLogin();
    await client.sendEmailCode('ada@example.com');
    assert.equal(errorCodeOf(client.auth.get()), 'EMAIL_SEND_FAILED');
    // Nothing was sent, so there is no code to verify.
    await rejectsInvalidFlow(() => client.verifyEmailCode('123456'));
    answer = fail(429, 'RATE_LIMITED');
    await client.sendEmailCode('ada@example.com');
    assert.equal(errorCodeOf(client.auth.get()), 'RATE_LIMITED');
    answer = 'network-error';
    await client.sendEmailCode('ada@example.com');
    const offline = client.auth.get();
    assert.equal(offline.step === 'error' && offline.errorCode, 'NETWORK_ERROR');
    assert.equal(offline.step === 'error' && offline.previousStep, 'sending_email');
    // An answer without its durations still gives real dates (never Invalid Date).
    answer = ok('SDK_EMAIL_CODE_SENT', { sent: true, expiresInSeconds: 'soon' });
    await client.sendEmailCode('ada@example.com');
    const entering = client.auth.get();
    assert.ok(entering.step === 'entering_code' && Number.isFinite(entering.codeExpiresAt.getTime()));
    assert.ok(entering.step === 'entering_code' && Number.isFinite(entering.resendAvailableAt.getTime()));
  });

  test('INVALID_FLOW for every step called out of order', async () => {
    const held = deferred<FakeAnswer>();
    const fake = emailService().on('POST /v1/auth/email/start', () => held.promise);
    const client = await clientOf(fake);
    // idle
    await rejectsInvalidFlow(() => client.sendEmailCode('ada@example.com'));
    await rejectsInvalidFlow(() => client.verifyEmailCode('123456'));
    await rejectsInvalidFlow(() => client.completeOAuthRedirect('https://app.test/cb?code=x&state=unknown-state-0000'));
    // entering_email: no code was sent yet
    client.beginEmailLogin();
    await rejectsInvalidFlow(() => client.verifyEmailCode('123456'));
    // sending_email: a request is in flight
    const sending = client.sendEmailCode('ada@example.com');
    throwsInvalidFlow(() => client.beginEmailLogin());
    await rejectsInvalidFlow(() => client.sendEmailCode('ada@example.com'));
    await rejectsInvalidFlow(() => client.verifyEmailCode('123456'));
    await rejectsInvalidFlow(() => client.loginWithOAuth({ provider: 'google', redirectUri: 'https://app.test/cb' }));
    held.resolve(ok('SDK_EMAIL_CODE_SENT', { sent: true, expiresInSeconds: 600, resendAfterSeconds: 30 }));
    await sending;
    await client.verifyEmailCode('123456');
    // authenticated: sign out first
    throwsInvalidFlow(() => client.beginEmailLogin());
    await rejectsInvalidFlow(() => client.sendEmailCode('ada@example.com'));
    await rejectsInvalidFlow(() => client.verifyEmailCode('123456'));
    await rejectsInvalidFlow(() => client.loginWithOAuth({ provider: 'github', redirectUri: 'https://app.test/cb' }));
    // Nothing above changed the state.
    assert.equal(client.auth.get().step, 'authenticated');
  });

  test('cancelLogin drops the late answer of the cancelled step', async () => {
    const held = deferred<FakeAnswer>();
    const client = await clientOf(emailService().on('POST /v1/auth/email/start', () => held.promise));
    client.beginEmailLogin();
    const sending = client.sendEmailCode('ada@example.com');
    client.cancelLogin();
    assert.deepEqual(client.auth.get(), { step: 'idle' });
    held.resolve(ok('SDK_EMAIL_CODE_SENT', { sent: true, expiresInSeconds: 600, resendAfterSeconds: 30 }));
    await sending;
    assert.deepEqual(client.auth.get(), { step: 'idle' });
    await rejectsInvalidFlow(() => client.verifyEmailCode('123456'));
  });

  test('logout: the service is told, the device forgets, and the stores reset; outside a session it is a no-op', async () => {
    const client = await clientOf(emailService());
    const idle = await client.logout();
    assert.ok(idle.ok && idle.content.revokedSessions === 0);
    client.beginEmailLogin();
    await client.sendEmailCode('ada@example.com');
    await client.verifyEmailCode('123456');
    await client.refreshBalances();
    assert.equal(client.balances.get().step, 'loaded');
    const out = await client.logout();
    assert.ok(out.ok && out.content.revokedSessions === 1);
    assert.deepEqual(client.auth.get(), { step: 'idle', reason: 'SIGNED_OUT' });
    assert.deepEqual(client.balances.get(), { step: 'idle' });
    assert.equal(client.session, undefined);
  });
});

describe('auth state machine: Google and GitHub (PKCE)', () => {
  function oauthService(): FakeService {
    return emailService()
      .on('GET /v1/auth/oauth/google/start', () =>
        ok('SDK_OAUTH_SIGN_IN_STARTED', {
          authorizationUrl: 'https://accounts.google.test/auth?state=state-0123456789abcdef',
          state: 'state-0123456789abcdef',
          expiresAt: new Date(Date.now() + 600_000).toISOString(),
        }),
      )
      .on('POST /v1/auth/oauth/google/callback', () => ok('SDK_OAUTH_SIGN_IN_COMPLETED', signInResult()));
  }

  test('redirect: the provider URL is opened, the answer completes with the verifier of the challenge sent', async () => {
    const fake = oauthService();
    const opened: string[] = [];
    const storage = memoryStorage();
    const client = await clientOf(fake, { openUrl: (url) => opened.push(url), storage });
    await client.loginWithOAuth({ provider: 'google', redirectUri: 'https://app.test/cb' });
    assert.deepEqual(client.auth.get(), { step: 'awaiting_oauth', provider: 'google' });
    assert.deepEqual(opened, ['https://accounts.google.test/auth?state=state-0123456789abcdef']);
    // The page reloads at the redirect URI: a new client on the same device finishes the flow.
    const back = await clientOf(fake, { storage });
    await back.completeOAuthRedirect('https://app.test/cb?code=abc&state=state-0123456789abcdef');
    assert.equal(back.auth.get().step, 'authenticated');
    const callback = fake.seen.find((r) => r.path === '/v1/auth/oauth/google/callback')!;
    const body = callback.body as { codeVerifier: string; redirectUri: string; code: string };
    assert.equal(body.code, 'abc');
    assert.equal(body.redirectUri, 'https://app.test/cb');
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(body.codeVerifier)));
    const challenge = Buffer.from(digest).toString('base64url');
    // The challenge that went out in the start request's query is the S256 of the verifier sent now.
    const query = fake.queries.find((q) => q.includes('codeChallenge'))!;
    assert.equal(new URLSearchParams(query).get('codeChallenge'), challenge);
    // Not a URL: no answer of a provider, so out of order too (never a TypeError).
    await rejectsInvalidFlow(() => back.completeOAuthRedirect('not a url'));
    // The answer is single-use: the same URL again is out of order.
    await rejectsInvalidFlow(() =>
      back.completeOAuthRedirect('https://app.test/cb?code=abc&state=state-0123456789abcdef'),
    );
  });

  test('refused at the provider: OAUTH_CANCELLED; a bad exchange: EXTERNAL_AUTH_FAILED; not configured', async () => {
    const fake = oauthService();
    const client = await clientOf(fake, { openUrl: () => undefined });
    await client.loginWithOAuth({ provider: 'google', redirectUri: 'https://app.test/cb' });
    await client.completeOAuthRedirect('https://app.test/cb?error=access_denied&state=state-0123456789abcdef');
    assert.equal(errorCodeOf(client.auth.get()), 'OAUTH_CANCELLED');
    fake.on('POST /v1/auth/oauth/google/callback', () => fail(400, 'OAUTH_STATE_INVALID'));
    await client.loginWithOAuth({ provider: 'google', redirectUri: 'https://app.test/cb' });
    await client.completeOAuthRedirect('https://app.test/cb?code=abc&state=state-0123456789abcdef');
    assert.equal(errorCodeOf(client.auth.get()), 'EXTERNAL_AUTH_FAILED');
    fake.on('GET /v1/auth/oauth/google/start', () => fail(422, 'OAUTH_PROVIDER_NOT_CONFIGURED'));
    await client.loginWithOAuth({ provider: 'google', redirectUri: 'https://app.test/cb' });
    const state = client.auth.get();
    assert.equal(state.step === 'error' && state.errorCode, 'AUTH_PROVIDER_NOT_CONFIGURED');
    assert.equal(state.step === 'error' && state.previousStep, 'opening_oauth');
  });

  test('popup mode without a window to open (blocked, or no DOM): POPUP_BLOCKED', async () => {
    const client = await clientOf(oauthService());
    await client.loginWithOAuth({ provider: 'google', redirectUri: 'https://app.test/cb', mode: 'popup' });
    assert.equal(errorCodeOf(client.auth.get()), 'POPUP_BLOCKED');
  });
});

describe("auth state machine: the user's own Stellar wallet (SEP-10)", () => {
  const CHALLENGE = 'AAAAAgAAAAA=';
  function walletService(): FakeService {
    return emailService()
      .on('GET /v1/auth/wallet/challenge', () =>
        ok('SDK_WALLET_CHALLENGE_CREATED', {
          transaction: CHALLENGE,
          networkPassphrase: 'Test SDF Network ; September 2015',
          expiresAt: new Date(Date.now() + 900_000).toISOString(),
        }),
      )
      .on('POST /v1/auth/wallet/verify', (r) =>
        (r.body as { transaction: string }).transaction === `${CHALLENGE}signed`
          ? ok('SDK_WALLET_SIGN_IN_VERIFIED', {
              ...signInResult(),
              wallet: { ...signInResult().wallet, custody: 'external' },
            })
          : fail(401, 'WALLET_AUTH_FAILED', 'The challenge could not be verified'),
      );
  }
  const wallet = (overrides: Partial<WalletAdapter> = {}): WalletAdapter => ({
    id: 'test-wallet',
    name: 'Test wallet',
    getAddress: async () => G,
    signTransaction: async (xdr) => `${xdr}signed`,
    ...overrides,
  });

  test('connecting -> signing the challenge -> authenticating -> authenticated, the wallet signing for the session', async () => {
    const fake = walletService();
    const client = await clientOf(fake);
    const steps: string[] = [];
    client.auth.subscribe((s) => steps.push(s.step));
    await client.loginWithWallet(wallet());
    assert.deepEqual(steps, [
      'idle',
      'connecting_wallet',
      'signing_wallet_challenge',
      'authenticating_wallet',
      'authenticated',
    ]);
    assert.equal(client.session?.walletAdapterId, 'test-wallet');
    assert.equal(new URLSearchParams(fake.queries.find((q) => q.includes('account'))).get('account'), G);
    await rejectsInvalidFlow(() => client.loginWithWallet(wallet()));
  });

  test('WALLET_CONNECT_FAILED when the wallet gives no account, WALLET_AUTH_FAILED when it does not sign or is refused', async () => {
    const client = await clientOf(walletService());
    await client.loginWithWallet(wallet({ getAddress: () => Promise.reject(new Error('Wallet is locked')) }));
    assert.deepEqual(client.auth.get(), {
      step: 'error',
      previousStep: 'connecting_wallet',
      flow: 'wallet',
      errorCode: 'WALLET_CONNECT_FAILED',
      message: 'Wallet is locked',
    });
    await client.loginWithWallet(wallet({ signTransaction: () => Promise.reject(new Error('User declined')) }));
    assert.equal(errorCodeOf(client.auth.get()), 'WALLET_AUTH_FAILED');
    await client.loginWithWallet(wallet({ signTransaction: async (xdr) => `${xdr}forged` }));
    const refused = client.auth.get();
    assert.equal(errorCodeOf(refused), 'WALLET_AUTH_FAILED');
    assert.equal(refused.step === 'error' && refused.previousStep, 'authenticating_wallet');
    const off = walletService().on('GET /v1/auth/wallet/challenge', () => fail(403, 'AUTH_PROVIDER_DISABLED'));
    const disabled = await clientOf(off);
    await disabled.loginWithWallet(wallet());
    assert.equal(errorCodeOf(disabled.auth.get()), 'AUTH_PROVIDER_DISABLED');
  });

  test("an external wallet's payment: built by the service, signed by the adapter, submitted; no adapter after a reload: WALLET_NOT_CONNECTED", async () => {
    const built = builtTx('tx_01EXT', 'UNSIGNED');
    const fake = walletService()
      .on('POST /v1/tx/build', () => ok('TX_BUILT', built))
      .on('POST /v1/tx/submit', (r) =>
        (r.body as { signedXdr: string }).signedXdr === 'UNSIGNEDsigned'
          ? ok('TX_SUBMITTED', { status: 'success', txId: built.txId, hash: 'b'.repeat(64), ledger: 7 })
          : fail(400, 'TX_INVALID_SIGNED_XDR'),
      );
    const storage = memoryStorage();
    const keyStore = memoryKeyStore();
    const client = await clientOf(fake, { storage, keyStore });
    await client.loginWithWallet(wallet());
    const operation = { type: 'payment', destination: G, asset: 'native', amount: '1' } as const;
    const paid = await client.runTx({ operation });
    assert.equal(paid.status, 'success', JSON.stringify(paid));
    assert.ok(!fake.paths().includes('POST /v1/tx/run'), 'runTransaction is never asked to sign for it');
    assert.ok(!fake.paths().includes('POST /v1/tx/sign'));
    const reloaded = await clientOf(fake, { storage, keyStore });
    assert.equal(reloaded.auth.get().step, 'authenticated');
    const orphan = await reloaded.runTx({ operation });
    assert.equal(orphan.status === 'error' && orphan.code, 'WALLET_NOT_CONNECTED');
    const again = await clientOf(fake, { storage, keyStore, walletAdapters: [wallet()] });
    assert.equal((await again.runTx({ operation })).status, 'success');
  });
});

describe('session', () => {
  test('renewed before the access token expires (timer at half a short lifetime), one refresh at a time', async () => {
    let n = 1;
    const fake = emailService()
      .on('POST /v1/auth/email/verify', () => ok('SDK_EMAIL_SIGN_IN_VERIFIED', signInResult(1, 1)))
      .on('POST /v1/auth/refresh', (r) => {
        assert.equal((r.body as { refreshToken: string }).refreshToken, `rt-${n}`);
        assert.equal(r.headers.get('authorization'), null, 'a refresh carries no access token');
        n += 1;
        return ok('SDK_SESSION_REFRESHED', tokens(n, 900));
      });
    const client = await signedIn(fake);
    const before = client.session!.accessTokenExpiresAt;
    await new Promise((r) => setTimeout(r, 800));
    assert.equal(n, 2, 'refreshed once by the timer');
    assert.ok(client.session!.accessTokenExpiresAt > before);
    await client.refreshBalances();
    assert.equal(fake.seen.at(-1)!.headers.get('authorization'), 'DPoP at-2');
    client.destroy();
  });

  test('a revoked session found at a call: the refresh says so, the session ends, no throw', async () => {
    const fake = emailService()
      .on('GET /v1/wallet/balances', () => fail(401, 'SDK_AUTH_INVALID_TOKEN'))
      .on('POST /v1/auth/refresh', () => fail(401, 'SDK_REFRESH_TOKEN_INVALID'));
    const client = await signedIn(fake);
    // The answer belongs to a session that ended meanwhile: it is dropped, the stores start over.
    const state = await client.refreshBalances();
    assert.deepEqual(state, { step: 'idle' });
    assert.deepEqual(client.auth.get(), { step: 'idle', reason: 'SESSION_EXPIRED' });
    assert.deepEqual(fake.paths().slice(-2), ['GET /v1/wallet/balances', 'POST /v1/auth/refresh']);
  });

  test('a network failure during a refresh keeps the session for a later try', async () => {
    const fake = emailService().on('POST /v1/auth/refresh', () => 'network-error');
    const client = await signedIn(fake, { retry: { attempts: 0, baseDelayMs: 1 } });
    assert.equal(await client.refreshSession(), false);
    assert.equal(client.auth.get().step, 'authenticated');
  });

  test('tabs follow each other: a sign-in and a sign-out in one are picked up by the other', async () => {
    // Two clients on one storage whose watch() plays the browser's storage event between tabs.
    const values = new Map<string, string>();
    const watchers = new Set<() => void>();
    const shared = (): StorageAdapter => ({
      get: (k) => values.get(k) ?? null,
      set: (k, v) => {
        values.set(k, v);
        queueMicrotask(() => watchers.forEach((w) => w()));
      },
      remove: (k) => {
        values.delete(k);
        queueMicrotask(() => watchers.forEach((w) => w()));
      },
      watch: (_k, cb) => {
        watchers.add(cb);
        return () => watchers.delete(cb);
      },
    });
    const keyStore = memoryKeyStore();
    const fake = emailService();
    const tabA = await clientOf(fake, { storage: shared(), keyStore });
    const tabB = await clientOf(fake, { storage: shared(), keyStore });
    tabA.beginEmailLogin();
    await tabA.sendEmailCode('ada@example.com');
    await tabA.verifyEmailCode('123456');
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(tabB.auth.get().step, 'authenticated');
    await tabA.logout();
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(tabB.auth.get(), { step: 'idle', reason: 'SIGNED_OUT' });
    assert.equal(fake.seen.filter((r) => r.path === '/v1/auth/logout').length, 1, 'only the tab that signed out asks');
  });

  test('a stored record that cannot be read is treated as signed out', async () => {
    const storage = memoryStorage();
    await storage.set(`onboard:${PUB}`, '{not json');
    const client = await clientOf(emailService(), { storage });
    assert.deepEqual(client.auth.get(), { step: 'idle' });
  });
});

describe('data state machines', () => {
  test('history: a newer request drops an older answer that arrives later', async () => {
    // Each request's answer is chosen by its page, not by arrival order (the two proofs are signed concurrently).
    const answers = [deferred<FakeAnswer>(), deferred<FakeAnswer>()];
    const fake = emailService().on(
      'GET /v1/tx/history',
      (req) => answers[/offset=10/.test(req.search) ? 1 : 0]!.promise,
    );
    const client = await signedIn(fake);
    const page = (total: number) => ok('TX_HISTORY', { records: [], total, limit: 10, offset: 0, nextCursor: null });
    const first = client.loadHistory({ limit: 10 });
    const second = client.loadHistory({ limit: 10, offset: 10 });
    answers[1]!.resolve(page(2));
    await second;
    answers[0]!.resolve(page(1));
    await first;
    const state = client.history.get();
    assert.equal(state.step, 'loaded');
    assert.ok(state.step === 'loaded');
    assert.equal(state.data.total, 2);
    assert.deepEqual(state.params, { limit: 10, offset: 10 });
  });

  test('transactions: build -> built, sign -> signed, submit -> submitted, a rejection -> error with resultCode', async () => {
    const built = builtTx('tx_01TEST', 'AAAA');
    const fake = emailService()
      .on('POST /v1/tx/build', () => ok('TX_BUILT', built))
      .on('POST /v1/tx/sign', () => ok('TX_SIGNED', { txId: built.txId, signedXdr: 'BBBB' }))
      .on('POST /v1/tx/submit', () => ok('TX_SUBMITTED', { status: 'pending', txId: built.txId, hash: 'a'.repeat(64) }))
      .on('POST /v1/tx/run', () => ({
        status: 400,
        body: { success: false, code: 'TX_SUBMIT_FAILED', message: 'rejected', resultCode: 'tx_insufficient_balance' },
      }));
    const client = await signedIn(fake);
    const steps: string[] = [];
    client.transaction.subscribe((s) => steps.push(s.step));
    const operation = { type: 'payment', destination: G, asset: 'native', amount: '1' } as const;
    assert.equal((await client.buildTx({ operation })).status, 'built');
    assert.equal((await client.signTx({ txId: built.txId })).status, 'signed');
    const submitted = await client.submitTx('BBBB', { idempotencyKey: 'order-1' });
    assert.equal(submitted.status, 'pending');
    assert.equal(fake.seen.at(-1)!.headers.get('idempotency-key'), 'order-1');
    const failed = await client.runTx({ operation });
    assert.equal(failed.status, 'error');
    assert.equal(failed.status === 'error' && failed.resultCode, 'tx_insufficient_balance');
    assert.deepEqual(steps, [
      'idle',
      'building',
      'built',
      'signing',
      'signed',
      'submitting',
      'submitted',
      'running',
      'error',
    ]);
    const state = client.transaction.get();
    assert.ok(state.step === 'error');
    assert.equal(state.phase, 'run');
    assert.equal(state.resultCode, 'tx_insufficient_balance');
    client.resetTransaction();
    assert.deepEqual(client.transaction.get(), { step: 'idle' });
  });
});
