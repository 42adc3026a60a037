// Housekeeping that keeps short-lived security records from piling up: DPoP proof ids past their replay window,
// dead email codes, expired idempotency records, expired OAuth states, and the daily quota and sponsored-operation
// counts of past days. Every prune is an idempotent DELETE by time, so any number of instances may run this loop
// against one database at once.
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Clock } from '../deps';
import { deleteExpiredEmailCodes } from '../emailCodes/emailCodes';
import { pruneDailyOpCounts } from '../feePolicy/dailyOps';
import { pruneDailyUsage, utcDay } from '../limits/dailyQuota';
import { pruneIdempotencyKeys } from '../idempotency/store';
import { pruneOAuthStates } from '../oauth/states';
import { pruneDpopProofJtis } from '../sessions/dpop';
import { pruneUsedSep10Challenges } from '../sep10/store';
import { pruneOwnSubmissions } from '../transactions/store';

export const MAINTENANCE_INTERVAL_MS = 10 * 60 * 1000;

type Prune = (db: Knex, now: Date) => Promise<number>;

/** Every prune, by name. */
export const PRUNES: Record<string, Prune> = {
  dpopProofJtis: pruneDpopProofJtis,
  emailCodes: deleteExpiredEmailCodes,
  idempotencyKeys: pruneIdempotencyKeys,
  sep10UsedChallenges: pruneUsedSep10Challenges,
  oauthStates: pruneOAuthStates,
  // yesterday's counts are kept a day for support questions ("why was I limited at 23:59?")
  apiKeyDailyUsage: (db, now) => pruneDailyUsage(db, utcDay(new Date(now.getTime() - 86_400_000))),
  dailyOpCounts: pruneDailyOpCounts,
  ownSubmissions: pruneOwnSubmissions,
};

/** Runs every prune once; a failing prune is logged and does not stop the others. */
export async function runMaintenance(db: Knex, clock: Clock, log: Logger): Promise<Record<string, number>> {
  const removed: Record<string, number> = {};
  for (const [name, prune] of Object.entries(PRUNES)) {
    try {
      removed[name] = await prune(db, clock.now());
    } catch (err) {
      log.warn({ err, prune: name }, 'maintenance prune failed');
    }
  }
  log.debug({ removed }, 'maintenance done');
  return removed;
}
