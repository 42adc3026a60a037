// Every background job of the service, in one place: what it is called, what starts it (a period or a trigger), what
// it does and how it is retried. src/jobs/worker.ts runs them on the job queue (pg-boss), in the API process (`make
// run`) or in worker processes of their own (`npm run worker`); any number of processes may run them against one
// database, and each pass below is safe to run in several at once (its rows are leased or locked).
import { DEFAULT_WEBHOOK_SETTINGS, type NetworkName } from '../config';
import type { Deps } from '../domain/deps';
import type { QueueSettings } from '../infra/jobs/jobQueue';
import {
  activationRecoveryIntervalMs,
  runActivationRecovery,
  settleAppliedActivations,
  type FundingContext,
} from '../domain/funding/funding';
import { runTrustlineBackfill, trustlineBackfillIntervalMs } from '../domain/funding/trustlineBackfill';
import { CONFIRMATION_BATCH, confirmDue, confirmationIntervalMs } from '../domain/transactions/confirmation';
import { CLAIM_RECOVERY_BATCH, CLAIM_RECOVERY_INTERVAL_MS, runClaimRecovery } from '../domain/distribution/claims';
import { PUSH_RUNNER_INTERVAL_MS, runPushPass } from '../domain/distribution/pushRunner';
import { RAMP_FOLLOW_BATCH, RAMP_FOLLOW_INTERVAL_MS, followOpenRamps } from '../domain/ramps/transactions';
import { DEFAULT_FOLLOWER_INTERVAL_MS, followNetwork, type FollowerState } from '../domain/transactions/ledgerFollower';
import {
  SPONSOR_SCAN_FIRST_DELAY_MS,
  SPONSOR_SCAN_INTERVAL_MS,
  scanSponsorBalances,
} from '../domain/funding/lowBalanceScan';
import { MAINTENANCE_INTERVAL_MS, runMaintenance } from '../domain/maintenance/maintenance';
import { WEBHOOK_DELIVERY_JOB, deliverWebhookEvent } from '../domain/webhooks/delivery';

/** What a job's handler is given: the service's dependencies (as a request handler gets them). */
export type JobDeps = Deps & FundingContext;

/**
 * A pass that runs again and again: one chain of passes per key (the ledger follower keeps one per network), never two
 * passes of one key at once across all processes. Its retry policy is the next pass: a failed pass is logged and the
 * next one comes after a back-off (the interval doubled per failure in a row, at most 30 s more than usual).
 */
export interface PeriodicJob {
  kind: 'periodic';
  name: string;
  /** The keys to run a chain for (default one chain, key `all`). */
  keys?(deps: JobDeps): string[];
  /** The wait after a pass that left nothing waiting. */
  everyMs(deps: JobDeps): number;
  /** The wait before a process's first pass (default none). */
  firstDelayMs?(deps: JobDeps): number;
  /** The level of a failed pass's log line. */
  failureLevel: 'warn' | 'error';
  /**
   * Builds the pass for one process (a closure may keep what that process learns between passes, such as the chain's
   * latest ledger). The pass answers 'more' when work is still waiting, so the next pass starts at once.
   */
  create(deps: JobDeps): (key: string) => Promise<'more' | 'idle'>;
}

/** A job enqueued by a write (in the write's own transaction), run once per job with the queue's retry policy. */
export interface TriggeredJob {
  kind: 'triggered';
  name: string;
  /** The queue's retry and expiry settings (they may follow the service's settings). */
  queue(deps: Pick<JobDeps, 'webhooks'>): QueueSettings;
  /** Jobs one process runs at once. */
  concurrency: number;
  create(deps: JobDeps): (data: unknown) => Promise<void>;
}

export type JobDefinition = PeriodicJob | TriggeredJob;

/** How long one ledger-follower pass may read before it lets the next pass (perhaps in another process) go on. */
const FOLLOWER_PASS_BUDGET_MS = 20_000;

