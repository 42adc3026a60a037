// The periodic sponsor balance scan on real PostgreSQL and the in-process localnet, with the clock pinned: a low app
// wallet is reported on the first pass, not again within 24 h, again after 24 h, never once topped up; a wallet above
// its minimum never; a wallet without an account reads 0; the split layout's gas and distribution wallets are read
// at their own minimums, and the rows a join leaves behind (accounts merged away) are not. The clock is pinned weeks
// ahead of the real one, so that a scan the service itself runs (real clock) neither hides nor adds to these events.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import type { Deps } from '../../src/domain/deps';
import { archiveApp } from '../../src/domain/apps/store';
import { SYSTEM_ACTOR } from '../../src/domain/audit/auditLog';
import { LOW_BALANCE_REPEAT_MS } from '../../src/domain/funding/lowBalance';
import { scanSponsorBalances } from '../../src/domain/funding/lowBalanceScan';
import { periodicJobs } from '../../src/jobs/registry';
import { startWorkers } from '../../src/jobs/worker';
import { setTreasuryLayout } from '../../src/domain/treasury/treasury';
import { listAppWallets } from '../../src/domain/wallets/store';
import { fromStroops } from '../../src/domain/money/amounts';
import { StellarUnavailableError } from '../../src/infra/stellar/errors';
import type { StellarGateway } from '../../src/infra/stellar/gateway';
import { startTestService, type TestService } from '../support/service';
import { appWithWallet, createAccountWith, eventually, gatewayOf } from '../support/funding';

let svc: TestService;

before(async () => {
  svc = await startTestService({}, { closeLedgersEveryMs: 100 });
});
after(async () => {
  await svc?.stop();
});

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;

/** The app's sponsor.balance.low events recorded at or after `since` (the pinned clock's start), oldest first. */
async function reports(appId: string, since: number): Promise<{ data: any; created_at: Date }[]> {
  return svc.deps
    .db('outbox_events')
    .where({ app_id: appId, type: 'sponsor.balance.low' })
    .where('created_at', '>=', new Date(since))
    .orderBy('created_at')
    .select('data', 'created_at');
}

/** Every app's events recorded exactly at `at`: what one pass at that pinned time recorded. */
async function recordedAt(at: number): Promise<number> {
  const rows = await svc.deps
    .db('outbox_events')
    .where({ type: 'sponsor.balance.low', created_at: new Date(at) })
    .count({ count: '*' });
  return Number(rows[0]?.count ?? 0);
}

/** The service's deps with the clock at `at()`, and one testnet gateway replaced when given. */
function depsAt(at: () => number, gateway?: StellarGateway): Deps {
  const base = { ...svc.deps, clock: { now: () => new Date(at()) } };
  return gateway ? { ...base, stellar: { ...svc.deps.stellar!, gateways: { testnet: gateway } } } : base;
}

