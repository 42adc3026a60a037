// make bench: runs the benchmarks under bench/ and records the results in bench/results/.
// BENCH=<name> runs only that one (http-foundation | localnet); unset runs them all.
import { runHttpFoundation } from './http-foundation';
import { runLocalnet } from './localnet';

const BENCHES: Record<string, () => Promise<void>> = {
  'http-foundation': runHttpFoundation, // what the contract layer costs per request
  localnet: runLocalnet, // sendTransaction throughput and ledger close time with 10k / 100k accounts
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
