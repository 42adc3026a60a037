// Dashboard API keys on real PostgreSQL: generate (shown once, network of the app), list (prefix only, derived
// statuses), rotate (overlap, never past an earlier expiry, at most one successor even under concurrent calls) and
// revoke (idempotent, the gate refuses the key at once); object-level authorization; no key in clear anywhere.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { capturingLogger } from '../support/log';
import { runAdminCommand, UsageError } from '../../src/cli/adminCommands';
import { createApiKey as mintApiKey, setApiKeyExpiry } from '../../src/domain/apiKeys/apiKeys';
import { addMember } from '../../src/domain/apps/members';
import { archiveApp, createApp } from '../../src/domain/apps/store';
import { withTx } from '../../src/infra/db/database';
import { seedCredentials, type SeededCredentials } from '../support/credentials';
import { call } from '../support/http';
import { signInOperator, testEmail, type OperatorClient } from '../support/operators';
import { startTestService, type TestService } from '../support/service';

const VALID_G = 'GCQ53WWRBL6HVSDNRMZKFZD7SP5DKYC6JFWSRLPQCVGD6Y42TYIN73Q2';

const keysPath = (appId: string) => `/api/v1/apps/${appId}/api-keys`;
const keyPath = (appId: string, keyId: string) => `/api/v1/apps/${appId}/api-keys/${keyId}`;

describe('Dashboard: API keys', () => {
  let svc: TestService;
  let creds: SeededCredentials;
  let owner: OperatorClient;
  const captured = capturingLogger();
  const logLines = captured.lines;
  /** Every key in clear this suite has seen, searched for in the database and the log at the end. */
  const clearKeys: string[] = [];

  const create = async (body: Record<string, unknown>, client = owner, appId = creds.app.id) => {
    const res = await client.call('createApiKey', 'POST', keysPath(appId), { body });
    if (res.status === 201) clearKeys.push(res.body.content.key);
    return res;
  };
  const rotate = async (keyId: string, body?: Record<string, unknown>, client = owner, appId = creds.app.id) => {
    const res = await client.call(
      'rotateApiKey',
      'POST',
      `${keyPath(appId, keyId)}/rotate`,
      body === undefined ? {} : { body },
    );
    if (res.status === 200) clearKeys.push(res.body.content.key.key);
    return res;
  };
  const revoke = (keyId: string, client = owner, appId = creds.app.id) =>
    client.call('revokeApiKey', 'DELETE', keyPath(appId, keyId));
  const list = async (client = owner, appId = creds.app.id) => {
    const res = await client.call('listApiKeys', 'GET', keysPath(appId));
    assert.equal(res.status, 200, res.text);
    return res.body.content.keys as any[];
  };
  /** What a key gets on a Server or SDK API route (behind a valid key, fundWallet answers 404 WALLET_NOT_FOUND for an unknown wallet). */
  const gate = async (key: string) => {
    const res = key.startsWith('sec_')
      ? await call(svc.url, 'fundWallet', 'POST', '/v1/wallets/fund', {
          headers: { 'x-service-api-key': key },
          body: { publicKey: VALID_G },
        })
      : await call(svc.url, 'startEmailSignIn', 'POST', '/v1/auth/email/start', {
          headers: { 'x-service-api-key': key },
          body: { email: 'u@example.com' },
        });
    return { status: res.status, code: res.body?.code as string | undefined };
  };
  const passesGate = (answer: { status: number; code?: string }) =>
    ![401, 403].includes(answer.status) && answer.code !== 'APPLICATION_NOT_FOUND';

  before(async () => {
    svc = await startTestService({}, { log: captured.log });
    creds = await seedCredentials(svc.deps.db);
    clearKeys.push(creds.secretKey, creds.publishableKey);
    owner = await signInOperator(svc, creds.operator.email!);
  });
  after(async () => {
    await svc?.stop();
  });

  describe('createApiKey', () => {
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
      assert.equal(
        await svc.deps.db('api_keys').where({ app_id: creds.app.id, network: 'mainnet' }).first(),
        undefined,
      );
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
  });

  describe('listApiKeys', () => {
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
  });

  describe('rotateApiKey', () => {
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
      assert.equal(
        (await list()).find((k) => k.keyId === old.keyId).expiresAt,
        first.body.content.previousKey.expiresAt,
      );
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
  });

  describe('revokeApiKey', () => {
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

  test('keys never appear in clear: not in any text column of any table, not in the log', async () => {
    // A key minted outside the Dashboard too, so the search is known to see keys of every origin.
    clearKeys.push((await mintApiKey(svc.deps.db, { appId: creds.app.id, type: 'secret', network: 'testnet' })).key);
    assert.ok(clearKeys.length > 20, `searched ${clearKeys.length} keys`);
    const secrets = clearKeys.map((k) => k.slice('sec_testnet_'.length));
    const columns = (
      await svc.deps.db.raw(
        `select table_name, column_name, data_type from information_schema.columns
        where table_schema = 'public' and data_type in ('text', 'character varying', 'character', 'json', 'jsonb', 'ARRAY', 'bytea')`,
      )
    ).rows as { table_name: string; column_name: string; data_type: string }[];
    assert.ok(
      columns.some((c) => c.table_name === 'api_keys' && c.column_name === 'replaced_by_key_id'),
      'the search sees api_keys',
    );
    assert.ok(
      columns.some((c) => c.table_name === 'idempotency_keys' && c.column_name === 'answer'),
      'the search sees stored answers',
    );
    for (const { table_name, column_name, data_type } of columns) {
      // bytea (e.g. stored Idempotency-Key answers, which may hold a new key) is searched for the key's UTF-8 bytes
      const match = data_type === 'bytea' ? `position(convert_to(?, 'UTF8') in ??) > 0` : 'position(? in ??::text) > 0';
      for (const secret of secrets) {
        const hits = await svc.deps.db(table_name).whereRaw(match, [secret, column_name]).count({ n: '*' });
        assert.equal(Number(hits[0]!.n), 0, `a key in clear in ${table_name}.${column_name}`);
      }
    }
    const logText = logLines.join('');
    assert.ok(logText.includes('/v1/wallets/fund'), 'the log was captured');
    for (const secret of secrets) assert.ok(!logText.includes(secret), 'a key in clear in the log');
  });
});
