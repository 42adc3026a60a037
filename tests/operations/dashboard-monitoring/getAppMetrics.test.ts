// getAppMetrics (GET /api/v1/apps/{appId}/metrics): the app's usage and spend over a window, with a series for charts.
// Shared set-up: setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Keypair } from '@stellar/stellar-sdk';
import { findApp } from '../../../src/domain/apps/store';
import { newId } from '../../../src/domain/ids';
import { userWallet } from '../../support/funding';
import { at, BASE, createApp, developer, iso, outsider, owner, store, svc, useService } from './setup';

useService();

const HOUR = 3600;
const metrics = (appId: string, query = '') =>
  owner.call('getAppMetrics', 'GET', `/api/v1/apps/${appId}/metrics${query}`);
const window = (fromSecond: number, toSecond: number) => `?from=${iso(fromSecond)}&to=${iso(toSecond)}`;

describe('getAppMetrics', () => {
  test("transactions by status, the gas wallet's fees by the Monitor's own rule, failures by code, an hourly series", async () => {
    const { appId, gasKey } = await createApp('Metrics');
    const paid = { feeSource: gasKey, envelopeXdr: 'AAAA' };
    await store(appId, [
      { second: HOUR + 10, tx: { ...paid, feeStroops: 200n, ledger: 100 } },
      {
        second: HOUR + 20,
        tx: { ...paid, status: 'FAILED', stage: 'failed', feeStroops: 200n, ledger: 101, resultCode: 'op_underfunded' },
      },
      // refused at submission: no ledger, no fee
      {
        second: 2 * HOUR,
        tx: { ...paid, status: 'FAILED', stage: 'failed', feeStroops: 200n, resultCode: 'tx_bad_seq' },
      },
      // in flight: its fee is being charged
      {
        second: 3 * HOUR,
        tx: { ...paid, status: 'PENDING', stage: 'submitted', feeStroops: 300n, resultCode: undefined },
      },
      // denied by the policy: never sent
      { second: 26 * HOUR, tx: { status: 'FAILED', stage: 'denied', feeStroops: 200n, resultCode: 'op_underfunded' } },
      { second: 27 * HOUR, tx: { ...paid, feeStroops: 100n, ledger: 102 } },
      // paid by someone else (seen on the ledger): not the app's spend
      {
        second: 28 * HOUR,
        tx: { origin: 'external', feeSource: Keypair.random().publicKey(), feeStroops: 500n, ledger: 103 },
      },
      // outside the window
      { second: 50 * HOUR, tx: { ...paid, feeStroops: 900n, ledger: 104 } },
    ]);
    const res = await metrics(appId, window(0, 48 * HOUR));
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.code, 'APP_METRICS_FETCHED');
    const m = res.body.content;
    assert.deepEqual([m.from, m.to], [iso(0), iso(48 * HOUR)]);
    assert.deepEqual(m.transactions, { total: 7, success: 3, failed: 3, pending: 1 });
    assert.equal(m.sponsoredFeesXlm, '0.00008', '200 + 200 + 300 + 100 stroops');
    // The Monitor's list counts the same fees for the same window.
    const listed = await owner.call(
      'listAppTransactions',
      'GET',
      `/api/v1/apps/${appId}/transactions${window(0, 48 * HOUR)}&limit=100`,
    );
    const listedStroops = listed.body.content.transactions.reduce(
      (sum: number, r: { feeSponsoredXlm: string }) => sum + Math.round(Number(r.feeSponsoredXlm) * 1e7),
      0,
    );
    assert.equal(listedStroops, 800);
    assert.deepEqual(m.failuresByCode, [
      { code: 'op_underfunded', count: 2 },
      { code: 'tx_bad_seq', count: 1 },
    ]);
    assert.equal(m.interval, 'hour');
    assert.equal(m.series.length, 48);
    assert.deepEqual(m.series[1], {
      start: iso(HOUR),
      transactions: 2,
      failed: 1,
      walletsCreated: 0,
      sponsoredFeesXlm: '0.00004',
    });
    assert.deepEqual(m.series[0], {
      start: iso(0),
      transactions: 0,
      failed: 0,
      walletsCreated: 0,
      sponsoredFeesXlm: '0',
    });
    assert.equal(
      m.series.reduce((n: number, b: { transactions: number }) => n + b.transactions, 0),
      7,
      'the series adds up to the totals',
    );
  });

  test('a window over two days is daily (UTC), the first bucket clipped to the window; defaults and limits', async () => {
    const { appId } = await createApp('Daily');
    await store(appId, [{ second: 5 * HOUR }, { second: 30 * HOUR }, { second: 31 * HOUR }]);
    const res = await metrics(appId, window(3 * HOUR, 72 * HOUR));
    assert.equal(res.status, 200, res.text);
    const m = res.body.content;
    assert.equal(m.interval, 'day');
    assert.deepEqual(
      m.series.map((b: { start: string; transactions: number }) => [b.start, b.transactions]),
      [
        [iso(3 * HOUR), 1],
        [new Date(BASE + 86_400_000).toISOString(), 2],
        [new Date(BASE + 2 * 86_400_000).toISOString(), 0],
      ],
    );
    // Without a window: the 30 days before now.
    const byDefault = await metrics(appId);
    assert.equal(byDefault.status, 200, byDefault.text);
    const span = Date.parse(byDefault.body.content.to) - Date.parse(byDefault.body.content.from);
    assert.equal(span, 30 * 86_400_000);
    assert.ok(Math.abs(Date.parse(byDefault.body.content.to) - Date.now()) < 60_000);
    const reversed = await metrics(appId, window(10, 5));
    assert.equal(reversed.status, 400);
    assert.deepEqual(Object.keys(reversed.body.details.fieldErrors), ['query.from']);
    const tooLong = await metrics(appId, `?from=2025-01-01T00:00:00.000Z&to=2026-06-01T00:00:00.000Z`);
    assert.equal(tooLong.status, 400);
    assert.match(tooLong.body.details.fieldErrors['query.from'][0], /366 days/);
  });

  test('active users, user wallets created and funded, webhook outcomes and the success rate', async () => {
    const { appId } = await createApp('People');
    const app = (await findApp(svc.deps.db, appId))!;
    const [a, b, c] = [await userWallet(svc, app), await userWallet(svc, app), await userWallet(svc, app)];
    const inWindow = at(HOUR);
    await svc.deps.db('wallets').whereIn('id', [a.id, b.id, c.id]).update({ created_at: inWindow });
    await svc.deps
      .db('wallets')
      .where({ id: a.id })
      .update({ funding_state: 'funded', funded_at: at(2 * HOUR) });
    // a and b transacted (a twice); c only renewed a session in the window; an old session of nobody else counts not
    await store(appId, [
      { second: HOUR, tx: { userId: a.userId } },
      { second: 2 * HOUR, tx: { userId: a.userId } },
      { second: 3 * HOUR, tx: { userId: b.userId } },
    ]);
    const session = (subject: string, createdAt: Date, refreshedAt: Date | null) => ({
      id: newId('ses'),
      audience: 'user',
      subject_id: subject,
      app_id: appId,
      jkt: 'x'.repeat(43),
      auth_method: 'email',
      created_at: createdAt,
      last_refreshed_at: refreshedAt,
    });
    await svc.deps
      .db('sessions')
      .insert([
        session(c.userId!, new Date(BASE - 86_400_000), at(4 * HOUR)),
        session('usr_outside', new Date(BASE - 86_400_000), null),
      ]);
    const event = (status: string) => ({
      id: newId('evt'),
      app_id: appId,
      type: 'wallet.created',
      data: {},
      created_at: at(HOUR),
      status,
    });
    await svc.deps
      .db('outbox_events')
      .insert([
        event('delivered'),
        event('delivered'),
        event('delivered'),
        event('failed'),
        event('pending'),
        event('skipped'),
      ]);
    const m = (await metrics(appId, window(0, 24 * HOUR))).body.content;
    assert.equal(m.activeUsers, 3);
    assert.deepEqual(m.wallets, { created: 3, funded: 1 });
    assert.equal(m.series[1].walletsCreated, 3);
    assert.deepEqual(m.webhooks, { delivered: 3, failed: 1, pending: 1, successRate: 0.75 });
    const empty = (await metrics(appId, window(100 * HOUR, 110 * HOUR))).body.content;
    assert.deepEqual(empty.webhooks, { delivered: 0, failed: 0, pending: 0, successRate: null });
    assert.equal(empty.activeUsers, 0);
  });

  test('any member reads it; another operator gets 404 and an unknown app 404', async () => {
    const { appId } = await createApp('Shared');
    const invited = await owner.call('addMember', 'POST', `/api/v1/apps/${appId}/members`, {
      body: { email: developer.email, role: 'developer' },
    });
    assert.ok([200, 201].includes(invited.status), invited.text);
    const asMember = await developer.call('getAppMetrics', 'GET', `/api/v1/apps/${appId}/metrics`);
    assert.equal(asMember.status, 200, asMember.text);
    const asOutsider = await outsider.call('getAppMetrics', 'GET', `/api/v1/apps/${appId}/metrics`);
    assert.equal(asOutsider.status, 404);
    assert.equal(asOutsider.body.code, 'APPLICATION_NOT_FOUND');
  });
});
