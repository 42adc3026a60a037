// revokeApiKey (DELETE /api/v1/apps/{appId}/api-keys/{keyId}): revoke an API key. Shared set-up: setup.ts.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { seedCredentials, type SeededCredentials } from '../../support/credentials';
import { clearKeys, create, gate, list, passesGate, revoke, rotate, svc, testNoKeyInClear, useService } from './setup';

describe('revokeApiKey', () => {
  useService();

  test('revokes at once (the gate answers 401 API_KEY_NOT_FOUND); revoking again answers the key with its first revokedAt', async () => {
    const k = (await create({ type: 'secret', label: 'to revoke' })).body.content;
    assert.ok(passesGate(await gate(k.key)));
    const first = await revoke(k.keyId);
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.code, 'API_KEY_REVOKED');
    assert.equal(first.body.content.status, 'revoked');
    assert.equal(first.body.content.label, 'to revoke');
    assert.ok(first.body.content.revokedAt);
    assert.deepEqual(await gate(k.key), { status: 401, code: 'API_KEY_NOT_FOUND' });
    const second = await revoke(k.keyId);
    assert.equal(second.status, 200, second.text);
    assert.deepEqual(second.body.content, first.body.content);
    assert.equal((await list()).find((l) => l.keyId === k.keyId).status, 'revoked');
  });

  test('revoking a key in its rotation overlap ends it at once; its successor keeps working', async () => {
    const old = (await create({ type: 'secret' })).body.content;
    const successor = (await rotate(old.keyId, { overlapSeconds: 3600 })).body.content.key;
    assert.ok(passesGate(await gate(old.key)));
    const res = await revoke(old.keyId);
    assert.equal(res.body.content.status, 'revoked');
    assert.deepEqual(await gate(old.key), { status: 401, code: 'API_KEY_NOT_FOUND' });
    assert.ok(passesGate(await gate(successor.key)));
  });

  describe('authorization and unknown ids', () => {
    let other: SeededCredentials;
    before(async () => {
      other = await seedCredentials(svc.deps.db, { name: "Another operator's app" });
      clearKeys.push(other.secretKey, other.publishableKey);
    });

    test('an unknown key id: 404 API_KEY_ID_NOT_FOUND on rotate and revoke', async () => {
      const unknown = 'key_000000000000000000000000';
      for (const res of [await rotate(unknown), await revoke(unknown)]) {
        assert.equal(res.status, 404, res.text);
        assert.equal(res.body.code, 'API_KEY_ID_NOT_FOUND');
      }
    });

    test("a key id of another app through this app's path: the same 404, and the other app's key is untouched", async () => {
      for (const res of [await rotate(other.secretKeyId), await revoke(other.secretKeyId)]) {
        assert.equal(res.status, 404, res.text);
        assert.equal(res.body.code, 'API_KEY_ID_NOT_FOUND');
      }
      const row = await svc.deps.db('api_keys').where({ id: other.secretKeyId }).first();
      assert.deepEqual([row.revoked_at, row.expires_at, row.replaced_by_key_id], [null, null, null]);
      assert.ok(passesGate(await gate(other.secretKey)));
    });
  });

  testNoKeyInClear();
});
