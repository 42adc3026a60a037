// Token distribution claims and kill -9 at full size (issue 19): the 1,000 claims of BENCH=distribution (500 users,
// allocation 300, 1 claim per user per hour, two API processes on one database, chain and data directory), and one of
// the two processes killed with SIGKILL in the middle of the burst, once its first claims are on their way to the
// chain. A replacement process starts; the recovery passes settle what the dead one left (paid when its envelope is in
// a ledger, released when it never was). Then every user without a paid claim claims again on the live processes,
// until the allocation is used up. Twice, a bank check: every claim settled, claimed_count equal to the paid claims,
// no user paid twice (rows and ledger), each paid claim's transaction in a ledger, no released claim's transaction
// ever applied, and the distribution wallet moved by exactly the paid claims. Anything else fails the bench.
// Results in bench/results/<date>-distribution-crash.md.
import { writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Db } from '../src/infra/db/database';
import type { StellarGateway } from '../src/infra/stellar/gateway';
import { projectRoot } from '../src/paths';
import { dpopProof } from '../tests/support/dpop';
import {
  ALLOCATION,
  AMOUNT_STROOPS,
  CHANNELS,
  LEDGER_MS,
  USERS,
  seed,
  startChild,
  withClaimDeployment,
  type BenchUser,
  type Child,
} from './distribution';
import { countBy, inChunks, sleep, usdcOf } from './payoutSupport';
import { NOT_RECORDED, SMOKE, sized } from './support';

interface Sent {
  user: number;
  status: number;
  code: string;
}

type Seeded = Awaited<ReturnType<typeof seed>>;

/** Claims reserved or submitted (in both processes) when process 1 is killed. */
const KILL_AT_OPEN = sized(40, 2);

/** One claim of `user` on `child`, with a proof signed now for that process's URL. */
async function claimOn(seeded: Seeded, child: Child, user: BenchUser, u: number): Promise<Sent> {
  const url = `${child.url}/v1/distribution/rules/${seeded.ruleId}/claim`;
  const proof = await dpopProof(user.key, {
    method: 'POST',
    url,
    accessToken: user.accessToken,
    nonce: seeded.nonce(),
  });
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'x-service-api-key': seeded.publishableKey,
        authorization: `DPoP ${user.accessToken}`,
        dpop: proof,
        'idempotency-key': randomUUID(),
      },
    });
    const body = (await res.json().catch(() => undefined)) as { code?: string } | undefined;
    return { user: u, status: res.status, code: body?.code ?? '(no body)' };
  } catch {
    return { user: u, status: 0, code: 'connection lost (process killed)' };
  }
}

const openClaims = async (db: Db, ruleId: string): Promise<number> =>
  Number(
    (
      await db('distribution_claims').where({ rule_id: ruleId }).whereIn('status', ['reserved', 'submitted']).count()
    )[0]!.count,
  );