describe('sponsor balance scan', () => {
  test('a low wallet: reported on the first pass, not within 24 h, again after, never once topped up; above: never; no account: 0', async () => {
    const low = await appWithWallet(svc, { funded: false });
    await createAccountWith(svc, low.appWallet.publicKey, '20');
    const high = await appWithWallet(svc); // 10,000 XLM from friendbot
    const missing = await appWithWallet(svc, { funded: false }); // no account on the ledger
    const archived = await appWithWallet(svc, { funded: false });
    await archiveApp(svc.deps.db, archived.app.id);

    const start = Date.now() + 30 * DAY;
    let now = start;
    const deps = depsAt(() => now);
    const pass = async () => {
      const n = await scanSponsorBalances(deps);
      assert.equal(n, await recordedAt(now), 'the pass answers how many events it recorded');
      return n;
    };

    assert.ok((await pass()) >= 2);
    const [lowFirst] = await reports(low.app.id, start);
    assert.deepEqual(lowFirst?.data, {
      walletType: 'global',
      address: low.appWallet.publicKey,
      balance: '20',
      threshold: '50',
      asset: 'native',
    });
    assert.equal(lowFirst.created_at.getTime(), start);
    const [missingFirst] = await reports(missing.app.id, start);
    assert.deepEqual(missingFirst?.data, {
      walletType: 'global',
      address: missing.appWallet.publicKey,
      balance: '0',
      threshold: '50',
      asset: 'native',
    });

    now = start + HOUR;
    assert.equal(await pass(), 0);
    now = start + LOW_BALANCE_REPEAT_MS - 1000;
    assert.equal(await pass(), 0);
    assert.equal((await reports(low.app.id, start)).length, 1);

    now = start + LOW_BALANCE_REPEAT_MS + 1000;
    assert.ok((await pass()) >= 2);
    const lowAgain = await reports(low.app.id, start);
    assert.equal(lowAgain.length, 2);
    assert.equal(lowAgain[1]!.created_at.getTime(), now);
    assert.equal((await reports(missing.app.id, start)).length, 2);

    // Topped up above the minimum: not reported however long it has been, while the account-less one still is.
    await gatewayOf(svc).fundWithFriendbot(low.appWallet.publicKey);
    now += 3 * LOW_BALANCE_REPEAT_MS;
    await pass();
    assert.equal((await reports(low.app.id, start)).length, 2);
    assert.equal((await reports(missing.app.id, start)).length, 3);

    assert.deepEqual(await reports(high.app.id, start), []);
    assert.deepEqual(await reports(archived.app.id, start), []);
  });

  test('split layout: the gas and distribution wallets at their own minimums; after a join only the global wallet is read', async () => {
    const { app } = await appWithWallet(svc); // funded from friendbot: far above the funding minimum after the split
    await setTreasuryLayout(svc.deps, { app, layout: 'split', actor: SYSTEM_ACTOR });
    const wallets = await listAppWallets(svc.deps.db, app.id);
    const gas = wallets.find((w) => w.role === 'gas')!;
    const distribution = wallets.find((w) => w.role === 'distribution')!;
    const gasBalance = fromStroops((await gatewayOf(svc).loadAccount(gas.publicKey))!.balanceStroops);

    const start = Date.now() + 60 * DAY;
    let now = start;
    await scanSponsorBalances(depsAt(() => now));
    const split = (await reports(app.id, start)).map((r) => r.data);
    assert.deepEqual(
      split.sort((a, b) => a.walletType.localeCompare(b.walletType)),
      [
        { walletType: 'distribution', address: distribution.publicKey, balance: '0', threshold: '1', asset: 'native' },
        { walletType: 'gas', address: gas.publicKey, balance: gasBalance, threshold: '10', asset: 'native' },
      ],
    );

    // Joined: the gas and distribution rows stay (their accounts are merged into the global wallet), unread.
    await setTreasuryLayout(svc.deps, { app, layout: 'single', actor: SYSTEM_ACTOR });
    assert.equal((await listAppWallets(svc.deps.db, app.id)).length, 3);
    now = start + 2 * LOW_BALANCE_REPEAT_MS;
    await scanSponsorBalances(depsAt(() => now));
    assert.equal((await reports(app.id, start)).length, 2);
  });

  test('an unreachable RPC: the pass is skipped with a warning, nothing recorded, nothing thrown', async () => {
    const { app } = await appWithWallet(svc, { funded: false });
    const logged: any[] = [];
    const log = pino({ level: 'warn' }, { write: (line: string) => void logged.push(JSON.parse(line)) });
    const down: StellarGateway = {
      ...gatewayOf(svc),
      loadAccounts: async () => {
        throw new StellarUnavailableError('connect ECONNREFUSED');
      },
    };
    const start = Date.now() + 90 * DAY;
    assert.equal(await scanSponsorBalances({ ...depsAt(() => start, down), log }), 0);
    assert.deepEqual(await reports(app.id, start), []);
    assert.equal(logged.length, 1);
    assert.equal(logged[0].level, 40);
    assert.match(logged[0].msg, /skipping this pass/);
  });

  test('the job: a pass at once, again every period, a failed pass logged (not thrown), stop waits for a pass', async () => {
    const { app } = await appWithWallet(svc, { funded: false });
    const start = Date.now() + 120 * DAY;
    const real = gatewayOf(svc);
    let reads = 0;
    let failNext = true;
    let inRead = false;
    const flaky: StellarGateway = {
      ...real,
      loadAccounts: async (addresses) => {
        reads += 1;
        inRead = true;
        try {
          await new Promise((r) => setTimeout(r, 100));
          if (failNext) {
            failNext = false;
            throw new Error('boom');
          }
          return await real.loadAccounts(addresses);
        } finally {
          inRead = false;
        }
      },
    };
    const logged: any[] = [];
    const log = pino({ level: 'info' }, { write: (line: string) => void logged.push(JSON.parse(line)) });
    // The registry's job under a name of its own (the service's chain of the real job is left alone), every 50 ms.
    const registered = periodicJobs.find((job) => job.name === 'sponsor-balance-scan')!;
    const job = { ...registered, name: 'sponsor-balance-scan-test', everyMs: () => 50, firstDelayMs: () => 0 };
    const stop = await startWorkers({ ...depsAt(() => start, flaky), log }, svc.deps.jobs, { jobs: [job] });
    try {
      // The first pass fails (logged as an error), the next one reports the account-less wallet.
      await eventually('the scan reports the wallet', async () => (await reports(app.id, start)).length === 1);
      assert.ok(logged.some((l) => l.level === 50 && l.msg === 'sponsor-balance-scan-test pass failed'));
      // Later passes within 24 h record nothing more.
      const before = reads;
      await eventually('two more passes', async () => reads >= before + 2);
      assert.equal((await reports(app.id, start)).length, 1);
    } finally {
      await eventually('a pass is reading', async () => inRead, 5_000);
      await stop();
    }
    assert.equal(inRead, false, 'stop waited for the running pass');
    const stoppedAt = reads;
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(reads, stoppedAt, 'no pass after stop');
  });
});
