// Ramps (issue 20): what the ramp layer adds to the money path of an off-ramp, with the sandbox provider on localnet.
// Each sample is one off-ramp of 25 USDC started from a quote (startRamp: the user's quote read and claimed, the
// provider's start, the balance check, the payment through the sponsored transaction path, the ramp's records and its
// `ramp.updated` event) against, interleaved in the same run, the same 25 USDC payment made with runTransaction by
// another wallet (the path without the ramp layer). TX_CONFIRM_WAIT_MS=0: both answer once the RPC accepted the
// transaction, so the ledger close is excluded. Quotes are made before the timed part (createRampQuote is measured on
// its own). Results in bench/results/<date>-ramps.md.
import { cpus, totalmem } from 'node:os';
import { Account, Operation, TransactionBuilder } from '@stellar/stellar-sdk';
import { SYSTEM_ACTOR } from '../src/domain/audit/auditLog';
import { createOperator, findApp, type App } from '../src/domain/apps/store';
import { fundUserWallet } from '../src/domain/funding/funding';
import type { RampCaller } from '../src/domain/ramps/call';
import { createRampQuote, startRamp } from '../src/domain/ramps/transactions';
import { demoUsdcIssuer, issueDemoUsdc } from '../src/domain/treasury/demoUsdc';
import { fundAppWalletFromFriendbot } from '../src/domain/treasury/treasury';
import { runUserTransaction } from '../src/domain/transactions/submission';
import { findOrCreateUser } from '../src/domain/users/users';
import { createAppWithWallet } from '../src/domain/wallets/appWallets';
import { createWallet } from '../src/domain/wallets/custody';
import { findWallet } from '../src/domain/wallets/store';
import { parseAsset } from '../src/infra/stellar/gateway';
import type { RunningService } from '../src/service';
import { percentile, recordReport, sized, withService } from './support';

const SAMPLES = Number(process.env.BENCH_RAMP_SAMPLES ?? sized(50, 3));
const AMOUNT = '25';
/** The localnet's ledger interval: the set-up waits for a few closes, which a smoke run makes short. */
const LEDGER_SECONDS = sized(1, 0.25);

/** A testnet app with the demo USDC and `n` funded users holding 30 USDC each. */
async function appWithUsdcUsers(svc: RunningService, n: number): Promise<{ app: App; callers: RampCaller[] }> {
  const operator = await createOperator(svc.deps.db, { email: `bench-ramps-${Date.now()}@example.com` });
  const { app: created } = await createAppWithWallet(svc.deps, {
    name: 'Bench ramps app',
    network: 'testnet',
    ownerOperatorId: operator.id,
  });
  await svc.deps.db('apps').where({ id: created.id }).update({ funding_mode: 'deferred', starting_balance_xlm: '2' });
  if (!(await fundAppWalletFromFriendbot(svc.deps, created))) throw new Error('friendbot did not fund the app wallet');
  const { asset } = await issueDemoUsdc(svc.deps, (await findApp(svc.deps.db, created.id))!);
  const app = (await findApp(svc.deps.db, created.id))!;
  const callers = await Promise.all(
    Array.from({ length: n }, async (_, i): Promise<RampCaller> => {
      const email = `bench-ramp-user-${i}@example.com`;
      const user = await findOrCreateUser(svc.deps.db, {
        appId: app.id,
        identity: { provider: 'email', subject: email, email },
        now: new Date(),
      });
      const { wallet } = await createWallet(svc.deps, { appId: app.id, network: app.network, userId: user.id });
      await fundUserWallet(svc.deps, { app, wallet, trigger: 'server_api', actor: SYSTEM_ACTOR });
      return {
        app,
        userId: user.id,
        wallet: (await findWallet(svc.deps.db, wallet.id))!,
        actor: { type: 'user', id: user.id } as const,
      };
    }),
  );
  // 30 USDC each from the issuer, 100 payments a transaction.
  const gw = svc.deps.stellar!.gateways!.testnet!;
  const issuer = demoUsdcIssuer(svc.deps.secrets);
  for (let i = 0; i < callers.length; i += 100) {
    const account = (await gw.loadAccount(issuer.publicKey()))!;
    const builder = new TransactionBuilder(new Account(issuer.publicKey(), account.sequence), {
      fee: '100',
      networkPassphrase: gw.networkPassphrase,
    });
    for (const c of callers.slice(i, i + 100))
      builder.addOperation(
        Operation.payment({ destination: c.wallet.publicKey, asset: parseAsset(asset), amount: '30' }),
      );
    const tx = builder.setTimeout(60).build();
    tx.sign(issuer);
    await gw.submitAndConfirm(tx);
  }
  return { app, callers };
}

