// A ledger follower of the test's own, beside (or instead of) the service's ledger-follower job: the same passes
// (followNetwork), run in a tight loop with the test's logger and page size, so a test sees every step's log lines.
import type { FollowerDeps, FollowerState } from '../../src/domain/transactions/ledgerFollower';
import { followNetwork } from '../../src/domain/transactions/ledgerFollower';

/** Follows every network of `deps` until stop() (which waits for the running step); a failed step is logged. */
export function followInBackground(
  deps: FollowerDeps,
  opts: { intervalMs?: number; pageSize?: number } = {},
): () => Promise<void> {
  let stopped = false;
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const loops = Object.values(deps.stellar?.gateways ?? {}).map(async (gateway) => {
    const state: FollowerState = {};
    while (!stopped) {
      try {
        const step = await followNetwork(deps, gateway, state, { budgetMs: 1_000, pageSize: opts.pageSize });
        if (step === 'caught-up') await pause(opts.intervalMs ?? 50);
      } catch (err) {
        deps.log.warn({ err, network: gateway.network }, 'ledger follower step failed; retrying');
        await pause(opts.intervalMs ?? 50);
      }
    }
  });
  return async () => {
    stopped = true;
    await Promise.all(loops);
  };
}
