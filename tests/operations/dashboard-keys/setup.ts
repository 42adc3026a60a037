// What tests of the dashboard-keys operations in this folder share: the service they run against, its state and helpers
// (the tests are in <operationId>.test.ts). What they cover:
// Dashboard API keys on real PostgreSQL: generate (shown once, network of the app), list (prefix only, derived
// statuses), rotate (overlap, never past an earlier expiry, at most one successor even under concurrent calls) and
// revoke (idempotent, the gate refuses the key at once); object-level authorization; no key in clear anywhere.
import { after, before, test } from 'node:test';
import { createApiKey as mintApiKey } from '../../../src/domain/apiKeys/apiKeys';
import assert from 'node:assert/strict';
import { capturingLogger } from '../../support/log';
import { seedCredentials, type SeededCredentials } from '../../support/credentials';
import { call } from '../../support/http';
import { signInOperator, type OperatorClient } from '../../support/operators';
import { startTestService, type TestService } from '../../support/service';

const VALID_G = 'GCQ53WWRBL6HVSDNRMZKFZD7SP5DKYC6JFWSRLPQCVGD6Y42TYIN73Q2';

export const keysPath = (appId: string) => `/api/v1/apps/${appId}/api-keys`;
const keyPath = (appId: string, keyId: string) => `/api/v1/apps/${appId}/api-keys/${keyId}`;

/** Set by useService()'s hooks: ES module bindings are live, so read them inside tests, not at load time. */
export let svc: TestService;
export let creds: SeededCredentials;
export let owner: OperatorClient;
const captured = capturingLogger();
const logLines = captured.lines;
/** Every key in clear this suite has seen, searched for in the database and the log at the end. */
export const clearKeys: string[] = [];

export const create = async (body: Record<string, unknown>, client = owner, appId = creds.app.id) => {
  const res = await client.call('createApiKey', 'POST', keysPath(appId), { body });
  if (res.status === 201) clearKeys.push(res.body.content.key);
  return res;
};
export const rotate = async (keyId: string, body?: Record<string, unknown>, client = owner, appId = creds.app.id) => {
  const res = await client.call(
    'rotateApiKey',
    'POST',
    `${keyPath(appId, keyId)}/rotate`,
    body === undefined ? {} : { body },
  );
  if (res.status === 200) clearKeys.push(res.body.content.key.key);
  return res;
};
export const revoke = (keyId: string, client = owner, appId = creds.app.id) =>
  client.call('revokeApiKey', 'DELETE', keyPath(appId, keyId));
export const list = async (client = owner, appId = creds.app.id) => {
  const res = await client.call('listApiKeys', 'GET', keysPath(appId));
  assert.equal(res.status, 200, res.text);
  return res.body.content.keys as any[];
};
/** What a key gets on a Server or SDK API route (behind a valid key, fundWallet answers 404 WALLET_NOT_FOUND for an unknown wallet). */
export const gate = async (key: string) => {
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
export const passesGate = (answer: { status: number; code?: string }) =>
  ![401, 403].includes(answer.status) && answer.code !== 'APPLICATION_NOT_FOUND';

/** Starts the service (and what the tests need of it) before the calling suite's tests and stops it after. */
export function useService(): void {
  before(async () => {
    svc = await startTestService({}, { log: captured.log });
    creds = await seedCredentials(svc.deps.db);
    clearKeys.push(creds.secretKey, creds.publishableKey);
    owner = await signInOperator(svc, creds.operator.email!);
  });
  after(async () => {
    await svc?.stop();
  });
}

/**
 * Registers the last test of a suite: no key it has seen (clearKeys) is in clear in any text column of any table or
 * in the log. Every file that mints keys ends with it, since each runs its own service and database.
 */
export function testNoKeyInClear(): void {
  test('keys never appear in clear: not in any text column of any table, not in the log', async () => {
    // A key minted outside the Dashboard too, so the search is known to see keys of every origin.
    clearKeys.push((await mintApiKey(svc.deps.db, { appId: creds.app.id, type: 'secret', network: 'testnet' })).key);
    // More than the seeded pair and the key above: the suite's own tests made keys, and they are searched too.
    assert.ok(clearKeys.length > 3, `searched ${clearKeys.length} keys`);
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
}
