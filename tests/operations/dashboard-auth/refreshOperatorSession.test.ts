// refreshOperatorSession (POST /api/v1/auth/refresh): refresh an operator session. Shared set-up: refresh.setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createDpopKey } from '../../support/dpop';
import { signInOperator } from '../../support/operators';
import { noGrace, refresh, svc, useService } from './refresh.setup';

describe('refreshOperatorSession', () => {
  useService();

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
});
