// The service's own activations never appear as outside transactions (issue 15): on 1 s ledgers, with a ledger
// follower reading each ledger as soon as it closes (a loop every 20 ms beside the service's own follower job), the
// follower used to record an activation as `external` before the funding step recorded it, so the wallet's history
// said "Received 0 XLM" and a payment.received event followed. Now an activation is registered as the service's own
// before it is sent, and the follower leaves its rows to the funding step (and reports it as stellar.tx once).
// Repeated over several rounds of sign-ins.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { updateAppSettings } from '../../src/domain/apps/store';
import { startTestService, type TestService } from '../support/service';
import { signInUser } from '../support/users';
import { appWithWallet } from '../support/funding';
import { followInBackground } from '../support/follower';
import type { SeededCredentials } from '../support/credentials';

let svc: TestService;
let creds: SeededCredentials;
let stopFollower: () => Promise<void>;

before(async () => {
  svc = await startTestService({ LEDGER_FOLLOWER: 'on' }, { closeLedgersEveryMs: 1000 });
  const setup = await appWithWallet(svc);
  creds = setup.creds;
  await updateAppSettings(svc.deps.db, setup.app.id, { fundingMode: 'immediate', startingBalanceXlm: '2' });
  stopFollower = followInBackground(svc.deps, { intervalMs: 20 });
});
after(async () => {
  await stopFollower?.();
  await svc?.stop();
});

describe('activations and the ledger follower on 1 s ledgers', () => {
  test('three rounds of four sign-ins: every activation recorded as the service recorded it, none as external', async () => {
    const walletIds: string[] = [];
    for (let round = 0; round < 3; round++) {
      const users = await Promise.all(Array.from({ length: 4 }, () => signInUser(svc, creds)));
      for (const user of users) assert.equal(user.signIn.wallet.funded, true, 'funded at sign-in');
      walletIds.push(...users.map((u) => u.signIn.wallet.walletId as string));
    }
    // Let the follower read past every activation's ledger.
    await new Promise((r) => setTimeout(r, 2500));

    const hashes = (await svc.deps.db('wallet_activations').whereIn('wallet_id', walletIds).select('tx_hash')).map(
      (r: { tx_hash: string }) => r.tx_hash,
    );
    assert.equal(hashes.length, walletIds.length);
    const rows = await svc.deps.db('transactions').whereIn('hash', hashes).select('origin', 'hash');
    assert.deepEqual(
      rows.filter((r: { origin: string }) => r.origin !== 'activation'),
      [],
      'no activation recorded as anything but an activation',
    );
    assert.equal(new Set(rows.map((r: { hash: string }) => r.hash)).size, new Set(hashes).size, 'each one recorded');
    const history = await svc.deps
      .db('tx_history')
      .join('transactions', 'transactions.id', 'tx_history.transaction_id')
      .whereIn('tx_history.wallet_id', walletIds)
      .select('tx_history.wallet_id', 'tx_history.summary', 'transactions.origin');
    for (const walletId of walletIds) {
      const own = history.filter((h: { wallet_id: string }) => h.wallet_id === walletId);
      assert.deepEqual(
        own.map((h: { origin: string; summary: string }) => [h.origin, h.summary]),
        [['activation', own[0]?.summary]],
        `${walletId}: one activation row`,
      );
      assert.doesNotMatch(own[0]!.summary, /^Received 0/);
    }
    const received = await svc.deps
      .db('outbox_events')
      .where({ type: 'payment.received' })
      .whereRaw(`data->>'toWalletId' = any(?)`, [walletIds]);
    assert.deepEqual(received, [], 'no payment.received for an activation');
    // Each activation transaction is reported once as stellar.tx, with the raw data the ledger gave.
    const reported = await svc.deps
      .db('outbox_events')
      .where({ type: 'stellar.tx' })
      .whereRaw(`data->>'hash' = any(?)`, [hashes])
      .select('data');
    assert.deepEqual(
      reported.map((e: { data: { hash: string } }) => e.data.hash).sort(),
      [...new Set(hashes)].sort(),
      'one stellar.tx per activation transaction',
    );
    for (const { data } of reported as {
      data: { feeBump: boolean; resultXdr: string; operations: { type: string }[] };
    }[]) {
      assert.equal(data.feeBump, true);
      assert.ok(data.resultXdr.length > 0);
      assert.ok(data.operations.some((o) => o.type === 'createAccount'));
    }
  });
});