/** The bank check (see the file comment); answers the paid claims' users. */
async function bankCheck(
  db: Db,
  gw: StellarGateway,
  seeded: Seeded,
  distributionBefore: bigint,
): Promise<{ paid: number; released: number; paidUsers: Set<string> }> {
  const rows: { user_id: string; status: string; tx_hash: string | null }[] = await db('distribution_claims')
    .where({ rule_id: seeded.ruleId })
    .select('user_id', 'status', 'tx_hash');
  const problems: string[] = [];
  const open = rows.filter((r) => r.status === 'reserved' || r.status === 'submitted').length;
  if (open) problems.push(`${open} claims are not settled`);
  const paid = rows.filter((r) => r.status === 'paid');
  const claimed = (await db('distribution_rules').where({ id: seeded.ruleId }).first('claimed_count')).claimed_count;
  if (claimed !== paid.length) problems.push(`claimed_count ${claimed} but ${paid.length} paid claims`);
  if (paid.length > ALLOCATION) problems.push(`${paid.length} paid claims exceed the allocation of ${ALLOCATION}`);
  const twice = [...countBy(paid.map((r) => r.user_id)).values()].filter((n) => n > 1).length;
  if (twice) problems.push(`${twice} users have two paid claims`);
  const hashes = new Set(paid.map((r) => r.tx_hash!));
  for (const hash of hashes)
    if ((await gw.transactionDetails(hash))?.status !== 'SUCCESS') problems.push(`paid claim's ${hash} is not applied`);
  const releasedSent = rows.filter((r) => r.status === 'released' && r.tx_hash);
  for (const hash of new Set(releasedSent.map((r) => r.tx_hash!)))
    if ((await gw.transactionDetails(hash))?.status === 'SUCCESS') problems.push(`released claim's ${hash} applied`);
  const moved = distributionBefore - (await usdcOf(gw, seeded.distribution, seeded.usdc));
  if (moved !== BigInt(paid.length) * AMOUNT_STROOPS)
    problems.push(`the distribution wallet moved ${moved} stroops for ${paid.length} paid claims`);
  const balances = await inChunks(seeded.users, 50, (u) => usdcOf(gw, u.publicKey, seeded.usdc));
  const over = balances.filter((b) => b > AMOUNT_STROOPS).length;
  if (over) problems.push(`${over} users hold more than one claim's amount on the ledger`);
  const paidUsers = new Set(paid.map((r) => r.user_id));
  const heldBy = seeded.users.filter((u, i) => (balances[i] === AMOUNT_STROOPS) !== paidUsers.has(u.userId)).length;
  if (heldBy) problems.push(`${heldBy} users' ledger balances disagree with their paid claims`);
  if (problems.length) throw new Error(`distribution-crash bench FAILED:\n- ${problems.join('\n- ')}`);
  return { paid: paid.length, released: rows.filter((r) => r.status === 'released').length, paidUsers };
}

