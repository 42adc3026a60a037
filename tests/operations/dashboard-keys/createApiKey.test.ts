// createApiKey (POST /api/v1/apps/{appId}/api-keys): generate an API key. Shared set-up: setup.ts.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { runAdminCommand, UsageError } from '../../../src/cli/adminCommands';
import { setApiKeyExpiry } from '../../../src/domain/apiKeys/apiKeys';
import { addMember } from '../../../src/domain/apps/members';
import { createApp } from '../../../src/domain/apps/store';
import { withTx } from '../../../src/infra/db/database';
import { seedCredentials, type SeededCredentials } from '../../support/credentials';
import { call } from '../../support/http';
import { signInOperator, testEmail } from '../../support/operators';
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

describe('createApiKey', () => {
  useService();

  test("201 with the full key, shown once: the network is the app's, the prefix its first characters, status active", async () => {
    for (const type of ['secret', 'publishable'] as const) {
      const res = await create({ type, label: `new ${type}` });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.code, 'API_KEY_CREATED');
      const k = res.body.content;
      assert.equal(k.type, type);
      assert.equal(k.network, 'testnet');
      assert.match(k.key, new RegExp(`^${type === 'secret' ? 'sec' : 'pub'}_testnet_[0-9A-Za-z]{40}$`));
      assert.equal(k.prefix, k.key.slice(0, 'sec_testnet_'.length + 4));
      assert.equal(k.label, `new ${type}`);
      assert.deepEqual([k.status, k.expiresAt, k.revokedAt, k.lastUsedAt], ['active', null, null, null]);
      assert.ok(passesGate(await gate(k.key)), 'the new key passes the gate');
      const listed = (await list()).find((l) => l.keyId === k.keyId);
      assert.ok(listed, 'listed');
      assert.equal(listed.key, undefined, 'the list never shows the key');
    }
  });

  test('a mainnet app gets mainnet keys (the network is not chosen)', async () => {
    const app = await withTx(svc.deps.db, (trx) =>
      createApp(trx, { name: 'Mainnet app', network: 'mainnet', ownerOperatorId: creds.operator.id }),
    );
    const res = await create({ type: 'secret' }, owner, app.id);
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.content.network, 'mainnet');
    assert.match(res.body.content.key, /^sec_mainnet_/);
    assert.equal(res.body.content.label, undefined);
  });

  test("the admin CLI follows the same rule: create-key with another network than the app's is a usage error", async () => {
    const argv = ['create-key', '--app', creds.app.id, '--type', 'secret', '--network', 'mainnet'];
    await assert.rejects(
      runAdminCommand(svc.deps, argv, () => {}),
      UsageError,
    );
    assert.equal(await svc.deps.db('api_keys').where({ app_id: creds.app.id, network: 'mainnet' }).first(), undefined);
  });

  test('expiresAt in the past or now: 400 VALIDATION_ERROR on expiresAt, nothing stored; in the future: stored and enforced', async () => {
    const before = (await list()).length;
    for (const expiresAt of [new Date(Date.now() - 60_000).toISOString(), new Date(Date.now() - 1).toISOString()]) {
      const res = await create({ type: 'secret', expiresAt });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.code, 'VALIDATION_ERROR');
      assert.deepEqual(res.body.details.fieldErrors, { expiresAt: ['must be in the future'] });
    }
    assert.equal((await list()).length, before);
    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    const res = await create({ type: 'secret', expiresAt });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.content.expiresAt, expiresAt);
    assert.equal(res.body.content.status, 'active');
    // The expiry is the gate's: once reached, the key answers API_KEY_EXPIRED and is listed as expired.
    await setApiKeyExpiry(svc.deps.db, res.body.content.keyId, new Date(Date.now() - 1000));
    assert.deepEqual(await gate(res.body.content.key), { status: 401, code: 'API_KEY_EXPIRED' });
    assert.equal((await list()).find((k) => k.keyId === res.body.content.keyId).status, 'expired');
  });

  describe('request validation (the contract, before any change)', () => {
    test('createApiKey: type missing or unknown, a network chosen, a label too long: 400 VALIDATION_ERROR on the field', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{}, 'type'],
        [{ type: 'admin' }, 'type'],
        [{ type: 'secret', network: 'mainnet' }, 'network'],
        [{ type: 'secret', label: 'x'.repeat(101) }, 'label'],
        [{ type: 'secret', expiresAt: 'tomorrow' }, 'expiresAt'],
      ];
      for (const [body, field] of cases) {
        const res = await create(body);
        assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
        assert.equal(res.body.code, 'VALIDATION_ERROR');
        assert.ok(res.body.details.fieldErrors[field], `${field} in ${res.text}`);
      }
    });

    test('without a session: 401, nothing minted', async () => {
      const before = (await list()).length;
      const res = await call(svc.url, 'createApiKey', 'POST', keysPath(creds.app.id), { body: { type: 'secret' } });
      assert.equal(res.status, 401, res.text);
      assert.equal((await list()).length, before);
    });
  });

  describe('Idempotency-Key', () => {
    test('a retried create replays the same key instead of minting a second one', async () => {
      const before = (await list()).length;
      const headers = { 'idempotency-key': `create-${Date.now()}` };
      const first = await owner.call('createApiKey', 'POST', keysPath(creds.app.id), {
        headers,
        body: { type: 'secret', label: 'retried' },
      });
      assert.equal(first.status, 201, first.text);
      clearKeys.push(first.body.content.key);
      const retry = await owner.call('createApiKey', 'POST', keysPath(creds.app.id), {
        headers,
        body: { type: 'secret', label: 'retried' },
      });
      assert.equal(retry.status, 201, retry.text);
      assert.equal(retry.headers.get('idempotent-replayed'), 'true');
      assert.equal(retry.body.content.keyId, first.body.content.keyId);
      assert.equal((await list()).length, before + 1);
    });
  });

  describe('authorization and unknown ids', () => {
    let other: SeededCredentials;
    before(async () => {
      other = await seedCredentials(svc.deps.db, { name: "Another operator's app" });
      clearKeys.push(other.secretKey, other.publishableKey);
    });

    test('every member role (admin, developer) may manage the keys', async () => {
      for (const role of ['admin', 'developer'] as const) {
        const member = await addMember(svc.deps.db, {
          appId: creds.app.id,
          email: testEmail(role),
          role,
          at: new Date(),
        });
        const client = await signInOperator(svc, member.email!);
        assert.equal(client.operatorId, member.operatorId);
        const made = await create({ type: 'secret', label: role }, client);
        assert.equal(made.status, 201, made.text);
        assert.ok((await list(client)).some((k) => k.keyId === made.body.content.keyId));
        assert.equal((await rotate(made.body.content.keyId, { overlapSeconds: 0 }, client)).status, 200);
        assert.equal((await revoke(made.body.content.keyId, client)).status, 200);
      }
    });
  });

  testNoKeyInClear();
});
