// Runs the registry's jobs in this process on the job queue. A periodic job is a chain of queue jobs, one per key:
// each pass enqueues the next (at once when work is waiting, after the job's period otherwise, after a back-off when
// it failed), and the queue's `stately` policy keeps at most one queued and one running job per key across every
// process, so passes of one key never overlap however many workers run. A process kicks each chain when it starts,
// and the `jobs-kick` cron job kicks them every minute, so a chain whose worker died mid-pass goes on (the dead job
// itself is retried once its expiry passes).
import type { JobQueue } from '../infra/jobs/jobQueue';
import { jobRegistry, type JobDefinition, type JobDeps, type PeriodicJob } from './registry';

/** pg-boss's floor for a worker's polling interval. */
const MIN_POLL_SECONDS = 0.5;
/** A failed pass waits its period doubled per failure in a row, at most this much more. */
const MAX_BACKOFF_EXTRA_MS = 30_000;
const KICK_JOB = 'jobs-kick';

export interface WorkerOptions {
  /** Only these jobs (default all). */
  only?: string[];
  /** The jobs (default the registry; tests pass a registry job with a shorter period). */
  jobs?: JobDefinition[];
  /** Periodic jobs whose first pass in this process waits for a promise (make run: the sponsor scan, for the seed). */
  startAfter?: Partial<Record<string, Promise<unknown>>>;
}

interface Chain {
  job: PeriodicJob;
  key: string;
}

/** A periodic job's data: the chain's key. */
function keyOf(data: unknown): string {
  const key = (data as { key?: unknown } | null)?.key;
  return typeof key === 'string' ? key : 'all';
}

/** pg-boss's smallest heartbeat: a periodic pass of a dead process is failed within it plus the monitor's 10 s. */
const PASS_HEARTBEAT_SECONDS = 10;

/** An idle worker looks for due passes twice per period, at most every 0.5 s (pg-boss's floor), at least every 2 s. */
function pollSecondsFor(ms: number): number {
  return Math.max(MIN_POLL_SECONDS, Math.min(2, ms / 2000));
}

/** The queue's settings of a job: a periodic pass's queue holds one queued and one running job per key. */
function queueSettingsOf(job: JobDefinition, deps: Pick<JobDeps, 'webhooks'>) {
  // A pass that outlives this expiry is presumed dead (its process gone) and is run again. A pass whose process was
  // killed would otherwise hold its chain (one active job per key) until then: the heartbeat frees it within ~20 s.
  return job.kind === 'triggered'
    ? job.queue(deps)
    : { policy: 'stately' as const, retryLimit: 1, expireInSeconds: 300, heartbeatSeconds: PASS_HEARTBEAT_SECONDS };
}

/**
 * Creates (or updates) the queue of every job of the registry. Every process that writes runs this at start, workers
 * or not: a write enqueues its jobs in its own transaction, and a queue must exist to take them.
 */
export async function createQueues(
  deps: Pick<JobDeps, 'webhooks'>,
  queue: JobQueue,
  jobs: JobDefinition[] = jobRegistry,
): Promise<void> {
  for (const job of jobs) await queue.createQueue(job.name, queueSettingsOf(job, deps));
  await queue.createQueue(KICK_JOB, { policy: 'stately', retryLimit: 0 });
}

/**
 * Starts working every job of the registry (or `opts.only`) in this process. Answers stop(), which waits for this
 * process's running passes and leaves the chains queued for other processes (or the next start).
 */
export async function startWorkers(
  deps: JobDeps,
  queue: JobQueue,
  opts: WorkerOptions = {},
): Promise<() => Promise<void>> {
  const registry = (opts.jobs ?? jobRegistry).filter((job) => !opts.only || opts.only.includes(job.name));
  const periodic = registry.filter((job): job is PeriodicJob => job.kind === 'periodic');
  const workers: { name: string; id: string }[] = [];
  let stopped = false;
  const chains = (job: PeriodicJob): Chain[] => (job.keys?.(deps) ?? ['all']).map((key) => ({ job, key }));
  const send = (chain: Chain, delayMs: number) =>
    queue.send(
      chain.job.name,
      { key: chain.key },
      { singletonKey: chain.key, startAfter: new Date(Date.now() + Math.max(0, delayMs)) },
    );

  await createQueues(deps, queue, registry);
  for (const job of registry) {
    if (job.kind === 'triggered') {
      const run = job.create(deps);
      const id = await queue.work(job.name, { pollingIntervalSeconds: 1, concurrency: job.concurrency }, (data) =>
        run(data),
      );
      workers.push({ name: job.name, id });
      continue;
    }
    const pass = job.create(deps);
    const failures = new Map<string, number>();
    const id = await queue.work(
      job.name,
      { pollingIntervalSeconds: pollSecondsFor(job.everyMs(deps)) },
      async (data) => {
        const chain = { job, key: keyOf(data) };
        let next = job.everyMs(deps);
        try {
          if ((await pass(chain.key)) === 'more') next = 0;
          failures.delete(chain.key);
        } catch (err) {
          const inARow = (failures.get(chain.key) ?? 0) + 1;
          failures.set(chain.key, inARow);
          next = Math.min(next * 2 ** Math.min(inARow, 10), next + MAX_BACKOFF_EXTRA_MS);
          deps.log[job.failureLevel](
            { err, job: job.name, key: chain.key, failures: inARow },
            `${job.name} pass failed`,
          );
        } finally {
          if (!stopped) await send(chain, next);
        }
      },
    );
    workers.push({ name: job.name, id });
  }

  // Each chain's first pass from this process (a chain already queued by another process stays as it is).
  const kick = async (job: PeriodicJob) => {
    if (stopped) return;
    for (const chain of chains(job)) await send(chain, job.firstDelayMs?.(deps) ?? 0);
  };
  for (const job of periodic) {
    const gate = opts.startAfter?.[job.name];
    if (gate)
      void gate
        .then(
          () => kick(job),
          () => kick(job),
        )
        .catch((err: unknown) => deps.log.warn({ err }, 'kick failed'));
    else await kick(job);
  }
  if (periodic.length > 0) {
    const id = await queue.work(KICK_JOB, { pollingIntervalSeconds: 2 }, async () => {
      for (const job of periodic) for (const chain of chains(job)) if (!stopped) await send(chain, 0);
    });
    workers.push({ name: KICK_JOB, id });
    await queue.schedule(KICK_JOB, '* * * * *');
  }

  return async () => {
    stopped = true;
    await Promise.all(workers.map((w) => queue.offWork(w.name, w.id)));
  };
}
