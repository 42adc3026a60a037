// Sponsored transactions (issue 7): what the service adds on the server side to one runTransaction (build: chain reads
// + record; sign: KMS unwrap + audit; policy: policy, gas balance, daily count; fee-bump: KMS unwrap + audit; record
// the intent; submit: sendTransaction), without the wait for the ledger (TX_CONFIRM_WAIT_MS=0: it answers `pending`
// as soon as the RPC accepts the transaction).
// Baseline, measured interleaved in the same run: a bare sendTransaction of an equivalent fee-bump built and signed in
// memory (the RPC round trip every submission pays anyway). Each sample uses its own source account, so no two
// transactions wait on one sequence number.
// Results in bench/results/<date>-transactions.md.
import { cpus, totalmem } from 'node:os';
import { Account, Asset, Keypair, Operation, TransactionBuilder } from '@stellar/stellar-sdk';
import { SYSTEM_ACTOR } from '../src/domain/audit/auditLog';
import { createOperator, type App } from '../src/domain/apps/store';
import { fundAppWalletFromFriendbot } from '../src/domain/treasury/treasury';
import { runUserTransaction } from '../src/domain/transactions/submission';
import { findOrCreateUser } from '../src/domain/users/users';
import { createAppWithWallet } from '../src/domain/wallets/appWallets';
import { createWallet } from '../src/domain/wallets/custody';
import { fundUserWallet } from '../src/domain/funding/funding';
import { findWallet, type WalletRecord } from '../src/domain/wallets/store';
import type { StellarGateway } from '../src/infra/stellar/gateway';
import { percentile, recordReport, sized, withService } from './support';
import type { RunningService } from '../src/service';

const SAMPLES = Number(process.env.BENCH_TX_SAMPLES ?? sized(100, 3));
/**
 * Runs of each kind before the measured ones, not counted: the first run of a process pays for compiling its code
 * paths and opening its connections (about 2.5x a warm run here), which is a p99 of 100 samples on its own.
 */
const WARMUP = sized(5, 1);
/** The localnet's ledger interval: the set-up waits for a few closes, which a smoke run makes short. */
const LEDGER_SECONDS = sized(1, 0.25);

/** An app whose users get 1 XLM at activation (so their payments succeed), with `n` funded user wallets. */
async function appWithUsers(
  svc: RunningService,
  n: number,
): Promise<{ app: App; users: { userId: string; wallet: WalletRecord }[] }> {
  const operator = await createOperator(svc.deps.db, { email: `bench-tx-${Date.now()}@example.com` });
  const { app: created } = await createAppWithWallet(svc.deps, {
    name: 'Bench tx app',
    network: 'testnet',
    ownerOperatorId: operator.id,
  });
  await svc.deps.db('apps').where({ id: created.id }).update({ funding_mode: 'deferred', starting_balance_xlm: '1' });
  const app: App = { ...created, fundingMode: 'deferred', startingBalanceXlm: '1' };
  if (!(await fundAppWalletFromFriendbot(svc.deps, app))) throw new Error('friendbot did not fund the app wallet');
  const users = await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const email = `bench-tx-user-${i}@example.com`;
      const user = await findOrCreateUser(svc.deps.db, {
        appId: app.id,
        identity: { provider: 'email', subject: email, email },
        now: new Date(),
      });
      const { wallet } = await createWallet(svc.deps, { appId: app.id, network: app.network, userId: user.id });
      await fundUserWallet(svc.deps, { app, wallet, trigger: 'server_api', actor: SYSTEM_ACTOR });
      return { userId: user.id, wallet: (await findWallet(svc.deps.db, wallet.id))! };
    }),
  );
  return { app, users };
}

/** `n` plain accounts with 2 XLM each, created in one transaction from a friendbot-funded account (the baseline's sources). */
async function plainAccounts(gw: StellarGateway, n: number): Promise<{ funder: Keypair; accounts: Keypair[] }> {
  const funder = Keypair.random();
  await gw.fundWithFriendbot(funder.publicKey());
  const accounts = Array.from({ length: n }, () => Keypair.random());
  for (let i = 0; i < n; i += 100) {
    const account = (await gw.loadAccount(funder.publicKey()))!;
    const builder = new TransactionBuilder(new Account(funder.publicKey(), account.sequence), {
      fee: '100',
      networkPassphrase: gw.networkPassphrase,
    });
    for (const kp of accounts.slice(i, i + 100))
      builder.addOperation(Operation.createAccount({ destination: kp.publicKey(), startingBalance: '2' }));
    const tx = builder.setTimeout(60).build();
    tx.sign(funder);
    await gw.submitAndConfirm(tx);
  }
  return { funder, accounts };
}

