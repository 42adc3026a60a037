// A distribution push to 10,000 recipients (issue 19): how many recipients the service pays per ledger against what
// the chain allows. localnet applies at most 1,000 operations per ledger (src/localnet/engine/ledger.ts maxTxSetSize,
// as stellar-core counts them: a fee-bump is its inner operations + 1), a transaction carries at most 100, and one
// source account has one transaction per ledger; a payment to a wallet that already trusts the asset is one operation.
// So fee-bumped payments fill a ledger at 990 (ten transactions of 99 + their ten fee-bump slots).
//   set-up   the service in this process (startService: embedded PostgreSQL, its own localnet with a ledger every
//            1 s, ACTIVATION_CHANNELS=20, DISTRIBUTION_CHANNELS=10), an app funded from friendbot with the demo USDC,
//            10,000 users with custodial wallets activated (USDC trustline included) and a secret key;
//   measure  createServerDistributionPush over HTTP with the 10,000 user ids (1 USDC each), then
//            getServerDistributionPush polled until `completed`; the recipients' ledgers read from the recorded
//            transactions; every recipient `paid`, the distribution wallet moved by exactly 10,000 USDC, every user
//            holds exactly 1 USDC on the ledger (else the bench fails);
//   baseline the same 10,000 payments of 1 USDC sent directly in the same run: a fresh account holding demo USDC pays
//            them in transactions of 100 from 10 source accounts, 10 transactions submitted at once per ledger.
// Results in bench/results/<date>-distribution-push.md.
import { writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { createApiKey } from '../src/domain/apiKeys/apiKeys';
import { createOperator, findApp, updateAppSettings, type App } from '../src/domain/apps/store';
import { issueDemoUsdc } from '../src/domain/treasury/demoUsdc';
import { fundAppWalletFromFriendbot } from '../src/domain/treasury/treasury';
import { createAppWithWallet } from '../src/domain/wallets/appWallets';
import { appWalletFor } from '../src/domain/wallets/treasuryWallets';
import { projectRoot } from '../src/paths';
import {
  BASELINE_OPS_PER_TX,
  activatedUsers,
  baselineAccounts,
  baselineTransactions,
  countBy,
  inChunks,
  perLedgerText,
  sleep,
  usdcOf,
} from './payoutSupport';
import { NOT_RECORDED, SMOKE, percentile, sized, withService } from './support';

const RECIPIENTS = Number(process.env.BENCH_PUSH_RECIPIENTS ?? sized(10_000, 20));
const AMOUNT = '1';
const AMOUNT_STROOPS = 10_000_000n;
const PAYOUT_CHANNELS = Number(process.env.BENCH_PUSH_CHANNELS ?? sized(20, 2));
/** Channel accounts for the recipients' activations. */
const ACTIVATION_CHANNELS = sized(20, 2);
/** The localnet's ledger interval: the set-up and the push wait for a few closes, which a smoke run makes short. */
const LEDGER_SECONDS = sized(1, 0.25);
const OPS_PER_LEDGER = 1000;
/** Fee-bumped payments a ledger holds: 10 transactions of 99 payments, each counting 99 + 1 of the 1,000. */
const PAYMENTS_PER_LEDGER_CAP = 990;

interface Progress {
  at: number;
  paid: number;
  submitted: number;
  pending: number;
  failed: number;
}

export async function runDistributionPush(): Promise<void> {
  const env = {
    LOCALNET_LEDGER_SECONDS: String(LEDGER_SECONDS),
    ACTIVATION_CHANNELS: String(ACTIVATION_CHANNELS),
    DISTRIBUTION_CHANNELS: String(PAYOUT_CHANNELS),
    RATE_LIMIT_PER_KEY_PER_MINUTE: '1000000000',
    TESTNET_DAILY_QUOTA: '1000000000',
  };
  await withService('distribution-push', env, async (svc) => {
    const { db } = svc.deps;
    const gw = svc.deps.stellar!.gateways!.testnet!;
    const operator = await createOperator(db, { email: `bench-push-${Date.now()}@example.com` });
    const { app: created } = await createAppWithWallet(svc.deps, {
      name: 'Bench push app',
      network: 'testnet',
      ownerOperatorId: operator.id,
    });
    await updateAppSettings(db, created.id, { fundingMode: 'immediate' });
    if (!(await fundAppWalletFromFriendbot(svc.deps, created)))
      throw new Error('friendbot did not fund the app wallet');
    const { asset: usdc, issuer } = await issueDemoUsdc(svc.deps, created);
    const app: App = (await findApp(db, created.id))!;
    const secret = await createApiKey(db, { appId: app.id, type: 'secret', network: 'testnet', label: 'bench secret' });
    const users = await activatedUsers(svc.deps, { app, usdc, count: RECIPIENTS, emailPrefix: 'bench-push' });
    const distribution = (await appWalletFor(db, app.id, app.network, 'distribution'))!.publicKey;
    const distributionBefore = await usdcOf(gw, distribution, usdc);
    const url = svc.url;
    const headers = { 'x-service-api-key': secret.key, 'content-type': 'application/json' };

    console.log(`a push to ${RECIPIENTS} users...`);
    const body = JSON.stringify({
      name: 'Bench airdrop',
      asset: usdc,
      amount: AMOUNT,
      recipients: { userIds: users.map((u) => u.userId) },
    });
    const ledgerAtStart = (await gw.ledgerFigures()).sequence;
    const started = performance.now();
    const createdRes = await fetch(`${url}/v1/distribution-pushes`, { method: 'POST', headers, body });
    const createMs = performance.now() - started;
    const createdBody = (await createdRes.json()) as { content?: { pushId: string }; code?: string };
    if (createdRes.status !== 201)
      throw new Error(`createServerDistributionPush answered ${createdRes.status}: ${JSON.stringify(createdBody)}`);
    const pushId = createdBody.content!.pushId;
    const progress: Progress[] = [];
    let pollMs: number[] = [];
    for (;;) {
      const t0 = performance.now();
      const res = await fetch(`${url}/v1/distribution-pushes/${pushId}`, { headers });
      pollMs.push(performance.now() - t0);
      const push = ((await res.json()) as { content: { status: string; counts: Record<string, number> } }).content;
      progress.push({ at: (performance.now() - started) / 1000, ...(push.counts as unknown as Omit<Progress, 'at'>) });
      if (push.status === 'completed') break;
      if (performance.now() - started > 15 * 60_000) throw new Error('the push did not complete within 15 minutes');
      await sleep(500);
    }
    const wallMs = performance.now() - started;
    pollMs = pollMs.sort((a, b) => a - b);

    // The database and the chain
    const rows: { status: string; failure_code: string | null; ledger: number | null; tx_hash: string | null }[] =
      await db('distribution_push_recipients as r')
        .leftJoin('transactions as t', 't.id', 'r.tx_id')
        .where('r.push_id', pushId)
        .select('r.status', 'r.failure_code', 't.ledger', 'r.tx_hash');
    const byStatus = countBy(rows.map((r) => `${r.status}${r.failure_code ? ` ${r.failure_code}` : ''}`));
    const paid = rows.filter((r) => r.status === 'paid');
    const perLedger = countBy(paid.map((r) => r.ledger!));
    const txPerLedger = countBy([...new Map(paid.map((r) => [r.tx_hash!, r.ledger!])).values()]);
    const ledgers = [...perLedger.keys()].sort((a, b) => a - b);
    const firstLedger = ledgers[0]!;
    const lastLedger = ledgers.at(-1)!;
    const span = lastLedger - firstLedger + 1;
    const counts = [...perLedger.values()];
    const moved = distributionBefore - (await usdcOf(gw, distribution, usdc));
    const balances = await inChunks(users, 50, (u) => usdcOf(gw, u.wallet.publicKey, usdc));
    const wrong = balances.filter((b) => b !== AMOUNT_STROOPS).length;
    const problems: string[] = [];
    if (paid.length !== RECIPIENTS)
      problems.push(`${paid.length} recipients paid, not ${RECIPIENTS}: ${JSON.stringify([...byStatus])}`);
    if (moved !== BigInt(RECIPIENTS) * AMOUNT_STROOPS) problems.push(`the distribution wallet moved ${moved} stroops`);
    if (wrong) problems.push(`${wrong} users do not hold exactly ${AMOUNT} USDC`);
    if (problems.length) throw new Error(`distribution-push bench FAILED:\n- ${problems.join('\n- ')}`);
    console.log(
      `push: ${paid.length} paid in ${(wallMs / 1000).toFixed(1)} s over ledgers ${firstLedger}-${lastLedger}; per ledger ${perLedgerText(perLedger)}`,
    );

    // Baseline: the same payments sent directly, 10 transactions of 100 per ledger.
    const destinations = users.map((u) => u.wallet.publicKey);
    console.log(
      `baseline: ${destinations.length} payments in transactions of ${BASELINE_OPS_PER_TX}, ${PAYOUT_CHANNELS} a ledger...`,
    );
    const { holder, sources } = await baselineAccounts(gw, {
      usdc,
      issuer,
      amount: String(destinations.length),
      sources: PAYOUT_CHANNELS,
    });
    const basePerLedger = new Map<number, number>();
    const baseStarted = performance.now();
    const perRound = PAYOUT_CHANNELS * BASELINE_OPS_PER_TX;
    for (let i = 0; i < destinations.length; i += perRound) {
      const txs = await baselineTransactions(gw, {
        usdc,
        holder,
        sources,
        destinations: destinations.slice(i, i + perRound),
        amount: AMOUNT,
      });
      const confirmed = await Promise.all(txs.map((tx) => gw.submitAndConfirm(tx)));
      confirmed.forEach((c, t) =>
        basePerLedger.set(c.ledger, (basePerLedger.get(c.ledger) ?? 0) + txs[t]!.operations.length),
      );
    }
    const baseWallMs = performance.now() - baseStarted;
    const baseLedgers = [...basePerLedger.keys()];
    const baseSpan = Math.max(...baseLedgers) - Math.min(...baseLedgers) + 1;
    const holderLeft = await usdcOf(gw, holder.publicKey(), usdc);
    if (holderLeft !== 0n) throw new Error(`the baseline holder still holds ${holderLeft} stroops`);

    // Figures
    const meanPerLedger = RECIPIENTS / span;
    const basePerLedgerMean = destinations.length / baseSpan;
    const full = counts.filter((n) => n >= PAYMENTS_PER_LEDGER_CAP).length;
    const milestones = [0.25, 0.5, 0.75, 1].map((share) => {
      const hit = progress.find((p) => p.paid >= share * RECIPIENTS);
      return `${share * 100}% paid at +${hit?.at.toFixed(1) ?? '?'} s`;
    });
    const date = new Date().toISOString().slice(0, 10);
    const report = [
      `# Token distribution: a push to ${RECIPIENTS} recipients (${date})`,
      '',
      `Command: \`BENCH=distribution-push make bench\` (bench/distributionPush.ts). The service in the bench's process (startService on embedded PostgreSQL, its localnet closing a ledger every ${LEDGER_SECONDS} s), ACTIVATION_CHANNELS=${ACTIVATION_CHANNELS}, DISTRIBUTION_CHANNELS=${PAYOUT_CHANNELS}. Seeded through the domain: an app funded from friendbot with the demo USDC, ${RECIPIENTS} users with custodial wallets activated (USDC trustline at activation), a secret key. One createServerDistributionPush over HTTP naming the ${RECIPIENTS} user ids, ${AMOUNT} USDC each, then getServerDistributionPush every 0.5 s until \`completed\`.`,
      `Machine: ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}; the service, its localnet and the load in one process.`,
      '',
      '| measure | result |',
      '|---|---|',
      `| recipients paid (must be ${RECIPIENTS}) | ${paid.length} (${JSON.stringify([...byStatus])}); every user holds exactly ${AMOUNT} USDC on the ledger; the distribution wallet moved ${moved / AMOUNT_STROOPS} USDC |`,
      `| createServerDistributionPush (${RECIPIENTS} ids, ${(body.length / 1024).toFixed(0)} KiB body: resolve, store ${RECIPIENTS} rows, audit) | ${createMs.toFixed(0)} ms |`,
      `| getServerDistributionPush while paying, p50 / p99 | ${percentile(pollMs, 50).toFixed(1)} ms / ${percentile(pollMs, 99).toFixed(1)} ms (${pollMs.length} polls) |`,
      `| wall time, request to \`completed\` | ${(wallMs / 1000).toFixed(1)} s (${milestones.join(', ')}) |`,
      `| ledgers spanned by the payments | ${span} (${firstLedger}-${lastLedger}; the request went at ledger ${ledgerAtStart}) |`,
      `| recipients per ledger | ${perLedgerText(perLedger)} |`,
      `| transactions per ledger | ${perLedgerText(txPerLedger)} |`,
      `| recipients per ledger: mean over the span / median of paying ledgers / best | ${meanPerLedger.toFixed(0)} / ${percentile(counts, 50)} / ${Math.max(...counts)}; ledgers at the cap: ${full} of ${counts.length} |`,
      `| the chain's limit | ${OPS_PER_LEDGER} operations per ledger, a fee-bump counting its inner operations + 1: ${PAYMENTS_PER_LEDGER_CAP} fee-bumped payments (each recipient one payment: the trustlines came at activation) |`,
      `| share of the limit (mean over the span / median ledger) | ${((100 * meanPerLedger) / PAYMENTS_PER_LEDGER_CAP).toFixed(0)}% / ${((100 * percentile(counts, 50)) / PAYMENTS_PER_LEDGER_CAP).toFixed(0)}% |`,
      `| baseline: the same ${destinations.length} payments sent directly, ${PAYOUT_CHANNELS} transactions of ${BASELINE_OPS_PER_TX} submitted at once and confirmed, round after round | ${(baseWallMs / 1000).toFixed(1)} s over ${baseSpan} ledgers (mean ${basePerLedgerMean.toFixed(0)} per ledger; ${perLedgerText(basePerLedger)}) |`,
      `| ratio: push wall time / baseline's; recipients per ledger push / baseline | ${(wallMs / baseWallMs).toFixed(2)}x; ${(meanPerLedger / basePerLedgerMean).toFixed(2)} |`,
      '',
      `Progress (paid / submitted / pending by time): ${progress
        .filter((_, i) => i % 4 === 0)
        .map((p) => `+${p.at.toFixed(1)} s ${p.paid}/${p.submitted}/${p.pending}`)
        .join(', ')}`,
      '',
    ].join('\n');
    console.log(report);
    if (SMOKE) {
      console.log(NOT_RECORDED);
    } else {
      const file = join(projectRoot, 'bench', 'results', `${date}-distribution-push.md`);
      writeFileSync(file, report);
      console.log(`written: ${file}`);
    }
  });
}