export async function runDistributionCrash(): Promise<void> {
  // A 15 s payment window (the shortest allowed): a reservation the dead process left lapses, and an envelope it sent
  // is known dead, soon.
  await withClaimDeployment('distribution-crash', { ACTIVATION_TIMEOUT_SECONDS: '15' }, async (d) => {
    const { gw, db, shared, seeded, children } = d;
    const distributionBefore = await usdcOf(gw, seeded.distribution, seeded.usdc);
    console.log('starting 2 API processes (src/main.ts)...');
    children.push(...(await Promise.all([startChild(shared), startChild(shared)])));
    const [victim, survivor] = children as [Child, Child];

    // Phase 1: 1,000 claims at once (each user's first to the victim, second to the survivor); the victim is killed
    // once claims are on their way to the chain.
    console.log(`${USERS * 2} claims at once; process 1 is killed with SIGKILL mid-burst...`);
    const started = performance.now();
    const burst = Promise.all(
      seeded.users.flatMap((user, u) => [claimOn(seeded, victim, user, u), claimOn(seeded, survivor, user, u)]),
    );
    // Killed mid-burst: once KILL_AT_OPEN claims are reserved or submitted (in flight in both processes), so the dead
    // one leaves claims at every stage behind.
    const inFlight = (): Promise<{ id: string; status: string }[]> =>
      db('distribution_claims')
        .where({ rule_id: seeded.ruleId })
        .whereIn('status', ['reserved', 'submitted'])
        .select('id', 'status');
    let openAtKill = await inFlight();
    while (openAtKill.length < KILL_AT_OPEN) {
      if (performance.now() - started > 60_000) throw new Error(`not ${KILL_AT_OPEN} claims in flight within 60 s`);
      await sleep(10);
      openAtKill = await inFlight();
    }
    const atKill = countBy(
      (await db('distribution_claims').where({ rule_id: seeded.ruleId }).select('status')).map(
        (r) => r.status as string,
      ),
    );
    victim.process.kill('SIGKILL');
    const killedAt = (performance.now() - started) / 1000;
    const answers = await burst;
    console.log('a replacement process starts; the recovery passes settle what the dead one left...');
    const replacement = await startChild(shared);
    children.push(replacement);
    const restartedAt = (performance.now() - started) / 1000;
    while ((await openClaims(db, seeded.ruleId)) > 0) {
      if (performance.now() - started > 180_000) throw new Error('claims were still open 180 s after the burst');
      await sleep(250);
    }
    const settledAt = (performance.now() - started) / 1000;
    const first = await bankCheck(db, gw, seeded, distributionBefore);
    const inFlightEnded = countBy(
      (
        await db('distribution_claims')
          .whereIn(
            'id',
            openAtKill.map((c) => c.id),
          )
          .select('status', 'failure_code')
      ).map((r) => `${r.status as string}${r.failure_code ? ` (${r.failure_code as string})` : ''}`),
    );
    console.log(`after the crash: ${first.paid} paid, ${first.released} released; the bank check holds`);

    // Phase 2: every user without a paid claim claims again, alternating the two live processes, until the
    // allocation is used up.
    const unpaid = seeded.users.map((user, u) => ({ user, u })).filter(({ user }) => !first.paidUsers.has(user.userId));
    const again = await Promise.all(
      unpaid.map(({ user, u }, i) => claimOn(seeded, i % 2 === 0 ? survivor : replacement, user, u)),
    );
    while ((await openClaims(db, seeded.ruleId)) > 0) await sleep(250);
    const final = await bankCheck(db, gw, seeded, distributionBefore);
    if (final.paid !== ALLOCATION)
      throw new Error(`distribution-crash bench FAILED: ${final.paid} paid, not ${ALLOCATION}`);
    const wallS = (performance.now() - started) / 1000;

    const text = (sent: Sent[]) =>
      [...countBy(sent.map((a) => `${a.status} ${a.code}`))].map(([k, n]) => `${n} x ${k}`).join(', ');
    const date = new Date().toISOString().slice(0, 10);
    const report = [
      `# Token distribution: ${USERS * 2} claims with kill -9 mid-burst (${date})`,
      '',
      `Command: \`BENCH=distribution-crash make bench\` (bench/distributionCrash.ts). The set-up of \`BENCH=distribution\` (${USERS} users activated with the demo USDC, a rule of 1 USDC, totalAllocation ${ALLOCATION}, 1 claim per user per hour, two \`src/main.ts\` processes on one embedded PostgreSQL, data directory and localnet closing a ledger every ${LEDGER_MS / 1000} s, ACTIVATION_CHANNELS=${CHANNELS}), with ACTIVATION_TIMEOUT_SECONDS=15. All ${USERS * 2} claims sent at once (each user's first to process 1, second to process 2); process 1 killed with SIGKILL as soon as ${KILL_AT_OPEN} claims were reserved or submitted (in flight); a replacement process started at once.`,
      `Machine: ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}; load generator and localnet in the bench's process.`,
      '',
      '| measure | result |',
      '|---|---|',
      `| killed | process 1 at +${killedAt.toFixed(2)} s, with ${openAtKill.length} claims in flight; claims then ${JSON.stringify([...atKill])} |`,
      `| the claims in flight at the kill, settled | ${JSON.stringify([...inFlightEnded])} |`,
      `| burst answers | ${text(answers)} |`,
      `| replacement up; every claim settled | +${restartedAt.toFixed(2)} s; +${settledAt.toFixed(2)} s |`,
      `| bank check after the crash | passed: ${first.paid} paid, ${first.released} released (given back to the allocation), claimed_count = paid, no user paid twice, each paid transaction applied, no released one applied, the distribution wallet moved exactly ${first.paid} USDC |`,
      `| claims again by the ${unpaid.length} users without a paid claim | ${text(again)} |`,
      `| final bank check | passed: exactly ${final.paid} paid of the allocation of ${ALLOCATION}, every user holds 0 or 1 USDC as their claims say, the distribution wallet moved exactly ${final.paid} USDC |`,
      `| wall time, burst to the end of phase 2 | ${wallS.toFixed(1)} s |`,
      '',
    ].join('\n');
    console.log(report);
    if (SMOKE) {
      console.log(NOT_RECORDED);
    } else {
      const file = join(projectRoot, 'bench', 'results', `${date}-distribution-crash.md`);
      writeFileSync(file, report);
      console.log(`written: ${file}`);
    }
  });
}
