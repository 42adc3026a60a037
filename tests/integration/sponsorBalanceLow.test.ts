// sponsor.balance.low on real PostgreSQL and the in-process localnet, with the clock pinned: an activation that leaves
// the funding wallet at or below its minimum reports it, further activations within 24 h do not, the first one after
// 24 h reports it again, and nothing is reported while the wallet is above its minimum (after a top-up).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Deps } from '../../src/domain/deps';
import { SYSTEM_ACTOR } from '../../src/domain/audit/auditLog';
import { LOW_BALANCE_REPEAT_MS, reportLowBalance } from '../../src/domain/funding/lowBalance';
import { fundUserWallet } from '../../src/domain/funding/funding';
import { fromStroops } from '../../src/domain/money/amounts';
import { startTestService, type TestService } from '../support/service';
import { appWithWallet, createAccountWith, gatewayOf, userWallet } from '../support/funding';

let svc: TestService;

before(async () => {
  svc = await startTestService({}, { closeLedgersEveryMs: 100 });
});
after(async () => {
  await svc?.stop();
});

const HOUR = 60 * 60 * 1000;

describe('sponsor.balance.low', () => {
  test('reported when an activation leaves the funding wallet at or below 50 XLM, again only after 24 h, never while above', async () => {
    // A global wallet (minimum 50 XLM) holding 52 XLM; each activation pays a 1 XLM starting balance plus the fee.
    const { app, appWallet } = await appWithWallet(svc, { funded: false, settings: { startingBalanceXlm: '1' } });
    await createAccountWith(svc, appWallet.publicKey, '52');
    // Pinned ahead of the ledger's clock (an activation's time bound is taken from it, so it must not lie behind).
    let now = Date.now() + HOUR;
    const deps: Deps = { ...svc.deps, clock: { now: () => new Date(now) } };
    const activate = async () =>
      fundUserWallet(deps, { app, wallet: await userWallet(svc, app), trigger: 'server_api', actor: SYSTEM_ACTOR });
    const reports = () =>
      svc.deps
        .db('outbox_events')
        .where({ app_id: app.id, type: 'sponsor.balance.low' })
        .orderBy('created_at')
        .select('data', 'created_at');
    const balance = async () => fromStroops((await gatewayOf(svc).loadAccount(appWallet.publicKey))!.balanceStroops);

    await activate(); // 52 -> ~51: above
    assert.deepEqual(await reports(), []);

    now += 60_000;
    await activate(); // ~51 -> ~50 minus fees: at or below
    const first = await reports();
    assert.equal(first.length, 1);
    assert.deepEqual(first[0].data, {
      walletType: 'global',
      address: appWallet.publicKey,
      balance: await balance(),
      threshold: '50',
      asset: 'native',
    });
    assert.equal(first[0].created_at.getTime(), now);
    const firstAt = now;

    now += 2 * HOUR;
    await activate(); // still low, 2 h later: not again
    now = firstAt + LOW_BALANCE_REPEAT_MS - 1000;
    await activate(); // still low, just under 24 h later: not again
    assert.equal((await reports()).length, 1);

    now = firstAt + LOW_BALANCE_REPEAT_MS + 1000;
    await activate(); // still low, over 24 h later: again
    const second = await reports();
    assert.equal(second.length, 2);
    assert.equal(second[1].created_at.getTime(), now);
    assert.equal(second[1].data.balance, await balance());

    // Topped up (friendbot pays 10,000 XLM): above the minimum, nothing more, however long it has been.
    await gatewayOf(svc).fundWithFriendbot(appWallet.publicKey);
    now += 3 * LOW_BALANCE_REPEAT_MS;
    await activate();
    assert.equal((await reports()).length, 2);
  });

  test('two readings of one low wallet recorded at once: one report', async () => {
    const { app, appWallet } = await appWithWallet(svc, { funded: false });
    const reading = {
      appId: app.id,
      walletType: 'global' as const,
      address: appWallet.publicKey,
      balanceStroops: 10n,
      thresholdXlm: '50',
      at: new Date(),
    };
    const recorded = await Promise.all(
      Array.from({ length: 5 }, () => svc.deps.db.transaction((trx) => reportLowBalance(svc.deps, trx, reading))),
    );
    assert.equal(recorded.filter(Boolean).length, 1);
    assert.equal((await svc.deps.db('outbox_events').where({ app_id: app.id, type: 'sponsor.balance.low' })).length, 1);
    // The same address in another role (a layout change) is reported on its own.
    assert.equal(
      await svc.deps.db.transaction((trx) => reportLowBalance(svc.deps, trx, { ...reading, walletType: 'funding' })),
      true,
    );
    // At the minimum exactly is low; one stroop above is not.
    const other = await appWithWallet(svc, { funded: false });
    const base = { ...reading, appId: other.app.id, address: other.appWallet.publicKey };
    assert.equal(
      await svc.deps.db.transaction((trx) =>
        reportLowBalance(svc.deps, trx, { ...base, balanceStroops: 500_000_001n }),
      ),
      false,
    );
    assert.equal(
      await svc.deps.db.transaction((trx) =>
        reportLowBalance(svc.deps, trx, { ...base, balanceStroops: 500_000_000n }),
      ),
      true,
    );
  });
});
