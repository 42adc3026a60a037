import type { Deps } from './deps';

/** Starts work a request does not wait for, tracked by the process (deps.background) when it has a tracker. */
export function runInBackground(
  deps: Pick<Deps, 'background'>,
  work: () => Promise<unknown>,
  onError: (err: unknown) => void,
): void {
  if (deps.background) deps.background.start(work, onError);
  else work().catch(onError);
}
