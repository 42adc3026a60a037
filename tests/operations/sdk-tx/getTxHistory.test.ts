// getTxHistory: over HTTP against the real service (PostgreSQL, the in-process localnet), every answer checked against
// the contract; history rows are written through the store as the service writes them.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useService, userWithHistory } from './setup';

useService();

describe('GET /v1/tx/history', () => {
  test('200: the default page (20), newest first, with the total and a cursor; the records as the contract shapes them', async () => {
    const { user, ids } = await userWithHistory(25);
    const res = await user.call('getTxHistory', 'GET', '/v1/tx/history');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.code, 'TX_HISTORY_FETCHED');
    const page = res.body.content;
    assert.deepEqual([page.total, page.limit, page.offset, page.records.length], [25, 20, 0, 20]);
    assert.deepEqual(
      page.records.map((r: { id: string }) => r.id),
      ids.slice(0, 20),
    );
    assert.deepEqual(page.records[0], {
      id: ids[0],
      hash: page.records[0].hash,
      network: 'testnet',
      status: 'SUCCESS',
      operation: 'payment',
      feeXlm: '0.00002',
      resultCode: 'tx_success',
      summary: 'Sent 25 XLM to GABC...WXYZ',
      createdAt: '2026-11-20T10:00:24.000Z',
    });
    assert.equal(typeof page.nextCursor, 'string');

    const next = await user.call(
      'getTxHistory',
      'GET',
      `/v1/tx/history?limit=20&cursor=${encodeURIComponent(page.nextCursor)}`,
    );
    assert.deepEqual(
      next.body.content.records.map((r: { id: string }) => r.id),
      ids.slice(20),
    );
    assert.deepEqual([next.body.content.offset, next.body.content.nextCursor], [20, null]);

    const byOffset = await user.call('getTxHistory', 'GET', '/v1/tx/history?limit=10&offset=10&network=testnet');
    assert.deepEqual(
      byOffset.body.content.records.map((r: { id: string }) => r.id),
      ids.slice(10, 20),
    );
    assert.deepEqual(
      [byOffset.body.content.total, byOffset.body.content.limit, byOffset.body.content.offset],
      [25, 10, 10],
    );
  });

  test('400: limit above 100 or below 1, a negative offset, and a cursor of another user refused as query.cursor', async () => {
    const { user } = await userWithHistory(2);
    for (const query of ['limit=101', 'limit=0', 'offset=-1']) {
      const res = await user.call('getTxHistory', 'GET', `/v1/tx/history?${query}`);
      assert.equal(res.status, 400, query);
      assert.equal(res.body.code, 'VALIDATION_ERROR');
    }
    const other = await userWithHistory(2);
    const theirs = (await other.user.call('getTxHistory', 'GET', '/v1/tx/history?limit=1')).body.content.nextCursor;
    const res = await user.call('getTxHistory', 'GET', `/v1/tx/history?cursor=${encodeURIComponent(theirs)}`);
    assert.deepEqual([res.status, res.body.code], [400, 'INVALID_CURSOR']);
    assert.deepEqual(res.body.details, {
      fieldErrors: { 'query.cursor': ['is not a cursor of this list: pass back a nextCursor as given'] },
    });
  });

  test("404 WALLET_NOT_FOUND: another network than the key's, where the user has no wallet", async () => {
    const { user } = await userWithHistory(1);
    const res = await user.call('getTxHistory', 'GET', '/v1/tx/history?network=mainnet');
    assert.equal(res.status, 404);
    assert.equal(res.body.code, 'WALLET_NOT_FOUND');
  });

  test('a user without transactions: an empty page', async () => {
    const { user } = await userWithHistory(0);
    const res = await user.call('getTxHistory', 'GET', '/v1/tx/history');
    assert.deepEqual(res.body.content, { records: [], total: 0, limit: 20, offset: 0, nextCursor: null });
  });
});