export const periodicJobs: PeriodicJob[] = [
  {
    kind: 'periodic',
    name: 'activation-recovery',
    everyMs: activationRecoveryIntervalMs,
    failureLevel: 'warn',
    create(deps) {
      // After a crash: activations this process's predecessor sent but never recorded are settled first, once.
      let reconciled = false;
      return async () => {
        if (!reconciled) {
          reconciled = true;
          await settleAppliedActivations(deps).catch((err: unknown) =>
            deps.log.warn({ err }, 'start-up reconciliation of activations failed'),
          );
        }
        await runActivationRecovery(deps);
        return 'idle';
      };
    },
  },
  {
    kind: 'periodic',
    name: 'trustline-backfill',
    everyMs: trustlineBackfillIntervalMs,
    failureLevel: 'warn',
    create: (deps) => async () => {
      await runTrustlineBackfill(deps);
      return 'idle';
    },
  },
  {
    kind: 'periodic',
    name: 'distribution-claim-recovery',
    everyMs: () => CLAIM_RECOVERY_INTERVAL_MS,
    failureLevel: 'warn',
    // Claims whose request ended before they settled (not confirmed in time, or the process died): see claims.ts.
    create: (deps) => async () => ((await runClaimRecovery(deps)) >= CLAIM_RECOVERY_BATCH ? 'more' : 'idle'),
  },
  {
    kind: 'periodic',
    name: 'distribution-pushes',
    everyMs: () => PUSH_RUNNER_INTERVAL_MS,
    failureLevel: 'warn',
    // Pays the pending recipients of pushes a chunk at a time and settles what a dead pass left: see pushRunner.ts.
    create: (deps) => () => runPushPass(deps),
  },
  {
    kind: 'periodic',
    name: 'ramps',
    everyMs: () => RAMP_FOLLOW_INTERVAL_MS,
    failureLevel: 'warn',
    // Open ramps nobody polled lately: refreshed from their provider, payments it asks for sent: see ramps/transactions.ts.
    create: (deps) => async () => ((await followOpenRamps(deps)) >= RAMP_FOLLOW_BATCH ? 'more' : 'idle'),
  },
  {
    kind: 'periodic',
    name: 'tx-confirmation',
    everyMs: confirmationIntervalMs,
    failureLevel: 'error',
    create: (deps) => async () => ((await confirmDue(deps)) >= CONFIRMATION_BATCH ? 'more' : 'idle'),
  },
  {
    kind: 'periodic',
    name: 'ledger-follower',
    keys: (deps) => Object.keys(deps.stellar?.gateways ?? {}),
    everyMs: () => DEFAULT_FOLLOWER_INTERVAL_MS,
    failureLevel: 'warn',
    create(deps) {
      const states = new Map<string, FollowerState>();
      return async (network) => {
        const gateway = deps.stellar?.gateways?.[network as NetworkName];
        if (!gateway) return 'idle';
        const state = states.get(network) ?? {};
        states.set(network, state);
        return (await followNetwork(deps, gateway, state, { budgetMs: FOLLOWER_PASS_BUDGET_MS })) === 'behind'
          ? 'more'
          : 'idle';
      };
    },
  },
  {
    kind: 'periodic',
    name: 'sponsor-balance-scan',
    everyMs: () => SPONSOR_SCAN_INTERVAL_MS,
    firstDelayMs: () => SPONSOR_SCAN_FIRST_DELAY_MS,
    failureLevel: 'error',
    create: (deps) => async () => {
      const n = await scanSponsorBalances(deps);
      if (n > 0) deps.log.info({ recorded: n }, 'sponsor balance scan: low sponsor wallets reported');
      return 'idle';
    },
  },
  {
    kind: 'periodic',
    name: 'maintenance',
    everyMs: () => MAINTENANCE_INTERVAL_MS,
    firstDelayMs: () => MAINTENANCE_INTERVAL_MS,
    failureLevel: 'warn',
    create: (deps) => async () => {
      await runMaintenance(deps.db, deps.clock, deps.log);
      return 'idle';
    },
  },
];

export const triggeredJobs: TriggeredJob[] = [
  {
    kind: 'triggered',
    name: WEBHOOK_DELIVERY_JOB,
    // One job per attempt; the schedule of attempts is the delivery's own (domain/webhooks/delivery.ts). The queue's
    // retries cover an attempt that could not run to its end (the database failed, or the worker died: the job
    // expires 15 s after the answer's time-out), so an event is never lost; its receiver may then see it twice.
    queue: (deps) => ({
      notify: true,
      retryLimit: 5,
      retryDelaySeconds: 5,
      retryBackoff: true,
      expireInSeconds: Math.ceil((deps.webhooks ?? DEFAULT_WEBHOOK_SETTINGS).timeoutMs / 1000) + 15,
    }),
    concurrency: 8,
    create: (deps) => (data) => deliverWebhookEvent(deps, data),
  },
];

export const jobRegistry: JobDefinition[] = [...periodicJobs, ...triggeredJobs];
