// Operator sign-in and sessions on real PostgreSQL: email codes through the dev outbox, DPoP-bound access tokens
// (nonces, replay, key binding, htm/htu/iat/ath), refresh rotation with reuse detection, sign-out.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createSessionService } from '../../src/domain/sessions/sessions';
import { call, rawCall } from '../support/http';
import { createDpopKey, dpopProof } from '../support/dpop';
import { latestCode, outboxFor, sendWithProof, signInOperator, testEmail } from '../support/operators';
import { startTestService, type TestService } from '../support/service';

describe('operator sign-in by email code', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(async () => {
    await svc?.stop();
  });

  test('sign-in creates the operator and a DPoP-bound session; /me answers with it', async () => {
    const op = await signInOperator(svc);
    assert.match(op.operatorId, /^op_/);
    const me = await op.call('getCurrentOperator', 'GET', '/api/v1/me');
    assert.equal(me.status, 200);
    assert.equal(me.body.content.operator.operatorId, op.operatorId);
    assert.equal(me.body.content.operator.email, op.email);
    assert.deepEqual(me.body.content.apps, []);
    assert.ok(me.headers.get('dpop-nonce'), 'answers of DPoP operations carry a nonce');
  });

  test('a second sign-in with the same address reaches the same operator', async () => {
    const email = testEmail();
    const a = await signInOperator(svc, email);
    await svc.deps
      .db('email_codes')
      .where({ email })
      .update({ sent_at: new Date(Date.now() - 61_000) });
    const b = await signInOperator(svc, email.toUpperCase());
    assert.equal(a.operatorId, b.operatorId);
    assert.notEqual(a.sessionId, b.sessionId);
  });

  test('start answers the same for a known and an unknown address (no enumeration)', async () => {
    const known = await signInOperator(svc);
    await svc.deps
      .db('email_codes')
      .where({ email: known.email })
      .update({ sent_at: new Date(Date.now() - 61_000) });
    const a = await call(svc.url, 'startOperatorEmailSignIn', 'POST', '/api/v1/auth/email/start', {
      body: { email: known.email },
    });
    const b = await call(svc.url, 'startOperatorEmailSignIn', 'POST', '/api/v1/auth/email/start', {
      body: { email: testEmail('nobody') },
    });
    assert.equal(a.status, 200);
    assert.deepEqual(a.body, b.body);
  });

  test('a second code within 60 s is refused with Retry-After', async () => {
    const email = testEmail();
    assert.equal(
      (await call(svc.url, 'startOperatorEmailSignIn', 'POST', '/api/v1/auth/email/start', { body: { email } })).status,
      200,
    );
    const again = await call(svc.url, 'startOperatorEmailSignIn', 'POST', '/api/v1/auth/email/start', {
      body: { email },
    });
    assert.equal(again.status, 429);
    assert.equal(again.body.code, 'RATE_LIMITED');
    assert.ok(Number(again.headers.get('retry-after')) > 0);
    assert.equal(outboxFor(svc, email).length, 1, 'one email only');
  });

  test('brute force stops at 5 wrong attempts: the right code is refused afterwards', async () => {
    const email = testEmail();
    await call(svc.url, 'startOperatorEmailSignIn', 'POST', '/api/v1/auth/email/start', { body: { email } });
    const code = latestCode(svc, email);
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    const key = await createDpopKey();
    const state = {};
    for (let i = 0; i < 5; i++) {
      const res = await sendWithProof(svc.url, key, state, 'POST', '/api/v1/auth/email/verify', {
        body: { email, code: wrong },
      });
      assert.equal(res.status, 401);
      assert.equal(res.body.code, 'EMAIL_CODE_INVALID');
    }
    const right = await sendWithProof(svc.url, key, state, 'POST', '/api/v1/auth/email/verify', {
      body: { email, code },
    });
    assert.equal(right.status, 401);
    assert.equal(right.body.code, 'EMAIL_CODE_INVALID');
  });

  test('a code works once', async () => {
    const email = testEmail();
    await signInOperator(svc, email);
    const key = await createDpopKey();
    const res = await sendWithProof(svc.url, key, {}, 'POST', '/api/v1/auth/email/verify', {
      body: { email, code: latestCode(svc, email) },
    });
    assert.equal(res.status, 401);
    assert.equal(res.body.code, 'EMAIL_CODE_INVALID');
  });

  test('verify without a DPoP proof: 401 SDK_AUTH_DPOP_REQUIRED', async () => {
    const res = await call(svc.url, 'verifyOperatorEmailSignIn', 'POST', '/api/v1/auth/email/verify', {
      body: { email: testEmail(), code: '123456' },
    });
    assert.equal(res.status, 401);
    assert.equal(res.body.code, 'SDK_AUTH_DPOP_REQUIRED');
  });

  test('codes, refresh tokens and access tokens are nowhere in the database in clear', async () => {
    const op = await signInOperator(svc);
    const code = latestCode(svc, op.email);
    const dump = JSON.stringify(
      await Promise.all(['email_codes', 'sessions', 'refresh_tokens', 'operators'].map((t) => svc.deps.db(t).select())),
    );
    for (const secret of [op.refreshToken, op.accessToken]) assert.ok(!dump.includes(secret), 'token stored in clear');
    assert.ok(!dump.includes(`"${code}"`), 'code stored in clear');
  });
});