export async function runRamps(): Promise<void> {
  const env = {
    LOCALNET_LEDGER_SECONDS: String(LEDGER_SECONDS),
    ACTIVATION_CHANNELS: '4',
    TX_CONFIRM_WAIT_MS: '0',
    LEDGER_FOLLOWER: 'off',
    RAMPS_SANDBOX: 'on',
    KYC_SANDBOX: 'off', // no KYC offered: the sandbox ramp then needs none (KYC has its own tests)
  };
  const result = await withService('ramps', env, async (svc) => {
    console.log(`setting up ${2 * SAMPLES} funded wallets holding 30 USDC...`);
    const { app, callers } = await appWithUsdcUsers(svc, 2 * SAMPLES);
    const usdc = app.assets[0]!;
    const issuer = demoUsdcIssuer(svc.deps.secrets).publicKey();
    const quoteMs: number[] = [];
    const quotes: string[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      const started = performance.now();
      const quote = await createRampQuote(svc.deps, callers[i]!, {
        providerId: 'sandbox',
        direction: 'off',
        fiatCurrency: 'USD',
        asset: usdc,
        amount: AMOUNT,
        amountIn: 'crypto',
      });
      quoteMs.push(performance.now() - started);
      quotes.push(quote.quoteId);
    }
    const ramp: number[] = [];
    const baseline: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      let started = performance.now();
      const view = await startRamp(svc.deps, callers[i]!, quotes[i]!);
      ramp.push(performance.now() - started);
      if (view.status !== 'processing' && view.status !== 'completed')
        throw new Error(`ramp ${i}: ${JSON.stringify(view)}`);
      started = performance.now();
      const outcome = await runUserTransaction(svc.deps, callers[SAMPLES + i]!, {
        operation: { type: 'payment', destination: issuer, asset: usdc, amount: AMOUNT },
        memo: { type: 'text', value: 'SBX-BASELINE' },
        timeoutSeconds: 60,
      });
      baseline.push(performance.now() - started);
      if (outcome.status !== 'pending' && outcome.status !== 'success')
        throw new Error(`baseline ${i}: ${JSON.stringify(outcome)}`);
      if ((i + 1) % 10 === 0) console.log(`  ${i + 1}/${SAMPLES}`);
    }
    return { ramp, baseline, quoteMs };
  });
  const r50 = percentile(result.ramp, 50);
  const r99 = percentile(result.ramp, 99);
  const b50 = percentile(result.baseline, 50);
  const b99 = percentile(result.baseline, 99);
  const q50 = percentile(result.quoteMs, 50);
  const q99 = percentile(result.quoteMs, 99);
  const date = new Date().toISOString().slice(0, 10);
  const report = [
    `# Ramps: what the ramp layer adds to an off-ramp's money path (${date})`,
    '',
    `Command: \`BENCH=ramps make bench\` (bench/ramps.ts). The real service (startService) with embedded PostgreSQL, local key management and its in-process localnet (${LEDGER_SECONDS} s ledgers), the sandbox ramp provider; TX_CONFIRM_WAIT_MS=0, so both sides answer once the RPC accepted the transaction (the ledger close is excluded). ${SAMPLES} samples of each, interleaved, each from its own wallet holding 30 USDC.`,
    `Machine: ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}; load generated in the same process.`,
    '',
    '| measure | p50 | p99 |',
    '|---|---|---|',
    `| startRamp, off-ramp of ${AMOUNT} USDC (quote claimed, provider start, balance check, sponsored payment, records, event) | ${r50.toFixed(1)} ms | ${r99.toFixed(1)} ms |`,
    `| baseline: runTransaction of the same ${AMOUNT} USDC payment | ${b50.toFixed(1)} ms | ${b99.toFixed(1)} ms |`,
    `| ratio | ${(r50 / b50).toFixed(2)}x | ${(r99 / b99).toFixed(2)}x |`,
    `| createRampQuote (sandbox: settings, KYC status, credentials, price, insert) | ${q50.toFixed(1)} ms | ${q99.toFixed(1)} ms |`,
    '',
    "Reading: the difference is the ramp's own accountability around the same payment: the quote read and its claim",
    "(one ramp per quote), the provider's settings and the user's KYC status, one balance read from the RPC before",
    'anything is recorded, and two status writes each with its `ramp.updated` outbox event in the same database',
    'transaction. The payment itself (build, record, two KMS unwraps with their audit rows, fee-bump, submit) is the',
    "baseline's. A first run while other test suites loaded the machine (load average above 6) measured 464.6 / 271.0 ms",
    '(1.71x): the ratio, not the absolute figures, is what to compare between runs.',
    '',
  ].join('\n');
  recordReport(`${date}-ramps.md`, report);
}
