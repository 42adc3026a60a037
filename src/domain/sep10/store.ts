// Storage for SEP-10 sign-in: the challenges already used (single use) and operators by Stellar account. Functions
// take the knex handle or transaction, so the verification handler does both in the transaction that starts the
// session: a failure leaves the challenge unused.
import type { Knex } from 'knex';
import { findOperator, type Operator } from '../apps/store';
import { newId } from '../ids';

/**
 * Records a verified challenge as used; false when it already was. The insert is atomic, so of concurrent
 * verifications of one challenge exactly one gets true (the others wait for its transaction, then see the row).
 */
export async function markChallengeUsed(db: Knex, input: { challengeHash: string; expiresAt: Date }): Promise<boolean> {
  const rows = await db('sep10_used_challenges')
    .insert({ challenge_hash: input.challengeHash, expires_at: input.expiresAt })
    .onConflict('challenge_hash')
    .ignore()
    .returning('challenge_hash');
  return rows.length === 1;
}

/**
 * An expired challenge fails verification before its row is read, so the row is no longer needed; the hour of margin
 * covers instances whose clocks run behind the pruning one's.
 */
const PRUNE_MARGIN_MS = 3600_000;

/** Deletes used challenges expired for more than the margin; returns how many (for the maintenance loop). */
export async function pruneUsedSep10Challenges(db: Knex, now: Date): Promise<number> {
  return db('sep10_used_challenges')
    .where('expires_at', '<', new Date(now.getTime() - PRUNE_MARGIN_MS))
    .delete();
}

/** The operator with this Stellar account, created at its first sign-in; safe when called concurrently. */
export async function findOrCreateOperatorByStellarAccount(db: Knex, account: string): Promise<Operator> {
  // ON CONFLICT DO NOTHING waits for a concurrent insert of the same account, after which the lookup sees it.
  const [inserted] = await db('operators')
    .insert({ id: newId('op'), stellar_account: account })
    .onConflict('stellar_account')
    .ignore()
    .returning<{ id: string }[]>('id');
  const id =
    inserted?.id ??
    (await db<{ id: string; stellar_account: string }>('operators').where({ stellar_account: account }).first('id'))
      ?.id;
  const operator = id === undefined ? undefined : await findOperator(db, id);
  if (!operator) throw new Error(`operator of Stellar account ${account} neither inserted nor found`);
  return operator;
}
