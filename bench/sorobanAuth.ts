// Signed auth entries (issue 18): what the service adds to signing one Soroban authorization entry for a user's
// custodial wallet (signAuthEntry in src/domain/sorobanAuth/entries.ts: decode, the address, the app's enabled
// allowlist rows from PostgreSQL, the latest ledger from Stellar RPC, the KMS unwrap with its audit row, then the
// SDK's authorizeEntry), against the floor every signer pays: the SDK's authorizeEntry with a key already in memory
// (decode, sign, encode). Measured interleaved in the same run, in process (no HTTP: the request gate has its own
// benches), one call at a time, each on a fresh entry (its own nonce).
// Results in bench/results/<date>-soroban-auth.md.
import { cpus, totalmem } from 'node:os';
import { authorizeEntry, Keypair, xdr } from '@stellar/stellar-sdk';
import { SYSTEM_ACTOR } from '../src/domain/audit/auditLog';
import { createOperator } from '../src/domain/apps/store';
import { createPolicyRow } from '../src/domain/sorobanAuth/policyRows';
import { signAuthEntry } from '../src/domain/sorobanAuth/entries';
import { findOrCreateUser } from '../src/domain/users/users';
import { createAppWithWallet } from '../src/domain/wallets/appWallets';
import { createWallet } from '../src/domain/wallets/custody';
import { findWallet } from '../src/domain/wallets/store';
import { installContract, unsignedEntry } from '../tests/support/sorobanAuth';
import { percentile, recordReport, sized, withService } from './support';

const SAMPLES = Number(process.env.BENCH_SOROBAN_SAMPLES ?? sized(500, 5));
const WARM_UP = sized(20, 1);

export async function runSorobanAuth(): Promise<void> {
  const { service, baseline, rows } = await withService('soroban-auth', {}, async (svc) => {
    const operator = await createOperator(svc.deps.db, { email: `bench-soroban-${Date.now()}@example.com` });
    const { app } = await createAppWithWallet(svc.deps, {
      name: 'Bench soroban app',
      network: 'testnet',
      ownerOperatorId: operator.id,
    });
    const user = await findOrCreateUser(svc.deps.db, {
      appId: app.id,
      identity: { provider: 'email', subject: 'bench-soroban@example.com', email: 'bench-soroban@example.com' },
      now: new Date(),
    });
    const created = await createWallet(svc.deps, { appId: app.id, network: app.network, userId: user.id });
    const wallet = (await findWallet(svc.deps.db, created.wallet.id))!;
    // A realistic allowlist: a few rows, the matching one last; the entry's tree has a sub-invocation.
    const token = installContract(svc, ['transfer', 'approve', 'balance']);
    const game = installContract(svc, ['play', 'claim']);
    const ctx = { actor: SYSTEM_ACTOR, at: new Date() };
    for (const [contract, functions] of [
      [installContract(svc, ['swap']), ['swap']],
      [token, ['transfer']],
      [game, ['play']],
    ] as const) {
      await createPolicyRow(svc.deps, app, { contract, functions: [...functions] }, ctx);
    }
    const passphrase = svc.deps.stellar!.gateways!.testnet!.networkPassphrase;
    const memoryKey = Keypair.random();
    const latest = (await svc.deps.stellar!.gateways!.testnet!.ledgerFigures()).sequence;
    const entryFor = (address: string) =>
      unsignedEntry(address, { contract: game, fn: 'play', sub: [{ contract: token, fn: 'transfer' }] });

    const service: number[] = [];
    const baseline: number[] = [];
    for (let i = 0; i < SAMPLES + WARM_UP; i++) {
      const mine = entryFor(wallet.publicKey);
      let started = performance.now();
      await signAuthEntry(svc.deps, { app, wallet, entry: mine, actor: { type: 'user', id: user.id } });
      const s = performance.now() - started;
      const bare = entryFor(memoryKey.publicKey());
      started = performance.now();
      const signed = await authorizeEntry(
        xdr.SorobanAuthorizationEntry.fromXDR(bare, 'base64'),
        memoryKey,
        latest + 120,
        passphrase,
      );
      signed.toXDR('base64');
      const b = performance.now() - started;
      if (i >= WARM_UP) {
        service.push(s);
        baseline.push(b);
      }
      if ((i + 1) % 100 === 0) console.log(`  ${i + 1}/${SAMPLES + WARM_UP}`);
    }
    const audited = await svc.deps.db('audit_log').where({ action: 'key.decrypt' }).count<{ count: string }[]>();
    return { service, baseline, rows: Number(audited[0]?.count ?? 0) };
  });
  const s50 = percentile(service, 50);
  const s99 = percentile(service, 99);
  const b50 = percentile(baseline, 50);
  const b99 = percentile(baseline, 99);
  console.log(
    `signAuthEntry p50 ${s50.toFixed(2)} ms, p99 ${s99.toFixed(2)} ms; bare authorizeEntry p50 ${b50.toFixed(2)} ms, p99 ${b99.toFixed(2)} ms`,
  );

  const date = new Date().toISOString().slice(0, 10);
  const report = [
    `# Signed Soroban auth entries: signAuthEntry vs a bare authorizeEntry (${date})`,
    '',
    `Command: \`BENCH=soroban-auth make bench\` (bench/sorobanAuth.ts). The real service (startService) with embedded PostgreSQL, local key management and its in-process localnet; the domain call in process (no HTTP). ${SAMPLES} samples after ${WARM_UP} warm-up calls, interleaved with the baseline, one at a time, each on a fresh entry (root \`play\` on one contract with a \`transfer\` sub-invocation on another; the app has three allowlist rows). Audit rows of key decrypts written: ${rows.toLocaleString('en-US')}.`,
    `Machine: ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}.`,
    '',
    '| measure | p50 | p99 |',
    '|---|---|---|',
    `| signAuthEntry (decode + address + allowlist read + latest ledger from RPC + KMS unwrap and audit + authorizeEntry) | ${s50.toFixed(2)} ms | ${s99.toFixed(2)} ms |`,
    `| baseline: authorizeEntry with the key in memory (decode + sign + encode) | ${b50.toFixed(2)} ms | ${b99.toFixed(2)} ms |`,
    `| ratio | ${(s50 / b50).toFixed(1)}x | ${(s99 / b99).toFixed(1)}x |`,
    '',
    'Reading: the difference is custody and policy: the allowlist read (one indexed query), the latest ledger (one RPC',
    'call, needed to bound the expiration), and the key unwrap with its audit row (one KMS call and one insert). The',
    'signature itself is the same work in both.',
    '',
  ].join('\n');
  recordReport(`${date}-soroban-auth.md`, report);
}