/** The baseline: build, sign and fee-bump in memory, then one sendTransaction. */
async function bareSubmit(gw: StellarGateway, source: Keypair, feePayer: Keypair, destination: string): Promise<void> {
  const account = (await gw.loadAccount(source.publicKey()))!;
  const inner = new TransactionBuilder(new Account(source.publicKey(), account.sequence), {
    fee: '100',
    networkPassphrase: gw.networkPassphrase,
  })
    .addOperation(Operation.payment({ destination, asset: Asset.native(), amount: '0.0000001' }))
    .setTimeout(60)
    .build();
  inner.sign(source);
  const bump = TransactionBuilder.buildFeeBumpTransaction(feePayer, '100', inner, gw.networkPassphrase);
  bump.sign(feePayer);
  await gw.submit(bump);
}

export async function runTransactions(): Promise<void> {
  const env = {
    LOCALNET_LEDGER_SECONDS: String(LEDGER_SECONDS),
    ACTIVATION_CHANNELS: '4',
    TX_CONFIRM_WAIT_MS: '0',
    LEDGER_FOLLOWER: 'off',
  };
  const { service, baseline } = await withService('tx', env, async (svc) => {
    const gw = svc.deps.stellar!.gateways!.testnet!;
    const runs = WARMUP + SAMPLES;
    console.log(`setting up ${runs} funded user wallets and ${runs} plain accounts...`);
    const { app, users } = await appWithUsers(svc, runs);
    const { funder, accounts } = await plainAccounts(gw, runs);
    const destination = funder.publicKey();
    const service: number[] = [];
    const baseline: number[] = [];
    for (let i = 0; i < runs; i++) {
      const user = users[i]!;
      let started = performance.now();
      const outcome = await runUserTransaction(
        svc.deps,
        { app, userId: user.userId, wallet: user.wallet, actor: { type: 'user', id: user.userId } },
        {
          operation: { type: 'payment', destination, asset: 'native', amount: '0.0000001' },
          timeoutSeconds: 60,
        },
      );
      service.push(performance.now() - started);
      if (outcome.status !== 'pending' && outcome.status !== 'success')
        throw new Error(`run ${i}: ${JSON.stringify(outcome)}`);
      started = performance.now();
      await bareSubmit(gw, accounts[i]!, funder, destination);
      baseline.push(performance.now() - started);
      if ((i + 1) % 20 === 0) console.log(`  ${i + 1}/${runs}`);
    }
    return { service: service.slice(WARMUP), baseline: baseline.slice(WARMUP) };
  });
  const s50 = percentile(service, 50);
  const s99 = percentile(service, 99);
  const b50 = percentile(baseline, 50);
  const b99 = percentile(baseline, 99);
  console.log(
    `runTransaction (server side, no ledger wait): p50 ${s50.toFixed(1)} ms, p99 ${s99.toFixed(1)} ms; bare sendTransaction p50 ${b50.toFixed(1)} ms, p99 ${b99.toFixed(1)} ms`,
  );

  const date = new Date().toISOString().slice(0, 10);
  const report = [
    `# Sponsored transactions: server-side latency of runTransaction (${date})`,
    '',
    `Command: \`BENCH=transactions make bench\` (bench/transactions.ts). The real service (startService) with embedded PostgreSQL, local key management and its in-process localnet (${LEDGER_SECONDS} s ledgers); TX_CONFIRM_WAIT_MS=0, so a run answers \`pending\` once the RPC accepts it: the ledger close is excluded. ${SAMPLES} samples after ${WARMUP} of each kind not counted (warm-up), each from its own funded wallet, interleaved with the baseline.`,
    `Machine: ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}; load generated in the same process.`,
    '',
    '| measure | p50 | p99 |',
    '|---|---|---|',
    `| runTransaction (build + record + sign + policy + fee-bump + record + sendTransaction) | ${s50.toFixed(1)} ms | ${s99.toFixed(1)} ms |`,
    `| baseline: in-memory build/sign/fee-bump + one sendTransaction | ${b50.toFixed(1)} ms | ${b99.toFixed(1)} ms |`,
    `| ratio | ${(s50 / b50).toFixed(1)}x | ${(s99 / b99).toFixed(1)}x |`,
    '',
    'Reading: the difference is what the service adds for custody and accountability. A run reads the chain (the',
    "wallet's and the destination's accounts; ledger figures and the gas balance at most 1 s old, shared) while it reads",
    "the policy and the sealed keys of the user's and the gas wallet, decides, then commits twice before it answers: the",
    "record already claimed with its sequence number, the day's operations and the key.decrypt entries of both keys; the",
    'signed transaction with its envelope. Both keys are unwrapped (cached data keys) and sign natively between the two',
    'commits. The sent mark is written as the answer goes (TX_CONFIRM_WAIT_MS=0; with a wait it is written first).',
    '',
  ].join('\n');
  recordReport(`${date}-transactions.md`, report);
}
