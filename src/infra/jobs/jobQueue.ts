// The job queue: pg-boss on the service's own PostgreSQL (its tables in the `pgboss` schema). Chosen over a
// hand-written queue for what it already does well: jobs inserted inside the caller's transaction (`fromKnex`), at
// most one queued and one running job per key (the `stately` policy), retries with back-off, expiry of a job whose
// worker died, cron schedules, and LISTEN/NOTIFY so a worker wakes as soon as a job is committed.
//
// This module knows nothing of the product: src/jobs/ says which jobs exist and what they do.
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { PgBoss, fromKnex, type Job, type QueuePolicy } from 'pg-boss';

export interface QueueSettings {
  /** `stately`: at most one queued and one running job per singleton key (periodic passes). Default `standard`. */
  policy?: QueuePolicy;
  /** Wake workers by NOTIFY when a job is committed (jobs that should run at once). */
  notify?: boolean;
  /** Attempts after the first when a handler throws or its worker dies (default 2). */
  retryLimit?: number;
  /** Seconds before a retry (doubling with jitter when `retryBackoff`). */
  retryDelaySeconds?: number;
  retryBackoff?: boolean;
  /** A running job whose worker has not finished it after this long is retried (its worker is presumed dead). */
  expireInSeconds?: number;
  /**
   * A running job must be kept alive this often (>= 10 s; the worker does it by itself at half the period): one whose
   * process died is failed within about this long plus the 10 s monitor period, instead of at its expiry.
   */
  heartbeatSeconds?: number;
}

export interface WorkSettings {
  /** How often an idle worker looks for due jobs (pg-boss's floor is 0.5 s). */
  pollingIntervalSeconds: number;
  /** Jobs fetched together and run at once by this process (default 1). */
  concurrency?: number;
}

export interface SendOptions {
  /** Not before this time. */
  startAfter?: Date;
  /** With the `stately` policy: one queued and one running job per key. */
  singletonKey?: string;
}

export interface JobQueue {
  /**
   * Enqueues a job. With `trx`, inside that database transaction: the job exists exactly when the transaction
   * commits. Answers the job id, or null when the queue's policy already holds a job for the key.
   */
  send(name: string, data: object, opts?: SendOptions & { trx?: Knex }): Promise<string | null>;
  /** Creates the queue (idempotent). */
  createQueue(name: string, settings?: QueueSettings): Promise<void>;
  /**
   * Runs `handler` for the queue's jobs in this process until offWork() or stop(). A throw fails the attempt (retried
   * per queue). Answers the worker's id.
   */
  work(
    name: string,
    settings: WorkSettings,
    handler: (data: unknown, job: { id: string }) => Promise<void>,
  ): Promise<string>;
  /** Stops one worker of this process, waiting for the job it is running. */
  offWork(name: string, workerId: string): Promise<void>;
  /** Enqueues a job on a cron schedule (at most once a minute), whichever process is running then. */
  schedule(name: string, cron: string): Promise<void>;
  /** Stops working (waiting up to `waitMs` for running handlers) and closes the queue's connections. */
  stop(waitMs: number): Promise<void>;
}

export interface JobQueueOptions {
  databaseUrl: string;
  log: Pick<Logger, 'warn' | 'error'>;
  /** Run pg-boss's own upkeep (expiry, retention, cron) in this process; off for a send-only client. */
  supervise: boolean;
}

/** Starts pg-boss (creating or upgrading its schema on first use) and answers the queue. */
export async function startJobQueue(opts: JobQueueOptions): Promise<JobQueue> {
  const boss = new PgBoss({
    connectionString: opts.databaseUrl,
    useListenNotify: opts.supervise,
    supervise: opts.supervise,
    // How often expired jobs (their worker died) are found and retried (the monitor pass does it, on the supervisor's
    // timer): pg-boss's default minute is long for a webhook delivery.
    superviseIntervalSeconds: 10,
    monitorIntervalSeconds: 10,
    schedule: opts.supervise,
    // pg-boss keeps a small connection pool of its own beside the service's knex pool.
    max: 4,
  });
  boss.on('error', (err) => opts.log.error({ err }, 'job queue error'));
  boss.on('warning', (warning) => opts.log.warn({ warning }, 'job queue warning'));
  await boss.start();
  return {
    async send(name, data, sendOpts = {}) {
      const { trx, ...options } = sendOpts;
      return boss.send(name, data, {
        ...(options.startAfter ? { startAfter: options.startAfter } : {}),
        ...(options.singletonKey ? { singletonKey: options.singletonKey } : {}),
        ...(trx ? { db: fromKnex(trx) } : {}),
      });
    },
    async createQueue(name, settings = {}) {
      const existing = await boss.getQueue(name);
      const options = {
        policy: settings.policy ?? 'standard',
        notify: settings.notify ?? false,
        retryLimit: settings.retryLimit ?? 2,
        retryDelay: settings.retryDelaySeconds ?? 0,
        retryBackoff: settings.retryBackoff ?? false,
        expireInSeconds: settings.expireInSeconds ?? 900,
        ...(settings.heartbeatSeconds ? { heartbeatSeconds: settings.heartbeatSeconds } : {}),
      };
      if (!existing) await boss.createQueue(name, options);
      else {
        // A queue's policy is fixed when created; its retry and expiry settings follow the code.
        const { policy: _policy, ...updatable } = options;
        await boss.updateQueue(name, updatable);
      }
    },
    async work(name, settings, handler) {
      const batchSize = settings.concurrency ?? 1;
      return boss.work(
        name,
        {
          pollingIntervalSeconds: settings.pollingIntervalSeconds,
          notifyPollingIntervalSeconds: Math.max(settings.pollingIntervalSeconds, 2),
          // Up to `concurrency` jobs fetched at once and run side by side; a full batch is followed by the next fetch
          // at once (a burst committed together goes at the handlers' pace, not one fetch per polling interval).
          batchSize,
          ...(batchSize > 1 ? { burstWhenBatchFull: true } : {}),
          // Each job of a batch settles on its own: one failure retries that job only.
          perJobResults: true,
        },
        async (jobs: Job[]) => {
          const settled = await Promise.allSettled(jobs.map((job) => handler(job.data, { id: job.id })));
          return settled.map((outcome, i) =>
            outcome.status === 'fulfilled'
              ? { id: jobs[i]!.id, status: 'completed' as const }
              : {
                  id: jobs[i]!.id,
                  status: 'failed' as const,
                  output: {
                    message: outcome.reason instanceof Error ? outcome.reason.message : String(outcome.reason),
                  },
                },
          );
        },
      );
    },
    async offWork(name, workerId) {
      await boss.offWork(name, { id: workerId, wait: true });
    },
    async schedule(name, cron) {
      await boss.schedule(name, cron);
    },
    async stop(waitMs) {
      await boss.stop({ graceful: true, timeout: waitMs });
    },
  };
}
