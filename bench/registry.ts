// The benchmarks, by name, in the order `make bench` runs them (bench/run.ts). Each module is imported when its bench
// runs, so that listing the names (tests/bench/smoke.test.ts smoke-runs every one of them) or running one bench loads
// only what it needs.
export const BENCHES: Record<string, () => Promise<void>> = {
  // what the contract layer costs per request
  'http-foundation': async () => (await import('./http-foundation')).runHttpFoundation(),
  // sendTransaction throughput and ledger close time with 10k / 100k accounts
  localnet: async () => (await import('./localnet')).runLocalnet(),
  // what a DPoP-bound session costs per request
  sessions: async () => (await import('./sessions')).runSessions(),
  // wallet activations per ledger and sign-in-to-funded latency
  activation: async () => (await import('./activation')).runActivation(),
  // wallet history at 1,000,000 records: first page, offset, cursor, total vs a bare indexed query
  history: async () => (await import('./history')).runHistory(),
  // server-side latency of runTransaction, without the ledger wait
  transactions: async () => (await import('./transactions')).runTransactions(),
  // make run's process to its banner on an empty data directory vs a later start
  'first-run': async () => (await import('./firstRun')).runFirstRun(),
  // first webhook attempt after commit, and deliveries per second, vs a direct POST
  webhooks: async () => (await import('./webhooks')).runWebhooks(),
  // client library bundle size, and one authenticated call vs a bare fetch
  'sdk-client': async () => (await import('./sdkClient')).runSdkClient(),
  // the Dashboard's metrics at 1,000,000 transactions vs a bare indexed count of the window
  metrics: async () => (await import('./metrics')).runMetrics(),
  // signing a Soroban auth entry for a custodial wallet vs a bare authorizeEntry
  'soroban-auth': async () => (await import('./sorobanAuth')).runSorobanAuth(),
  // 1,000 claims at once on 2 API processes: exactly the allocation paid, vs direct payments
  distribution: async () => (await import('./distribution')).runDistribution(),
  // the same 1,000 claims with one process killed mid-burst: still exact
  'distribution-crash': async () => (await import('./distributionCrash')).runDistributionCrash(),
  // a push to 10,000 recipients: recipients per ledger vs the chain's limit
  'distribution-push': async () => (await import('./distributionPush')).runDistributionPush(),
  // an off-ramp's startRamp vs the same payment by runTransaction: what the ramp layer adds
  ramps: async () => (await import('./ramps')).runRamps(),
  // 1,000 users signing in and paying for 10 minutes against the cluster: throughput, latency per step, errors by code
  load: async () => (await import('./load')).runLoad(),
};

/** Every bench's name, in order. */
export const BENCH_NAMES = Object.keys(BENCHES);
