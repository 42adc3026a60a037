// Email sign-in codes, shared by the Dashboard (operators) and the SDK API (each app's end users). One live code per
// (scope, email): issuing replaces the previous code. The database keeps only an HMAC of the code keyed with a key
// derived from the service secret, so a database leak alone does not allow an offline search of the 10^6 codes.
// Both operations are single atomic steps on PostgreSQL: concurrent issues send one code, concurrent verifications
// consume a code once and never lose a wrong attempt. A sign-in that fails after its code was accepted, through the
// service's fault, gives the code back (releaseEmailCode), so the user's retry with the same code works.
import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import type { Knex } from 'knex';
import { withTx } from '../../infra/db/database';
import type { ServiceSecrets } from '../../infra/secrets/serviceSecret';
import { AppError } from '../errors';

/** The code machinery's settings (reliability anchors, "Sessions"). */
export const EMAIL_CODE_SETTINGS = {
  digits: 6,
  ttlSeconds: 600,
  /** At most one code per this many seconds per (scope, email). */
  resendAfterSeconds: 60,
  /** Wrong guesses a code survives; the next attempt, even a right one, is refused. */
  maxAttempts: 5,
  /** How long a dead code is kept before deleteExpiredEmailCodes removes it. */
  keepDeadSeconds: 86_400,
} as const;

/** Whose code it is: `operator` (Dashboard) or `app:<appId>` (an app's end users). Codes never cross scopes. */
export type EmailCodeScope = 'operator' | `app:${string}`;

export const OPERATOR_SCOPE: EmailCodeScope = 'operator';

export function appScope(appId: string): EmailCodeScope {
  return `app:${appId}`;
}

/** The form codes are stored and looked up by: trimmed, lower case. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

type Secrets = Pick<ServiceSecrets, 'derive'>;

interface CodeRow {
  code_hash: Buffer;
  expires_at: Date;
  attempts: number;
  consumed_at: Date | null;
}

const TABLE = 'email_codes';

function hashCode(secrets: Secrets, scope: EmailCodeScope, email: string, code: string): Buffer {
  // JSON keeps the three fields apart: no (scope, email, code) can collide with another by concatenation.
  return createHmac('sha256', secrets.derive('email-code'))
    .update(JSON.stringify([scope, email, code]))
    .digest();
}

function newCode(): string {
  return String(randomInt(0, 10 ** EMAIL_CODE_SETTINGS.digits)).padStart(EMAIL_CODE_SETTINGS.digits, '0');
}

const ms = (seconds: number) => seconds * 1000;

export interface IssuedEmailCode {
  /** The code to email; never stored or logged. */
  code: string;
  expiresAt: Date;
  resendAfterSeconds: number;
}

/**
 * A new code for (scope, email), replacing any previous one; the caller emails it. Throws RATE_LIMITED with
 * Retry-After when the last code for the address was issued less than resendAfterSeconds ago.
 */
export async function issueEmailCode(
  db: Knex,
  secrets: Secrets,
  input: { scope: EmailCodeScope; email: string; now: Date },
): Promise<IssuedEmailCode> {
  const { scope, now } = input;
  const email = normalizeEmail(input.email);
  const code = newCode();
  const expiresAt = new Date(now.getTime() + ms(EMAIL_CODE_SETTINGS.ttlSeconds));
  // One statement: the row is replaced only when its code is old enough, so of two concurrent issues the second
  // waits for the first's row and then finds it too recent.
  const replaced = await db(TABLE)
    .insert({
      scope,
      email,
      code_hash: hashCode(secrets, scope, email, code),
      expires_at: expiresAt,
      attempts: 0,
      consumed_at: null,
      sent_at: now,
      created_at: now,
    })
    .onConflict(['scope', 'email'])
    .merge(['code_hash', 'expires_at', 'attempts', 'consumed_at', 'sent_at'])
    .where(`${TABLE}.sent_at`, '<=', new Date(now.getTime() - ms(EMAIL_CODE_SETTINGS.resendAfterSeconds)))
    .returning('sent_at');
  if (replaced.length === 0) {
    const last = await db(TABLE).where({ scope, email }).first<{ sent_at: Date } | undefined>('sent_at');
    const wait = last
      ? Math.ceil((last.sent_at.getTime() + ms(EMAIL_CODE_SETTINGS.resendAfterSeconds) - now.getTime()) / 1000)
      : 1;
    const retryAfter = Math.max(1, wait);
    throw new AppError('RATE_LIMITED', {
      message: `A code was sent to this address less than ${EMAIL_CODE_SETTINGS.resendAfterSeconds} s ago; retry in ${retryAfter} s`,
      headers: { 'Retry-After': String(retryAfter) },
    });
  }
  return { code, expiresAt, resendAfterSeconds: EMAIL_CODE_SETTINGS.resendAfterSeconds };
}

