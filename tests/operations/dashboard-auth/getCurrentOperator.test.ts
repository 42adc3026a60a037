// getCurrentOperator (GET /api/v1/me): the signed-in operator and their apps. Shared set-up: dpop.setup.ts.
import { exportJWK } from 'jose';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createSessionService } from '../../../src/domain/sessions/sessions';
import { call, rawCall } from '../../support/http';
import { createDpopKey, dpopProof } from '../../support/dpop';
import { signInOperator } from '../../support/operators';
import { me, svc, useService } from './dpop.setup';

describe('getCurrentOperator', () => {
  useService();

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
    ['a jwk that is not an object', { header: { jwk: 'not-a-key' } }],
    ['a crit extension (RFC 7515 section 4.1.11)', { header: { crit: ['b64'], b64: true } }],
    ['an exp in the past', { claims: { exp: Math.floor(Date.now() / 1000) - 10 } }],
    ['an nbf in the future', { claims: { nbf: Math.floor(Date.now() / 1000) + 60 } }],
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

  test('a proof whose jwk carries the private key is refused (SDK_AUTH_DPOP_INVALID), also once its public key was seen', async () => {
    const op = await signInOperator(svc);
    const nonce = (await op.rawCall('GET', '/api/v1/me')).headers.get('dpop-nonce')!;
    const target = { method: 'GET', url: `${svc.url}/api/v1/me`, accessToken: op.accessToken, nonce };
    assert.equal((await me(op, await dpopProof(op.key, target))).status, 200, 'the public key seen (and kept)');
    const privateJwk = await exportJWK(op.key.privateKey);
    const res = await me(op, await dpopProof(op.key, { ...target, header: { jwk: privateJwk } }));
    assert.equal(res.status, 401);
    assert.equal(res.body.code, 'SDK_AUTH_DPOP_INVALID');
  });

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
