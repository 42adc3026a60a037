// Each user's sponsored operations per UTC day (`daily_op_counts`), for the policy's daily cap. A submission reserves
// its operations before the fee-bump is signed with one conditional upsert, so concurrent submissions can never push
// a count past the cap, and gives them back when the network refused the transaction outright (nothing applied,
// nothing charged). The day is always taken from the same instant the caller passes to reserve and release.
import type { Knex } from 'knex';
import { utcDay } from '../limits/dailyQuota';
import { preparedQuery } from '../../infra/db/database';

export { utcDay };

/** The user's operations counted on the UTC day of `at` (0 when none). */
export async function opsUsedToday(db: Knex, input: { appId: string; userId: string; at: Date }): Promise<number> {
  const { rows } = await preparedQuery<{ ops: number }>(db, 'daily-ops-used', OPS_USED_SQL, [
    input.appId,
    input.userId,
    utcDay(input.at),
  ]);
  return rows[0]?.ops ?? 0;
}

/** A prepared statement: every sponsored transaction's policy reads it (database.ts preparedQuery). */
const OPS_USED_SQL = 'select ops from daily_op_counts where app_id = $1 and user_id = $2 and day = $3::date';

/** A reservation of the user's operations for the day, with the cap it must stay under (null: no cap). */
export interface DailyOpsReservation {
  appId: string;
  userId: string;
  at: Date;
  ops: number;
  cap: number | null;
}

/**
 * The conditional upsert of a reservation, for a statement of the caller's: it counts the operations once for each
 * row of `from` (a CTE of that statement; without it, once) and answers a row (`ops`, the day's count) when they were
 * counted. Undefined when `ops` alone is over the cap: the upsert's INSERT branch has no WHERE, so that is refused
 * here, before any SQL. ON CONFLICT DO UPDATE locks the row, so each concurrent reservation sees the count the
 * previous one left.
 */
export function dailyOpsReservationSql(
  input: DailyOpsReservation,
  from?: string,
): { sql: string; bindings: (string | number)[] } | undefined {
  const { appId, userId, ops, cap } = input;
  if (cap !== null && ops > cap) return undefined;
  return {
    sql: `insert into daily_op_counts (app_id, user_id, day, ops) select ?, ?, ?::date, ?::int ${from ? `from ${from}` : ''}
     on conflict (app_id, user_id, day) do update set ops = daily_op_counts.ops + excluded.ops
     ${cap === null ? '' : 'where daily_op_counts.ops + excluded.ops <= ?'}
     returning ops`,
    bindings: cap === null ? [appId, userId, utcDay(input.at), ops] : [appId, userId, utcDay(input.at), ops, cap],
  };
}

/**
 * Counts `ops` operations for the user on the UTC day of `at`, unless that would take the day past `cap`: true when
 * counted, false when refused (nothing changes then). A null cap counts them anyway (the count stays meaningful if a
 * cap is set later in the day) and always answers true.
 */
export async function reserveDailyOps(db: Knex, input: DailyOpsReservation): Promise<boolean> {
  const reservation = dailyOpsReservationSql(input);
  if (!reservation) return false;
  const result = await db.raw<{ rows: { ops: number }[] }>(reservation.sql, reservation.bindings);
  return result.rows.length > 0;
}

/** Gives back operations reserved on the UTC day of `at` (never below zero). */
export async function releaseDailyOps(
  db: Knex,
  input: { appId: string; userId: string; at: Date; ops: number },
): Promise<void> {
  await db('daily_op_counts')
    .where({ app_id: input.appId, user_id: input.userId, day: utcDay(input.at) })
    .update({ ops: db.raw('greatest(ops - ?, 0)', [input.ops]) });
}

/** Days kept: today, yesterday (a reservation made before midnight may still be released) and one more for support. */
const KEPT_DAYS = 2;

/** Deletes the counts of days more than two days before `now`'s: only the current UTC day is ever enforced. */
export async function pruneDailyOpCounts(db: Knex, now: Date): Promise<number> {
  return db('daily_op_counts')
    .where('day', '<', utcDay(new Date(now.getTime() - KEPT_DAYS * 86_400_000)))
    .delete();
}