describe('DPoP on Dashboard requests', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(async () => {
    await svc?.stop();
  });

  async function me(op: { accessToken: string }, proof: string) {
    return call(svc.url, 'getCurrentOperator', 'GET', '/api/v1/me', {
      headers: { authorization: `DPoP ${op.accessToken}`, dpop: proof },
    });
  }

  test('a proof without the server nonce: 401 SDK_AUTH_DPOP_USE_NONCE with DPoP-Nonce and WWW-Authenticate', async () => {
    const op = await signInOperator(svc);
    const res = await me(
      op,
      await dpopProof(op.key, { method: 'GET', url: `${svc.url}/api/v1/me`, accessToken: op.accessToken }),
    );
    assert.equal(res.status, 401);
    assert.equal(res.body.code, 'SDK_AUTH_DPOP_USE_NONCE');
    assert.ok(res.headers.get('dpop-nonce'));
    assert.match(res.headers.get('www-authenticate') ?? '', /use_dpop_nonce/);
  });

  test('a replayed proof is refused', async () => {
    const op = await signInOperator(svc);
    const nonce = (await op.rawCall('GET', '/api/v1/me')).headers.get('dpop-nonce')!;
    const proof = await dpopProof(op.key, {
      method: 'GET',
      url: `${svc.url}/api/v1/me`,
      accessToken: op.accessToken,
      nonce,
    });
    assert.equal((await me(op, proof)).status, 200);
    const replay = await me(op, proof);
    assert.equal(replay.status, 401);
    assert.equal(replay.body.code, 'SDK_AUTH_DPOP_INVALID');
  });

  test('a proof by another key than the token is bound to is refused', async () => {
    const op = await signInOperator(svc);
    const nonce = (await op.rawCall('GET', '/api/v1/me')).headers.get('dpop-nonce')!;
    const other = await createDpopKey();
    const res = await me(
      op,
      await dpopProof(other, { method: 'GET', url: `${svc.url}/api/v1/me`, accessToken: op.accessToken, nonce }),
    );
    assert.equal(res.status, 401);
    assert.equal(res.body.code, 'SDK_AUTH_DPOP_INVALID');
  });

  for (const [name, tweak] of [
    ['another method (htm)', { claims: { htm: 'POST' } }],
    ['another URL (htu)', { claims: { htu: 'http://elsewhere.example/api/v1/me' } }],
    ['an old iat', { iat: Math.floor(Date.now() / 1000) - 301 }],
    ['an iat in the future', { iat: Math.floor(Date.now() / 1000) + 60 }],
    ['another access token (ath)', { claims: { ath: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' } }],
    ['a wrong typ', { header: { typ: 'JWT' } }],
  ] as const) {
    test(`a proof with ${name} is refused (SDK_AUTH_DPOP_INVALID)`, async () => {
      const op = await signInOperator(svc);
      const nonce = (await op.rawCall('GET', '/api/v1/me')).headers.get('dpop-nonce')!;
      const res = await me(
        op,
        await dpopProof(op.key, {
          method: 'GET',
          url: `${svc.url}/api/v1/me`,
          accessToken: op.accessToken,
          nonce,
          ...(tweak as object),
        }),
      );
      assert.equal(res.status, 401);
      assert.equal(res.body.code, 'SDK_AUTH_DPOP_INVALID');
    });
  }

  test('an expired access token: 401 SDK_AUTH_TOKEN_EXPIRED; a forged one: SDK_AUTH_INVALID_TOKEN; a Bearer one: SDK_AUTH_INVALID_TOKEN', async () => {
    const op = await signInOperator(svc);
    const sessions = createSessionService(svc.deps.secrets, { refreshReuseGraceSeconds: 10 });
    const expired = await sessions.tokens.sign(
      { audience: 'operator', subjectId: op.operatorId, sessionId: op.sessionId, jkt: op.key.jkt },
      new Date(Date.now() - 3_600_000),
      60,
    );
    const nonce = (await op.rawCall('GET', '/api/v1/me')).headers.get('dpop-nonce')!;
    const proofFor = (token: string) =>
      dpopProof(op.key, { method: 'GET', url: `${svc.url}/api/v1/me`, accessToken: token, nonce });
    const res = await me({ accessToken: expired }, await proofFor(expired));
    assert.equal(res.status, 401);
    assert.equal(res.body.code, 'SDK_AUTH_TOKEN_EXPIRED');
    const [h, p] = op.accessToken.split('.');
    const forged = `${h}.${p}.${'A'.repeat(86)}`;
    const res2 = await me({ accessToken: forged }, await proofFor(forged));
    assert.equal(res2.body.code, 'SDK_AUTH_INVALID_TOKEN');
    const bearer = await call(svc.url, 'getCurrentOperator', 'GET', '/api/v1/me', {
      headers: { authorization: `Bearer ${op.accessToken}`, dpop: await proofFor(op.accessToken) },
    });
    assert.equal(bearer.body.code, 'SDK_AUTH_INVALID_TOKEN');
  });

  test('no Authorization header: 401 INVALID_CREDENTIALS', async () => {
    const res = await rawCall(svc.url, 'GET', '/api/v1/me');
    assert.equal(res.status, 401);
    assert.equal((res.body as { code: string }).code, 'INVALID_CREDENTIALS');
  });
});

describe('refresh rotation and sign-out', () => {
  let svc: TestService;
  let noGrace: TestService;
  before(async () => {
    svc = await startTestService();
    noGrace = await startTestService({ REFRESH_REUSE_GRACE_SECONDS: '0' });
  });
  after(async () => {
    await svc?.stop();
    await noGrace?.stop();
  });

  const refresh = (s: TestService, op: { key: any }, refreshToken: string, state: { nonce?: string } = {}) =>
    sendWithProof(s.url, op.key, state, 'POST', '/api/v1/auth/refresh', { body: { refreshToken } });

  test('refresh returns new tokens; the new access token works', async () => {
    const op = await signInOperator(svc);
    const res = await refresh(svc, op, op.refreshToken);
    assert.equal(res.status, 200, res.text);
    assert.notEqual(res.body.content.refreshToken, op.refreshToken);
    assert.equal(res.body.content.sessionId, op.sessionId);
    op.accessToken = res.body.content.accessToken;
    assert.equal((await op.call('getCurrentOperator', 'GET', '/api/v1/me')).status, 200);
  });

  test('50 parallel refreshes with one token mint exactly one successor', async () => {
    const op = await signInOperator(svc);
    const state = { nonce: (await op.rawCall('GET', '/api/v1/me')).headers.get('dpop-nonce')! };
    const results = await Promise.all(
      Array.from({ length: 50 }, () => refresh(svc, op, op.refreshToken, { ...state })),
    );
    const ok = results.filter((r) => r.status === 200);
    for (const r of results.filter((r) => r.status !== 200)) assert.fail(`unexpected ${r.status} ${r.text}`);
    assert.equal(new Set(ok.map((r) => r.body.content.refreshToken)).size, 1, 'one successor refresh token');
    const rows = await svc.deps.db('refresh_tokens').where({ session_id: op.sessionId });
    assert.equal(rows.length, 2, 'the original and one successor');
    assert.equal(rows.filter((r) => r.rotated_at === null).length, 1, 'one live token');
  });

  test('reuse of a rotated token after the grace revokes the whole family', async () => {
    const op = await signInOperator(noGrace);
    const first = await refresh(noGrace, op, op.refreshToken);
    assert.equal(first.status, 200);
    await new Promise((r) => setTimeout(r, 20));
    const reuse = await refresh(noGrace, op, op.refreshToken);
    assert.equal(reuse.status, 401);
    assert.equal(reuse.body.code, 'SDK_REFRESH_TOKEN_REUSED');
    // the successor and the access tokens of the family are dead too
    const successor = await refresh(noGrace, op, first.body.content.refreshToken);
    assert.equal(successor.body.code, 'SDK_REFRESH_TOKEN_INVALID');
    op.accessToken = first.body.content.accessToken;
    const me = await op.rawCall('GET', '/api/v1/me');
    assert.equal(me.status, 401);
    assert.equal(me.body.code, 'SDK_AUTH_INVALID_TOKEN');
  });

  test('unknown refresh token: SDK_REFRESH_TOKEN_INVALID; expired: SDK_REFRESH_TOKEN_EXPIRED; another key: SDK_AUTH_DPOP_INVALID', async () => {
    const op = await signInOperator(svc);
    assert.equal((await refresh(svc, op, 'x'.repeat(43))).body.code, 'SDK_REFRESH_TOKEN_INVALID');
    const other = { key: await createDpopKey() };
    assert.equal((await refresh(svc, other, op.refreshToken)).body.code, 'SDK_AUTH_DPOP_INVALID');
    await svc.deps
      .db('refresh_tokens')
      .where({ session_id: op.sessionId })
      .update({ expires_at: new Date(Date.now() - 1000) });
    assert.equal((await refresh(svc, op, op.refreshToken)).body.code, 'SDK_REFRESH_TOKEN_EXPIRED');
  });

  test('sign-out ends the session at once (access and refresh tokens); everywhere ends every session', async () => {
    const email = testEmail();
    const a = await signInOperator(svc, email);
    const out = await a.call('signOutOperator', 'POST', '/api/v1/auth/logout', { body: {} });
    assert.equal(out.status, 200);
    assert.deepEqual(out.body.content, { signedOut: true, revokedSessions: 1 });
    assert.equal((await a.rawCall('GET', '/api/v1/me')).body.code, 'SDK_AUTH_INVALID_TOKEN');
    assert.equal((await refresh(svc, a, a.refreshToken)).body.code, 'SDK_REFRESH_TOKEN_INVALID');

    await svc.deps
      .db('email_codes')
      .where({ email })
      .update({ sent_at: new Date(Date.now() - 61_000) });
    const b = await signInOperator(svc, email);
    await svc.deps
      .db('email_codes')
      .where({ email })
      .update({ sent_at: new Date(Date.now() - 61_000) });
    const c = await signInOperator(svc, email);
    const all = await b.call('signOutOperator', 'POST', '/api/v1/auth/logout', { body: { everywhere: true } });
    assert.equal(all.body.content.revokedSessions, 2);
    assert.equal((await c.rawCall('GET', '/api/v1/me')).status, 401);
  });
});
