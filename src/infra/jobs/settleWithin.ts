/**
 * Waits for `work` (when there is any) but at most `ms`, and never throws. Stopping uses it: a pass that waits for a
 * ledger holds only leases, so shutdown may abandon it instead of waiting for the chain.
 */
export async function settleWithin(work: Promise<unknown> | undefined, ms: number): Promise<void> {
  let timeout: NodeJS.Timeout | undefined;
  await Promise.race([work?.catch(() => undefined), new Promise((resolve) => (timeout = setTimeout(resolve, ms)))]);
  clearTimeout(timeout);
}
