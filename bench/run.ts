// make bench: runs the benchmarks under bench/ and records the results in bench/results/.
// BENCH=<name> runs only that one (http-foundation | localnet | sessions | activation | transactions | history |
// first-run | webhooks | sdk-client | metrics | soroban-auth | distribution | distribution-crash | distribution-push |
// ramps | load); unset runs them all. The list is bench/registry.ts. BENCH_SMOKE=1 runs them at smoke sizes and records
// nothing (bench/support.ts).
import { BENCHES, BENCH_NAMES } from './registry';

const only = process.env.BENCH;
if (only && !BENCHES[only]) {
  console.error(`BENCH=${only}: no such benchmark (${BENCH_NAMES.join(', ')})`);
  process.exit(2);
}
for (const [name, run] of Object.entries(BENCHES)) {
  if (only && only !== name) continue;
  console.log(`\n== bench: ${name}`);
  try {
    await run();
  } catch (err) {
    // The stack, then what failed in one line at the very end, where a reader of a long log (a CI run's tail) looks;
    // and out at once, as an uncaught error would (a failed bench may leave handles open). Pipes write synchronously.
    console.error(err);
    console.error(`\nbench ${name} failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  }
}
