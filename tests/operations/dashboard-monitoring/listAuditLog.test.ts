// The audit log over HTTP with real operator sessions, every answer checked against the contract: operator actions
// recorded in the transaction of the change (and not when the change fails), key decryptions with wallet and purpose,
// filters, offset and cursor paging (newest first, ties by id), who may read it, and append-only storage.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { recordAudit } from '../../../src/domain/audit/auditLog';
import { ensureAppWallet } from '../../../src/domain/wallets/appWallets';
import { withWalletKeypair } from '../../../src/domain/wallets/custody';
import { signInOperator, type OperatorClient } from '../../support/operators';
import { startTestService, type TestService } from '../../support/service';

describe('listAuditLog', () => {
  let svc: TestService;
  let owner: OperatorClient;
  let developer: OperatorClient;
  let outsider: OperatorClient;

  async function createApp(name = 'Audited app'): Promise<string> {
    const res = await owner.call('createApp', 'POST', '/api/v1/apps', { body: { name, network: 'testnet' } });
    assert.equal(res.status, 201, res.text);
    return res.body.content.appId;
  }

  async function auditLog(client: OperatorClient, appId: string, query = ''): Promise<any> {
    const res = await client.call('listAuditLog', 'GET', `/api/v1/apps/${appId}/audit-log${query}`);
    assert.equal(res.status, 200, res.text);
    return res.body.content;
  }

  before(async () => {
    svc = await startTestService();
    [owner, developer, outsider] = await Promise.all([signInOperator(svc), signInOperator(svc), signInOperator(svc)]);
  });
  after(async () => {
    await svc?.stop();
  });

  test('key and team changes are recorded newest first, with the operator and the client address', async () => {
    const appId = await createApp();
    const created = await owner.call('createApiKey', 'POST', `/api/v1/apps/${appId}/api-keys`, {
      body: { type: 'secret' },
    });
    const keyId = created.body.content.keyId;
    const rotated = await owner.call('rotateApiKey', 'POST', `/api/v1/apps/${appId}/api-keys/${keyId}/rotate`, {
      body: { overlapSeconds: 60 },
    });
    assert.equal(rotated.status, 200, rotated.text);
    const newKeyId = rotated.body.content.key.keyId;
    assert.equal(
      (await owner.call('revokeApiKey', 'DELETE', `/api/v1/apps/${appId}/api-keys/${newKeyId}`)).status,
      200,
    );
    const added = await owner.call('addMember', 'POST', `/api/v1/apps/${appId}/members`, {
      body: { email: 'audited@example.com', role: 'developer' },
    });
    assert.equal(added.status, 201, added.text);
    assert.equal(
      (await owner.call('removeMember', 'DELETE', `/api/v1/apps/${appId}/members/${added.body.content.memberId}`))
        .status,
      200,
    );

    const page = await auditLog(owner, appId);
    assert.deepEqual(
      page.entries.map((e: any) => e.action),
      ['member.removed', 'member.added', 'api_key.revoked', 'api_key.rotated', 'api_key.created'],
    );
    for (const e of page.entries) {
      assert.deepEqual(e.actor, { type: 'operator', id: owner.operatorId });
      assert.equal(e.walletId, null);
      assert.equal(e.purpose, null);
      assert.match(e.ip, /127\.0\.0\.1/);
    }
    assert.equal(page.total, 5);
    assert.equal(page.nextCursor, null);
    const details = await svc.deps.db('audit_log').where({ app_id: appId }).orderBy('created_at').pluck('details');
    assert.deepEqual(details[0], { keyId, type: 'secret' });
    assert.equal(details[1].newKeyId, newKeyId);
    assert.deepEqual(details[2], { keyId: newKeyId });
  });

  test('a change that fails or changes nothing records nothing', async () => {
    const appId = await createApp();
    const created = await owner.call('createApiKey', 'POST', `/api/v1/apps/${appId}/api-keys`, {
      body: { type: 'publishable' },
    });
    const keyId = created.body.content.keyId;
    assert.equal((await owner.call('revokeApiKey', 'DELETE', `/api/v1/apps/${appId}/api-keys/${keyId}`)).status, 200);
    // Revoking again changes nothing; rotating a revoked key fails inside the transaction that would audit it.
    assert.equal((await owner.call('revokeApiKey', 'DELETE', `/api/v1/apps/${appId}/api-keys/${keyId}`)).status, 200);
    assert.equal(
      (await owner.call('rotateApiKey', 'POST', `/api/v1/apps/${appId}/api-keys/${keyId}/rotate`, { body: {} })).status,
      409,
    );
    await owner.call('addMember', 'POST', `/api/v1/apps/${appId}/members`, {
      body: { email: 'twice@example.com', role: 'admin' },
    });
    assert.equal(
      (
        await owner.call('addMember', 'POST', `/api/v1/apps/${appId}/members`, {
          body: { email: 'twice@example.com', role: 'admin' },
        })
      ).status,
      409,
    );
    const page = await auditLog(owner, appId);
    assert.deepEqual(
      page.entries.map((e: any) => e.action),
      ['member.added', 'api_key.revoked', 'api_key.created'],
    );
  });

  test('key decryptions name the wallet and the purpose; filters by action and wallet', async () => {
    const appId = await createApp();
    const app = { id: appId, network: 'testnet' as const };
    const global = await ensureAppWallet(svc.deps, { app, role: 'global' });
    const gas = await ensureAppWallet(svc.deps, { app, role: 'gas' });
    const sign = (walletId: string, purpose: string) =>
      withWalletKeypair(svc.deps, { walletId, purpose, actor: { type: 'system', id: null } }, async (kp) =>
        kp.sign(Buffer.from('x')),
      );
    await sign(global.id, 'wallet.activate');
    await sign(gas.id, 'tx.fee_bump');
    await sign(global.id, 'tx.sign');
    await owner.call('createApiKey', 'POST', `/api/v1/apps/${appId}/api-keys`, { body: { type: 'secret' } });

    const decrypts = await auditLog(owner, appId, '?action=key.decrypt');
    assert.equal(decrypts.total, 3);
    assert.deepEqual(
      decrypts.entries.map((e: any) => [e.walletId, e.purpose]),
      [
        [global.id, 'tx.sign'],
        [gas.id, 'tx.fee_bump'],
        [global.id, 'wallet.activate'],
      ],
    );
    assert.deepEqual(decrypts.entries[0].actor, { type: 'system', id: null });
    assert.equal(decrypts.entries[0].ip, null);
    const ofGlobal = await auditLog(owner, appId, `?walletId=${global.id}`);
    assert.deepEqual(
      ofGlobal.entries.map((e: any) => e.purpose),
      ['tx.sign', 'wallet.activate'],
    );
    const both = await auditLog(owner, appId, `?walletId=${gas.id}&action=key.decrypt`);
    assert.equal(both.total, 1);
    assert.equal((await auditLog(owner, appId, '?action=member.added')).total, 0);
  });

  test('offset and cursor paging walk the same entries, newest first, equal times ordered by id', async () => {
    const appId = await createApp();
    const base = Date.parse('2026-01-01T00:00:00Z');
    for (let i = 0; i < 45; i++) {
      // Pairs share a timestamp: the order must not depend on the time alone.
      await recordAudit(svc.deps.db, {
        appId,
        action: 'api_key.created',
        actor: { type: 'operator', id: owner.operatorId },
        at: new Date(base + Math.floor(i / 2) * 1000),
      });
    }
    const all = await svc.deps
      .db('audit_log')
      .where({ app_id: appId })
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .pluck('id');
    assert.equal(all.length, 45);

    const byOffset: string[] = [];
    for (let offset = 0; ; offset += 20) {
      const page = await auditLog(owner, appId, `?limit=20&offset=${offset}`);
      assert.equal(page.total, 45);
      assert.equal(page.offset, offset);
      assert.equal(page.limit, 20);
      byOffset.push(...page.entries.map((e: any) => e.auditId));
      if (offset + 20 >= page.total) {
        assert.equal(page.nextCursor, null);
        break;
      }
    }
    assert.deepEqual(byOffset, all);

    const byCursor: string[] = [];
    let cursor: string | null = null;
    const offsets: number[] = [];
    do {
      const page: any = await auditLog(owner, appId, `?limit=20${cursor ? `&cursor=${cursor}` : ''}`);
      offsets.push(page.offset);
      byCursor.push(...page.entries.map((e: any) => e.auditId));
      cursor = page.nextCursor;
    } while (cursor);
    assert.deepEqual(byCursor, all);
    assert.deepEqual(offsets, [0, 20, 40]);
    // Default page size: 20.
    assert.equal((await auditLog(owner, appId)).entries.length, 20);
  });

  test('a cursor that is malformed or from another app is a 400 with the field named', async () => {
    const [appA, appB] = [await createApp('A'), await createApp('B')];
    for (let i = 0; i < 3; i++)
      await recordAudit(svc.deps.db, {
        appId: appB,
        action: 'member.added',
        actor: { type: 'operator', id: owner.operatorId },
        at: new Date(),
      });
    const fromB = (await auditLog(owner, appB, '?limit=1')).nextCursor;
    assert.ok(fromB);
    for (const cursor of ['garbage!', Buffer.from('{"a":"aud_x","o":1}').toString('base64url'), fromB]) {
      const res = await owner.call(
        'listAuditLog',
        'GET',
        `/api/v1/apps/${appA}/audit-log?cursor=${encodeURIComponent(cursor)}`,
      );
      assert.equal(res.status, 400, cursor);
      assert.equal(res.body.code, 'INVALID_CURSOR');
      assert.ok(res.body.details.fieldErrors['query.cursor'], res.text);
    }
    const bad = await owner.call('listAuditLog', 'GET', `/api/v1/apps/${appA}/audit-log?walletId=key_123`);
    assert.equal(bad.status, 400);
  });

  test('any member reads it; another operator and an unknown app get 404 APPLICATION_NOT_FOUND', async () => {
    const appId = await createApp();
    await owner.call('addMember', 'POST', `/api/v1/apps/${appId}/members`, {
      body: { email: developer.email, role: 'developer' },
    });
    const seen = await auditLog(developer, appId);
    assert.equal(seen.entries[0].action, 'member.added');
    for (const [client, id] of [
      [outsider, appId],
      [owner, 'app_0000000000000000000000'],
    ] as const) {
      const res = await client.call('listAuditLog', 'GET', `/api/v1/apps/${id}/audit-log`);
      assert.equal(res.status, 404);
      assert.equal(res.body.code, 'APPLICATION_NOT_FOUND');
    }
  });

  test('entries cannot be changed or deleted: the database refuses', async () => {
    const appId = await createApp();
    const id = await recordAudit(svc.deps.db, {
      appId,
      action: 'member.added',
      actor: { type: 'operator', id: owner.operatorId },
      at: new Date(),
    });
    await assert.rejects(svc.deps.db('audit_log').where({ id }).update({ action: 'member.removed' }), /append-only/);
    await assert.rejects(svc.deps.db('audit_log').where({ id }).delete(), /append-only/);
    await assert.rejects(svc.deps.db.raw('truncate audit_log'), /append-only/);
    assert.equal((await svc.deps.db('audit_log').where({ id }).first()).action, 'member.added');
  });
});
