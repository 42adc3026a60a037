// Activations past one transaction per ledger per funding wallet: the queue batches concurrent activations of one
// funding wallet into shared transactions, and with channel accounts several batches land in the same ledger.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SYSTEM_ACTOR } from '../../src/domain/audit/auditLog';
import { fundUserWallet } from '../../src/domain/funding/funding';
import { channelKeypair } from '../../src/domain/funding/channels';
import { startTestService, type TestService } from '../support/service';
import { appWithWallet, closeLedgersEvery, gatewayOf, userWallet } from '../support/funding';

async function activateAll(svc: TestService, count: number) {
  const { app, appWallet } = await appWithWallet(svc);
  const wallets = await Promise.all(Array.from({ length: count }, () => userWallet(svc, app)));
  const results = await Promise.allSettled(
    wallets.map((wallet) => fundUserWallet(svc.deps, { app, wallet, trigger: 'server_api', actor: SYSTEM_ACTOR })),
  );
  const failures = results.flatMap((r) => (r.status === 'rejected' ? [String(r.reason)] : []));
  assert.deepEqual(failures, []);
  const rows = await svc.deps
    .db('wallet_activations')
    .whereIn(
      'wallet_id',
      wallets.map((w) => w.id),
    )
    .select('tx_hash', 'ledger');
  return { appWallet, rows };
}

describe('batching, the funding wallet as source', () => {
  let svc: TestService;
  let stop: () => void;
  before(async () => {
    svc = await startTestService();
    stop = closeLedgersEvery(svc, 500);
  });
  after(async () => {
    stop?.();
    await svc?.stop();
  });

  test('36 concurrent activations share a few transactions (18 wallets each at most) instead of taking 36 ledgers', async () => {
    const { appWallet, rows } = await activateAll(svc, 36);
    const transactions = new Set(rows.map((r) => r.tx_hash));
    assert.ok(transactions.size <= 4, `${transactions.size} transactions`);
    const sponsor = (await gatewayOf(svc).loadAccount(appWallet.publicKey))!;
    assert.equal(sponsor.numSponsoring, 72);
  });
});

describe('batching with channel accounts', () => {
  let svc: TestService;
  let stop: () => void;
  before(async () => {
    svc = await startTestService({ ACTIVATION_CHANNELS: '8' });
    // 5 s ledgers, like the public networks (the target: 100 activations a ledger)
    stop = closeLedgersEvery(svc, 5000);
  });
  after(async () => {
    stop?.();
    await svc?.stop();
  });

  test('120 concurrent activations: at least 100 land in one ledger, through 8 sponsored channel accounts (18 wallets a transaction)', async () => {
    const { appWallet, rows } = await activateAll(svc, 120);
    const perLedger = new Map<number, number>();
    for (const r of rows) perLedger.set(r.ledger, (perLedger.get(r.ledger) ?? 0) + 1);
    const best = Math.max(...perLedger.values());
    assert.ok(best >= 100, `at most ${best} activations in one ledger: ${JSON.stringify([...perLedger])}`);
    const gw = gatewayOf(svc);
    for (let i = 0; i < 8; i++) {
      const channel = await gw.loadAccount(channelKeypair(svc.deps.secrets, appWallet.publicKey, i).publicKey());
      assert.equal(channel?.sponsor, appWallet.publicKey, `channel ${i}`);
      assert.equal(channel?.balanceStroops, 0n, `channel ${i} holds no XLM: the gas wallet's fee-bumps pay every fee`);
    }
    const sponsor = (await gw.loadAccount(appWallet.publicKey))!;
    assert.equal(sponsor.numSponsoring, 2 * 120 + 2 * 8, 'every wallet and channel sponsored once');
    const leased = await svc.deps
      .db('funding_channels')
      .whereNotNull('lease_until')
      .count<{ count: string }[]>('* as count');
    assert.equal(Number(leased[0]!.count), 0, 'every channel lease given back');
  });
});
