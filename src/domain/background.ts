import type { Deps } from './deps';

/**
 * Starts work a request does not wait for, tracked by the process (deps.background) when it has a tracker, so that
 * shutdown waits for it before the pool closes. The promise answered settles (never rejects) once it is done.
 */
export function runInBackground(
  deps: Pick<Deps, 'background'>,
  work: () => Promise<unknown>,
  onError: (err: unknown) => void,
): Promise<void> {
  if (deps.background) return deps.background.start(work, onError);
  return work().then(() => undefined, onError);
}
