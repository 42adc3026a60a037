// rotateApiKey (POST /api/v1/apps/{appId}/api-keys/{keyId}/rotate): rotate an API key. Shared set-up: setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setApiKeyExpiry } from '../../../src/domain/apiKeys/apiKeys';
import { create, creds, gate, list, passesGate, revoke, rotate, svc, testNoKeyInClear, useService } from './setup';

describe('rotateApiKey', () => {
  useService();

  test('overlap 0 (the default): the new key works at once, the old one is expired now (API_KEY_EXPIRED)', async () => {
    const old = (await create({ type: 'secret', label: 'Backend' })).body.content;
    const started = Date.now();
    const res = await rotate(old.keyId);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.code, 'API_KEY_ROTATED');
    const { key, previousKey } = res.body.content;
    assert.deepEqual(
      [key.type, key.network, key.label, key.status, key.expiresAt, key.revokedAt],
      ['secret', 'testnet', 'Backend', 'active', null, null],
    );
    assert.notEqual(key.keyId, old.keyId);
    assert.notEqual(key.key, old.key);
    assert.equal(previousKey.keyId, old.keyId);
    assert.equal(previousKey.status, 'expired');
    assert.ok(Math.abs(Date.parse(previousKey.expiresAt) - started) < 5000, 'ends now');
    assert.deepEqual(await gate(old.key), { status: 401, code: 'API_KEY_EXPIRED' });
    assert.ok(passesGate(await gate(key.key)));
    assert.equal((await list()).find((k) => k.keyId === old.keyId).status, 'expired');
  });

  test('overlap: both keys work and the old one is rotating until now + overlapSeconds', async () => {
    const old = (await create({ type: 'publishable', label: 'Web' })).body.content;
    const started = Date.now();
    const res = await rotate(old.keyId, { overlapSeconds: 3600 });
    assert.equal(res.status, 200, res.text);
    const { key, previousKey } = res.body.content;
    assert.equal(key.type, 'publishable');
    assert.equal(previousKey.status, 'rotating');
    const end = Date.parse(previousKey.expiresAt);
    assert.ok(end >= started + 3_600_000 - 1000 && end <= Date.now() + 3_600_000 + 1000, previousKey.expiresAt);
    assert.ok(passesGate(await gate(old.key)), 'the old key still works during the overlap');
    assert.ok(passesGate(await gate(key.key)));
    const listed = (await list()).find((k) => k.keyId === old.keyId);
    assert.deepEqual([listed.status, listed.expiresAt], ['rotating', previousKey.expiresAt]);
  });

  test("the old key's end is never moved later than an expiry it already had", async () => {
    const expiresAt = new Date(Date.now() + 60_000).toISOString();
    const old = (await create({ type: 'secret', expiresAt })).body.content;
    const res = await rotate(old.keyId, { overlapSeconds: 3600 });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.content.previousKey, { keyId: old.keyId, expiresAt, status: 'rotating' });
  });

  test('an expired key can be rotated: its end stays in the past and the new key works', async () => {
    const old = (await create({ type: 'secret' })).body.content;
    const expired = new Date(Date.now() - 60_000);
    await setApiKeyExpiry(svc.deps.db, old.keyId, expired);
    const res = await rotate(old.keyId, { overlapSeconds: 600 });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.content.previousKey, {
      keyId: old.keyId,
      expiresAt: expired.toISOString(),
      status: 'expired',
    });
    assert.ok(passesGate(await gate(res.body.content.key.key)));
  });

  test('a revoked key: 409 API_KEY_ALREADY_REVOKED, nothing minted', async () => {
    const old = (await create({ type: 'secret' })).body.content;
    await revoke(old.keyId);
    const count = (await list()).length;
    const res = await rotate(old.keyId);
    assert.equal(res.status, 409, res.text);
    assert.equal(res.body.code, 'API_KEY_ALREADY_REVOKED');
    assert.equal((await list()).length, count);
  });

  test('an already rotated key: 409 API_KEY_ALREADY_ROTATED naming its successor, which can itself be rotated', async () => {
    const old = (await create({ type: 'secret' })).body.content;
    const first = await rotate(old.keyId, { overlapSeconds: 600 });
    const successor = first.body.content.key.keyId;
    const again = await rotate(old.keyId);
    assert.equal(again.status, 409, again.text);
    assert.equal(again.body.code, 'API_KEY_ALREADY_ROTATED');
    assert.deepEqual(again.body.details, { replacedByKeyId: successor });
    // The refused rotation changed nothing: the old key keeps its overlap.
    assert.equal((await list()).find((k) => k.keyId === old.keyId).expiresAt, first.body.content.previousKey.expiresAt);
    const next = await rotate(successor);
    assert.equal(next.status, 200, next.text);
    assert.equal(next.body.content.previousKey.keyId, successor);
  });

  test('concurrent rotations of one key on PostgreSQL: exactly one succeeds, the others see it (409), one successor', async () => {
    const old = (await create({ type: 'secret', label: 'raced' })).body.content;
    const before = await svc.deps.db('api_keys').where({ app_id: creds.app.id }).count({ n: '*' });
    const answers = await Promise.all(Array.from({ length: 8 }, () => rotate(old.keyId, { overlapSeconds: 60 })));
    const ok = answers.filter((a) => a.status === 200);
    assert.equal(ok.length, 1, answers.map((a) => a.status).join(','));
    for (const a of answers.filter((x) => x.status !== 200)) {
      assert.equal(a.status, 409);
      assert.equal(a.body.code, 'API_KEY_ALREADY_ROTATED');
      assert.equal(a.body.details.replacedByKeyId, ok[0]!.body.content.key.keyId);
    }
    const after = await svc.deps.db('api_keys').where({ app_id: creds.app.id }).count({ n: '*' });
    assert.equal(Number(after[0]!.n), Number(before[0]!.n) + 1, 'exactly one key minted');
    const row = await svc.deps.db('api_keys').where({ id: old.keyId }).first();
    assert.equal(row.replaced_by_key_id, ok[0]!.body.content.key.keyId);
  });

  describe('request validation (the contract, before any change)', () => {
    test('rotateApiKey: overlapSeconds out of range or not an integer, a malformed key id: 400, the key untouched', async () => {
      const k = (await create({ type: 'secret' })).body.content;
      for (const overlapSeconds of [604801, -1, 1.5, '60']) {
        const res = await rotate(k.keyId, { overlapSeconds });
        assert.equal(res.status, 400, `${overlapSeconds}: ${res.text}`);
        assert.ok(res.body.details.fieldErrors.overlapSeconds, res.text);
      }
      const malformed = await rotate('not-a-key-id');
      assert.equal(malformed.status, 400, malformed.text);
      assert.ok(malformed.body.details.fieldErrors['path.keyId'], malformed.text);
      const row = await svc.deps.db('api_keys').where({ id: k.keyId }).first();
      assert.deepEqual([row.expires_at, row.replaced_by_key_id], [null, null]);
      assert.equal((await rotate(k.keyId, { overlapSeconds: 604800 })).status, 200, 'the maximum is allowed');
    });
  });

  testNoKeyInClear();
});
