// listApiKeys (GET /api/v1/apps/{appId}/api-keys): list an app's API keys. Shared set-up: setup.ts.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setApiKeyExpiry } from '../../../src/domain/apiKeys/apiKeys';
import { archiveApp, createApp } from '../../../src/domain/apps/store';
import { withTx } from '../../../src/infra/db/database';
import { seedCredentials, type SeededCredentials } from '../../support/credentials';
import { signInOperator } from '../../support/operators';
import {
  clearKeys,
  create,
  creds,
  gate,
  keysPath,
  list,
  owner,
  passesGate,
  revoke,
  rotate,
  svc,
  testNoKeyInClear,
  useService,
} from './setup';

describe('listApiKeys', () => {
  useService();

  test('newest first, by prefix only, with every status derived from the dates', async () => {
    const app = await withTx(svc.deps.db, (trx) =>
      createApp(trx, { name: 'Listed app', network: 'testnet', ownerOperatorId: creds.operator.id }),
    );
    const ids: Record<string, string> = {};
    for (const name of ['revoked', 'expired', 'rotated', 'active']) {
      const res = await create({ type: 'secret', label: name }, owner, app.id);
      ids[name] = res.body.content.keyId;
    }
    await revoke(ids.revoked!, owner, app.id);
    await setApiKeyExpiry(svc.deps.db, ids.expired!, new Date(Date.now() - 1000));
    const rotated = await rotate(ids.rotated!, { overlapSeconds: 600 }, owner, app.id);
    const keys = await list(owner, app.id);
    const successor = rotated.body.content.key.keyId;
    assert.equal(keys.length, 5);
    assert.equal(keys[0].keyId, successor, 'the newest key first');
    const statusOf = Object.fromEntries(keys.map((k) => [k.keyId, k.status]));
    assert.deepEqual(statusOf, {
      [successor]: 'active',
      [ids.active!]: 'active',
      [ids.rotated!]: 'rotating',
      [ids.expired!]: 'expired',
      [ids.revoked!]: 'revoked',
    });
    const times = keys.map((k) => Date.parse(k.createdAt));
    assert.deepEqual(
      times,
      [...times].sort((a, b) => b - a),
      'newest first',
    );
    for (const k of keys) {
      assert.match(k.prefix, /^sec_testnet_[0-9A-Za-z]{4}$/);
      assert.equal(k.key, undefined);
    }
  });

  describe('authorization and unknown ids', () => {
    let other: SeededCredentials;
    before(async () => {
      other = await seedCredentials(svc.deps.db, { name: "Another operator's app" });
      clearKeys.push(other.secretKey, other.publishableKey);
    });

    test("another operator's app: 404 APPLICATION_NOT_FOUND on all four operations, nothing changed", async () => {
      const answers = [
        await create({ type: 'secret' }, owner, other.app.id),
        await owner.call('listApiKeys', 'GET', keysPath(other.app.id)),
        await rotate(other.secretKeyId, {}, owner, other.app.id),
        await revoke(other.secretKeyId, owner, other.app.id),
      ];
      for (const res of answers) {
        assert.equal(res.status, 404, res.text);
        assert.equal(res.body.code, 'APPLICATION_NOT_FOUND');
      }
      assert.equal(Number((await svc.deps.db('api_keys').where({ app_id: other.app.id }).count({ n: '*' }))[0]!.n), 2);
      assert.ok(passesGate(await gate(other.secretKey)));
    });

    test('an archived app: 404 APPLICATION_NOT_FOUND', async () => {
      const archived = await seedCredentials(svc.deps.db, { name: 'Archived' });
      clearKeys.push(archived.secretKey, archived.publishableKey);
      await archiveApp(svc.deps.db, archived.app.id);
      const client = await signInOperator(svc, archived.operator.email!);
      for (const res of [
        await create({ type: 'secret' }, client, archived.app.id),
        await client.call('listApiKeys', 'GET', keysPath(archived.app.id)),
      ]) {
        assert.equal(res.status, 404, res.text);
        assert.equal(res.body.code, 'APPLICATION_NOT_FOUND');
      }
    });
  });

  testNoKeyInClear();
});
