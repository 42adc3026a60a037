// The Dashboard's list of an app's ramp transactions over HTTP with real operator sessions, every answer checked against
// the contract: newest first with the user and wallet, the status filter, cursor paging to the end, a cursor the list
// never issued (400 INVALID_CURSOR), and who may read it. Ramps are stored as the service stores them (a quote, then
// the ramp started from it); how they get there is rampsSandbox.test.ts's subject.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeCursor } from '../../../src/domain/paging/cursor';
import type { OperatorClient } from '../../support/operators';
import { at, createApp, outsider, owner, svc, useService, USDC } from './setup';

useService();

const STATUSES = ['completed', 'awaiting_deposit', 'failed', 'completed', 'processing'] as const;

/** Stores one ramp per status (the first the oldest) for a new user of the app; answers their ids, newest first. */
async function seedRamps(appId: string): Promise<{ ids: string[]; userId: string; walletAddress: string }> {
  const wallet = await svc.deps.db('wallets').where({ app_id: appId, role: 'global' }).first('id', 'public_key');
  const userId = `usr_ramps${Date.now()}${Math.floor(Math.random() * 1e6)}`;
  await svc.deps.db('users').insert({ id: userId, app_id: appId, last_provider: 'email', created_at: at(0) });
  const ids: string[] = [];
  for (const [i, status] of STATUSES.entries()) {
    const quoteId = `rmq_${userId.slice(4)}q${i}`;
    const rampId = `rmt_${userId.slice(4)}r${i}`;
    await svc.deps.db('ramp_quotes').insert({
      id: quoteId,
      app_id: appId,
      user_id: userId,
      wallet_id: wallet.id,
      provider_id: 'sandbox',
      direction: i % 2 === 0 ? 'on' : 'off',
      fiat_currency: 'USD',
      asset: USDC,
      amount_in: 'crypto',
      amount: `${20 + i}`,
      fiat_amount: `${20 + i}.15`,
      crypto_amount: `${20 + i}`,
      fee: '0.15',
      min_amount: '20',
      max_amount: '10000',
      expires_at: at(900 + i),
      created_at: at(i),
    });
    await svc.deps.db('ramp_transactions').insert({
      id: rampId,
      app_id: appId,
      user_id: userId,
      wallet_id: wallet.id,
      quote_id: quoteId,
      provider_id: 'sandbox',
      status,
      stellar_tx_hash: status === 'completed' ? `${i}`.repeat(64) : null,
      created_at: at(10 + i),
      updated_at: at(10 + i),
    });
    ids.unshift(rampId);
  }
  return { ids, userId, walletAddress: wallet.public_key };
}

const listPath = (appId: string, query: Record<string, string | number> = {}) => {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();
  return `/api/v1/apps/${appId}/ramps/transactions${qs ? `?${qs}` : ''}`;
};
const list = (client: OperatorClient, appId: string, query: Record<string, string | number> = {}) =>
  client.call('listAppRampTransactions', 'GET', listPath(appId, query));

describe('listAppRampTransactions', () => {
  test('newest first, with the user, the wallet and the ramp as its user sees it', async () => {
    const { appId } = await createApp('Ramps');
    const seeded = await seedRamps(appId);
    const res = await list(owner, appId);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.code, 'RAMP_TRANSACTIONS_LISTED');
    const { transactions, nextCursor } = res.body.content;
    assert.deepEqual(
      transactions.map((t: any) => t.ramp.txId),
      seeded.ids,
    );
    assert.equal(nextCursor, null);
    const newest = transactions[0];
    assert.equal(newest.userId, seeded.userId);
    assert.equal(newest.walletAddress, seeded.walletAddress);
    assert.deepEqual(
      [newest.ramp.status, newest.ramp.direction, newest.ramp.fiatAmount, newest.ramp.cryptoAmount, newest.ramp.asset],
      ['processing', 'on', '24.15', '24', USDC],
    );
  });

  test('filtered by status; paged by cursor to the end; a forged cursor is 400 INVALID_CURSOR', async () => {
    const { appId } = await createApp('Ramps paged');
    const seeded = await seedRamps(appId);
    const completed = await list(owner, appId, { status: 'completed' });
    assert.deepEqual(
      completed.body.content.transactions.map((t: any) => t.ramp.txId),
      [seeded.ids[1], seeded.ids[4]],
    );
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await list(owner, appId, { limit: 2, ...(cursor ? { cursor } : {}) });
      assert.equal(page.status, 200, page.text);
      seen.push(...page.body.content.transactions.map((t: any) => t.ramp.txId));
      cursor = page.body.content.nextCursor;
    } while (cursor);
    assert.deepEqual(seen, seeded.ids);
    const forged = await list(owner, appId, { cursor: encodeCursor({ afterId: 'rmt_nosuchramp', offset: 2 }) });
    assert.deepEqual([forged.status, forged.body.code], [400, 'INVALID_CURSOR'], forged.text);
    const otherList = await list(owner, appId, { cursor: encodeCursor({ afterId: 'tx_sometransaction', offset: 2 }) });
    assert.deepEqual([otherList.status, otherList.body.code], [400, 'INVALID_CURSOR']);
    const badStatus = await list(owner, appId, { status: 'lost' });
    assert.deepEqual([badStatus.status, badStatus.body.code], [400, 'VALIDATION_ERROR']);
  });

  test("another operator's app: 404 APPLICATION_NOT_FOUND", async () => {
    const { appId } = await createApp('Ramps private');
    const res = await list(outsider, appId);
    assert.deepEqual([res.status, res.body.code], [404, 'APPLICATION_NOT_FOUND']);
  });
});
