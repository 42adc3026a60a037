// make bench: runs the benchmarks under bench/ and records the results in bench/results/.
// BENCH=<name> runs only that one (http-foundation | localnet | sessions | activation | transactions | history |
// first-run | webhooks | sdk-client | metrics | soroban-auth | distribution | distribution-crash | distribution-push |
// ramps); unset runs them all.
import { runActivation } from './activation';
import { runDistribution } from './distribution';
import { runDistributionCrash } from './distributionCrash';
import { runDistributionPush } from './distributionPush';
import { runFirstRun } from './firstRun';
import { runHistory } from './history';
import { runHttpFoundation } from './http-foundation';
import { runLocalnet } from './localnet';
import { runMetrics } from './metrics';
import { runRamps } from './ramps';
import { runSdkClient } from './sdkClient';
import { runSessions } from './sessions';
import { runSorobanAuth } from './sorobanAuth';
import { runTransactions } from './transactions';
import { runWebhooks } from './webhooks';

const BENCHES: Record<string, () => Promise<void>> = {
  'http-foundation': runHttpFoundation, // what the contract layer costs per request
  localnet: runLocalnet, // sendTransaction throughput and ledger close time with 10k / 100k accounts
  sessions: runSessions, // what a DPoP-bound session costs per request
  activation: runActivation, // wallet activations per ledger and sign-in-to-funded latency
  history: runHistory, // wallet history at 1,000,000 records: first page, offset, cursor, total vs a bare indexed query
  transactions: runTransactions, // server-side latency of runTransaction, without the ledger wait
  'first-run': runFirstRun, // make run's process to its banner on an empty data directory vs a later start
  webhooks: runWebhooks, // first webhook attempt after commit, and deliveries per second, vs a direct POST
  'sdk-client': runSdkClient, // client library bundle size, and one authenticated call vs a bare fetch
  metrics: runMetrics, // the Dashboard's metrics at 1,000,000 transactions vs a bare indexed count of the window
  'soroban-auth': runSorobanAuth, // signing a Soroban auth entry for a custodial wallet vs a bare authorizeEntry
  distribution: runDistribution, // 1,000 claims at once on 2 API processes: exactly the allocation paid, vs direct payments
  'distribution-crash': runDistributionCrash, // the same 1,000 claims with one process killed mid-burst: still exact
  'distribution-push': runDistributionPush, // a push to 10,000 recipients: recipients per ledger vs the chain's limit
  ramps: runRamps, // an off-ramp's startRamp vs the same payment by runTransaction: what the ramp layer adds
};

const only = process.env.BENCH;
if (only && !BENCHES[only]) {
  console.error(`BENCH=${only}: no such benchmark (${Object.keys(BENCHES).join(', ')})`);
  process.exit(2);
}
for (const [name, run] of Object.entries(BENCHES)) {
  if (only && only !== name) continue;
  console.log(`\n== bench: ${name}`);
  await run();
}
