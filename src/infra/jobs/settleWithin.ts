/**
 * Waits for `work` (when there is any) but at most `ms`. Background loops use it when stopping: a pass that waits for
 * a ledger holds only leases, so shutdown may abandon it instead of waiting for the chain.
 */
export async function settleWithin(work: Promise<unknown> | undefined, ms: number): Promise<void> {
  let timeout: NodeJS.Timeout | undefined;
  await Promise.race([work, new Promise((resolve) => (timeout = setTimeout(resolve, ms)))]);
  clearTimeout(timeout);
}