/**
 * Takes back a code that could not be delivered (the send failed), so the address may ask again at once. Only that
 * code goes: a later one, issued while a slow send was failing, is left alone.
 */
export async function withdrawEmailCode(
  db: Knex,
  input: { scope: EmailCodeScope; email: string; issued: IssuedEmailCode },
): Promise<void> {
  // expires_at identifies one issue: issues for an address are at least resendAfterSeconds apart.
  await db(TABLE)
    .where({ scope: input.scope, email: normalizeEmail(input.email), expires_at: input.issued.expiresAt })
    .delete();
}

/** One answer for every refusal, so it never tells which reason applied (or whether a code exists). */
function invalidCode(): AppError {
  return new AppError('EMAIL_CODE_INVALID', { message: 'The code is wrong, expired or used up' });
}

/** Which consumption of which code a verification made: what releaseEmailCode needs to undo exactly that one. */
export interface ConsumedEmailCode {
  scope: EmailCodeScope;
  email: string;
  codeHash: Buffer;
  consumedAt: Date;
}

/**
 * Checks `code` against the live code of (scope, email) and consumes it (single use). Throws EMAIL_CODE_INVALID when
 * there is no code, it is wrong, expired, consumed, or its attempts are used up. Each wrong guess counts, and is
 * committed before the refusal: pass the pool handle, not a transaction whose rollback would undo the count.
 */
export async function verifyEmailCode(
  db: Knex,
  secrets: Secrets,
  input: { scope: EmailCodeScope; email: string; code: string; now: Date },
): Promise<ConsumedEmailCode> {
  if (db.isTransaction)
    throw new Error(
      'verifyEmailCode must run in its own transaction: a rollback of the caller would undo the wrong-attempt count',
    );
  const { scope, now } = input;
  const email = normalizeEmail(input.email);
  const presented = hashCode(secrets, scope, email, input.code);
  const outcome = await withTx(db, async (trx) => {
    // The row lock serializes verifications of one code: it is consumed once and no wrong attempt is lost.
    const row = await trx(TABLE)
      .where({ scope, email })
      .forUpdate()
      .first<CodeRow | undefined>('code_hash', 'expires_at', 'attempts', 'consumed_at');
    if (!row || row.consumed_at !== null || row.expires_at <= now || row.attempts >= EMAIL_CODE_SETTINGS.maxAttempts)
      return 'dead';
    if (!timingSafeEqual(row.code_hash, presented)) {
      await trx(TABLE).where({ scope, email }).increment('attempts', 1);
      return 'wrong';
    }
    await trx(TABLE).where({ scope, email }).update({ consumed_at: now });
    return 'verified';
  });
  if (outcome !== 'verified') throw invalidCode();
  return { scope, email, codeHash: presented, consumedAt: now };
}

/**
 * Gives back a code whose sign-in failed after it was accepted (the wallet or the database was unavailable): the
 * failure is the service's, so the same request may be retried with the same code. Only that consumption is undone:
 * a code issued since (another hash) or consumed again since (another time) is left alone. The code keeps its expiry
 * and its wrong-attempt count.
 */
export async function releaseEmailCode(db: Knex, consumed: ConsumedEmailCode): Promise<void> {
  await db(TABLE)
    .where({
      scope: consumed.scope,
      email: consumed.email,
      code_hash: consumed.codeHash,
      consumed_at: consumed.consumedAt,
    })
    .update({ consumed_at: null });
}

/** Deletes codes that have been dead (expired, hence also consumed or used up) for more than keepDeadSeconds. */
export async function deleteExpiredEmailCodes(db: Knex, now: Date): Promise<number> {
  return db(TABLE)
    .where('expires_at', '<', new Date(now.getTime() - ms(EMAIL_CODE_SETTINGS.keepDeadSeconds)))
    .delete();
}
