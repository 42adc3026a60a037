// Storage of Idempotency-Key records. A record goes: claimed (in flight) -> completed (answer kept) or released
// (deleted, so the client may retry). The claim is one atomic statement, so of any number of concurrent requests with
// one key exactly one runs the operation. The answer is an opaque sealed blob here; src/http/idempotency.ts decides
// what is stored and seals it.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';

/** How long an answer is replayed (and a key stays bound to its request). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** An in-flight claim older than this is presumed dead (a crash mid-request) and may be taken over. */
export const IDEMPOTENCY_LOCK_TIMEOUT_MS = 60 * 1000;

export interface IdempotencyClaimRequest {
  /** The caller the key belongs to (operator:, user:, key:<id>): the same key from two callers never collides. */
  scope: string;
  key: string;
  operationId: string;
  /** requestFingerprint() of the request. */
  requestHash: string;
  now: Date;
}

export type IdempotencyClaim =
  /** This request runs the operation; complete or release the key with the lockId. */
  | { kind: 'claimed'; lockId: string }
  /** The key is bound to another request. */
  | { kind: 'mismatch' }
  /** The same request is still running elsewhere. */
  | { kind: 'inFlight' }
  /** The same request completed: replay its answer. */
  | { kind: 'completed'; answer: Buffer };

interface Row {
  request_hash: string;
  completed_at: Date | null;
  answer: Buffer | null;
}

/** Claims `key` for this request, or says why it cannot (another request, in flight, or already answered). */
export async function claimIdempotencyKey(db: Knex, req: IdempotencyClaimRequest): Promise<IdempotencyClaim> {
  const expiredBefore = new Date(req.now.getTime() - IDEMPOTENCY_TTL_MS);
  const staleBefore = new Date(req.now.getTime() - IDEMPOTENCY_LOCK_TIMEOUT_MS);
  // A row can vanish between the two statements (its owner released it, or it was pruned): then claim again.
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const lockId = randomUUID();
    // Insert, or take the row over when it expired (any request may start afresh) or when its claim is stale and it
    // is the same request (the first attempt crashed; another request stays bound to the key until it expires).
    const claimed = await db.raw<{ rows: unknown[] }>(
      `insert into idempotency_keys as k (scope, key, operation_id, request_hash, lock_id, locked_at, created_at)
       values (?, ?, ?, ?, ?, ?, ?)
       on conflict (scope, key) do update set
         operation_id = excluded.operation_id, request_hash = excluded.request_hash, lock_id = excluded.lock_id,
         locked_at = excluded.locked_at, created_at = excluded.created_at, completed_at = null, answer = null
       where k.created_at <= ?
          or (k.completed_at is null and k.locked_at <= ? and k.request_hash = excluded.request_hash)
       returning lock_id`,
      [req.scope, req.key, req.operationId, req.requestHash, lockId, req.now, req.now, expiredBefore, staleBefore],
    );
    if (claimed.rows.length > 0) return { kind: 'claimed', lockId };
    const row = await db('idempotency_keys')
      .where({ scope: req.scope, key: req.key })
      .first<Row | undefined>('request_hash', 'completed_at', 'answer');
    if (!row) continue;
    if (row.request_hash !== req.requestHash) return { kind: 'mismatch' };
    if (row.completed_at === null || row.answer === null) return { kind: 'inFlight' };
    return { kind: 'completed', answer: row.answer };
  }
  throw new Error(`idempotency key of ${req.scope} kept vanishing while being claimed`);
}

/**
 * Stores the answer of a claimed key. Returns false when the claim was lost (taken over after the lock timeout): the
 * answer of the request that took it over is the one kept.
 */
export async function completeIdempotencyKey(
  db: Knex,
  claim: { scope: string; key: string; lockId: string; answer: Buffer; now: Date },
): Promise<boolean> {
  const updated = await db('idempotency_keys')
    .where({ scope: claim.scope, key: claim.key, lock_id: claim.lockId })
    .update({ completed_at: claim.now, answer: claim.answer });
  return updated > 0;
}

/** Deletes a claimed key, so that a retry runs the operation again (the answer was not final). */
export async function releaseIdempotencyKey(
  db: Knex,
  claim: { scope: string; key: string; lockId: string },
): Promise<void> {
  await db('idempotency_keys').where({ scope: claim.scope, key: claim.key, lock_id: claim.lockId }).delete();
}

/** Deletes the records older than the 24-hour replay window; returns how many. Scheduled by the jobs runner. */
export async function pruneIdempotencyKeys(db: Knex, now: Date): Promise<number> {
  return db('idempotency_keys')
    .where('created_at', '<=', new Date(now.getTime() - IDEMPOTENCY_TTL_MS))
    .delete();
}
