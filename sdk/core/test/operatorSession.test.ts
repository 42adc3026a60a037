// The Dashboard's operator session (@onboard/core/operator) against the live service: an email-code sign-in made
// through its sign-in fetch becomes a session bound to its DPoP key; Dashboard API calls carry it; a reload (a
// second instance on the same storage and key store) is still signed in; renewal; sign-out ends it here and for the
// other instance, and the service no longer accepts it; a stored record that is not an operator session is ignored.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createOnboardClient, memoryKeyStore, memoryStorage } from '../src/index';
import { createOperatorSession, type OperatorSessionState } from '../src/operatorSession';
import { latestCode, testEmail } from '../../../tests/support/operators';
import { startTestService, type TestService } from '../../../tests/support/service';

let svc: TestService;

before(async () => {
  svc = await startTestService();
});
after(async () => {
  await svc?.stop();
});

async function signIn(email: string, storage = memoryStorage(), keyStore = memoryKeyStore()) {
  const session = createOperatorSession({ dashboardUrl: svc.url, storage, keyStore });
  await session.ready();
  const signInApi = createOnboardClient({ baseUrl: svc.url, fetch: session.signInFetch });
  const started = await signInApi.startOperatorEmailSignIn({ body: { email } });
  assert.ok(started.ok, JSON.stringify(started));
  const verified = await signInApi.verifyOperatorEmailSignIn({ body: { email, code: latestCode(svc, email) } });
  assert.ok(verified.ok, JSON.stringify(verified));
  await session.establish(verified.content);
  return { session, storage, keyStore, api: createOnboardClient({ baseUrl: svc.url, fetch: session.sessionFetch }) };
}

describe('operator session against the live service', () => {
  test('signed out at first; an email sign-in makes a session that Dashboard API calls carry', async () => {
    const session = createOperatorSession({
      dashboardUrl: svc.url,
      storage: memoryStorage(),
      keyStore: memoryKeyStore(),
    });
    const seen: OperatorSessionState['status'][] = [];
    session.state.subscribe((s) => seen.push(s.status));
    await session.ready();
    assert.deepEqual(seen, ['loading', 'signedOut']);
    session.destroy();

    const email = testEmail('dash-op');
    const { session: signedIn, api } = await signIn(email);
    const state = signedIn.state.get();
    assert.equal(state.status, 'signedIn');
    assert.equal(state.status === 'signedIn' && state.session.operator.email, email);
    const me = await api.getCurrentOperator();
    assert.ok(me.ok, JSON.stringify(me));
    assert.equal(me.ok && me.content.operator.email, email);
    // Without the session, the same call is refused: the token is what authenticates it.
    const anonymous = await createOnboardClient({ baseUrl: svc.url }).getCurrentOperator();
    assert.equal(anonymous.ok, false);
    signedIn.destroy();
  });

  test('a reload keeps the session; renewal; sign-out ends it here, for the other instance and at the service', async () => {
    const first = await signIn(testEmail('dash-reload'));
    const reloaded = createOperatorSession({
      dashboardUrl: svc.url,
      storage: first.storage,
      keyStore: first.keyStore,
    });
    await reloaded.ready();
    assert.equal(reloaded.state.get().status, 'signedIn');
    const reloadedApi = createOnboardClient({ baseUrl: svc.url, fetch: reloaded.sessionFetch });
    assert.ok((await reloadedApi.getCurrentOperator()).ok);

    const before = reloaded.state.get();
    assert.equal(await reloaded.refresh(), true);
    const after = reloaded.state.get();
    assert.ok(before.status === 'signedIn' && after.status === 'signedIn');
    assert.ok(after.session.accessTokenExpiresAt >= before.session.accessTokenExpiresAt);
    assert.ok((await reloadedApi.getCurrentOperator()).ok, 'the renewed token works');

    await reloaded.signOut();
    assert.deepEqual(reloaded.state.get(), { status: 'signedOut', reason: 'SIGNED_OUT' });
    // The first instance still holds the revoked tokens in memory: its next call is refused and its renewal fails,
    // which ends its session instead of throwing.
    const refused = await first.api.getCurrentOperator();
    assert.equal(refused.ok, false);
    assert.equal(first.session.state.get().status, 'signedOut');
    first.session.destroy();
    reloaded.destroy();
  });

  test('a stored record that is not an operator session is ignored', async () => {
    const storage = memoryStorage();
    await storage.set(
      'onboard:dashboard',
      JSON.stringify({
        v: 1,
        jkt: 'x',
        accessToken: 'a',
        refreshToken: 'r',
        sessionId: 's',
        accessExpiresAt: 1,
        refreshExpiresAt: Date.now() + 60_000,
        user: {},
      }),
    );
    const session = createOperatorSession({ dashboardUrl: svc.url, storage, keyStore: memoryKeyStore() });
    await session.ready();
    assert.equal(session.state.get().status, 'signedOut');
    session.destroy();
  });
});
