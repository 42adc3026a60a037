// Email sign-in codes on real PostgreSQL with a pinned clock: hashing at rest, TTL, single use, the attempt limit,
// the resend limit, scopes, pruning, and atomicity of issue and verify under concurrency.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { withTx } from '../../infra/db/database';
import { secretsFromBytes } from '../../infra/secrets/serviceSecret';
import { AppError } from '../errors';
import { useMigratedDatabase } from '../../../tests/support/database';
import {
  EMAIL_CODE_SETTINGS,
  OPERATOR_SCOPE,
  appScope,
  deleteExpiredEmailCodes,
  issueEmailCode,
  releaseEmailCode,
  verifyEmailCode,
  withdrawEmailCode,
  type EmailCodeScope,
} from './emailCodes';

const secrets = secretsFromBytes(randomBytes(32), 'test');
const T0 = new Date('2030-06-15T12:00:00.000Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

const db = useMigratedDatabase();
let counter = 0;
/** A distinct address per test, so tests do not share codes or resend windows. */
const freshEmail = () => `user${++counter}@example.com`;

const issue = (email: string, now = T0, scope: EmailCodeScope = OPERATOR_SCOPE) =>
  issueEmailCode(db, secrets, { scope, email, now });
const verify = (email: string, code: string, now = T0, scope: EmailCodeScope = OPERATOR_SCOPE) =>
  verifyEmailCode(db, secrets, { scope, email, code, now });
const wrongCodeFor = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

/** The AppError `work` rejects with (fails the test when it resolves or throws anything else). */
async function refusal(work: Promise<unknown>): Promise<AppError> {
  try {
    await work;
  } catch (err) {
    assert.ok(err instanceof AppError, `expected an AppError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected a refusal');
}

async function assertInvalid(work: Promise<unknown>): Promise<void> {
  const err = await refusal(work);
  assert.equal(err.code, 'EMAIL_CODE_INVALID');
  assert.equal(err.status, 401);
}

const attemptsOf = async (email: string, scope: EmailCodeScope = OPERATOR_SCOPE) =>
  (await db('email_codes').where({ scope, email }).first<{ attempts: number }>('attempts')).attempts;

describe('issueEmailCode', () => {
  test('returns a 6-digit code valid for 600 s, with a 60 s resend delay', async () => {
    const issued = await issue(freshEmail());
    assert.match(issued.code, /^[0-9]{6}$/);
    assert.deepEqual(issued.expiresAt, at(600));
    assert.equal(issued.resendAfterSeconds, 60);
    assert.deepEqual(EMAIL_CODE_SETTINGS, {
      digits: 6,
      ttlSeconds: 600,
      resendAfterSeconds: 60,
      maxAttempts: 5,
      keepDeadSeconds: 86_400,
    });
  });

  test('codes are zero-padded and vary (200 codes: some start with 0, nearly all distinct)', async () => {
    const codes = await Promise.all(Array.from({ length: 200 }, () => issue(freshEmail()).then((i) => i.code)));
    for (const code of codes) assert.match(code, /^[0-9]{6}$/);
    // P(no leading zero in 200 uniform codes) = 0.9^200, about 7e-10
    assert.ok(
      codes.some((c) => c.startsWith('0')),
      'a code below 100000 is padded with zeros',
    );
    assert.ok(new Set(codes).size >= 190, 'codes are random');
  });

  test('stores only the HMAC-SHA256 (service-secret key) of scope, email and code, never the code', async () => {
    const email = freshEmail();
    const { code } = await issue(email);
    const row = await db('email_codes').where({ scope: OPERATOR_SCOPE, email }).first();
    const expected = createHmac('sha256', secrets.derive('email-code'))
      .update(JSON.stringify([OPERATOR_SCOPE, email, code]))
      .digest();
    assert.deepEqual(row.code_hash, expected);
    for (const [column, value] of Object.entries(row as Record<string, unknown>)) {
      const text = Buffer.isBuffer(value) ? value.toString('latin1') + value.toString('hex') : String(value);
      assert.ok(!text.includes(code), `column ${column} holds the code in clear`);
    }
    assert.deepEqual(row.sent_at, T0);
    assert.deepEqual(row.created_at, T0);
    assert.equal(row.attempts, 0);
    assert.equal(row.consumed_at, null);
  });

  test('normalizes the address: a code issued to "  Ada@Example.COM " verifies for ada@example.com', async () => {
    const { code } = await issue('  Ada@Example.COM ', T0, appScope('app_norm'));
    await verify('ada@example.com', code, at(1), appScope('app_norm'));
  });

  test('a second code within 60 s is refused with RATE_LIMITED and Retry-After = the seconds left', async () => {
    const email = freshEmail();
    const { code } = await issue(email);
    for (const [elapsed, retryAfter] of [
      [0, '60'],
      [20, '40'],
      [59.5, '1'],
    ] as const) {
      const err = await refusal(issue(email, at(elapsed)));
      assert.equal(err.code, 'RATE_LIMITED');
      assert.equal(err.status, 429);
      assert.equal(err.headers['Retry-After'], retryAfter, `after ${elapsed} s`);
    }
    // the refused requests left the first code alive
    await verify(email, code, at(61));
  });

  test('the same address in the uppercase form is the same address for the resend limit', async () => {
    const email = freshEmail();
    await issue(email);
    assert.equal((await refusal(issue(email.toUpperCase(), at(10)))).code, 'RATE_LIMITED');
  });

  test('after 60 s a new code replaces the previous one (the old code no longer verifies), with fresh attempts', async () => {
    const email = freshEmail();
    const first = await issue(email);
    for (let i = 0; i < EMAIL_CODE_SETTINGS.maxAttempts; i++)
      await assertInvalid(verify(email, wrongCodeFor(first.code), at(1)));
    const second = await issue(email, at(60));
    assert.deepEqual(second.expiresAt, at(660));
    assert.equal(await attemptsOf(email), 0);
    if (second.code !== first.code) await assertInvalid(verify(email, first.code, at(61)));
    await verify(email, second.code, at(62));
    const row = await db('email_codes').where({ scope: OPERATOR_SCOPE, email }).first();
    assert.deepEqual(row.sent_at, at(60));
    assert.deepEqual(row.created_at, T0, 'created_at keeps the first issue');
  });

  test('scopes are separate: a code of one scope never verifies in another, and each has its own resend window', async () => {
    const email = freshEmail();
    const operator = await issue(email, T0, OPERATOR_SCOPE);
    const app = await issue(email, T0, appScope('app_a')); // not rate limited by the operator code
    await assertInvalid(verify(email, operator.code, at(1), appScope('app_b')));
    await assertInvalid(verify(email, app.code, at(1), appScope('app_b')));
    if (operator.code !== app.code) {
      await assertInvalid(verify(email, operator.code, at(1), appScope('app_a')));
    }
    await verify(email, app.code, at(2), appScope('app_a'));
    await verify(email, operator.code, at(2), OPERATOR_SCOPE);
  });

  test('concurrent issues for one address: exactly one code, the others RATE_LIMITED', async () => {
    for (let round = 0; round < 5; round++) {
      const email = freshEmail();
      const results = await Promise.allSettled(Array.from({ length: 10 }, () => issue(email)));
      const issued = results.filter((r) => r.status === 'fulfilled');
      assert.equal(issued.length, 1, 'one code is issued');
      for (const r of results) {
        if (r.status === 'rejected') assert.equal((r.reason as AppError).code, 'RATE_LIMITED');
      }
      await verify(email, (issued[0] as PromiseFulfilledResult<{ code: string }>).value.code, at(1));
    }
  });
});

describe('withdrawEmailCode', () => {
  test('a withdrawn code no longer verifies, and the address may ask again at once', async () => {
    const email = freshEmail();
    const issued = await issue(email);
    await withdrawEmailCode(db, { scope: OPERATOR_SCOPE, email: email.toUpperCase(), issued });
    await assertInvalid(verify(email, issued.code, at(1)));
    const again = await issue(email, at(2));
    await verify(email, again.code, at(3));
  });

  test('withdrawing a code that a later one replaced leaves the later code alone', async () => {
    const email = freshEmail();
    const first = await issue(email);
    const second = await issue(email, at(90)); // issued while the first send was still failing
    await withdrawEmailCode(db, { scope: OPERATOR_SCOPE, email, issued: first });
    assert.equal(
      (await refusal(issue(email, at(91)))).code,
      'RATE_LIMITED',
      'the later code still holds the resend window',
    );
    await verify(email, second.code, at(92));
  });

  test('withdrawing in one scope leaves the same address in another scope alone', async () => {
    const email = freshEmail();
    const operator = await issue(email, T0, OPERATOR_SCOPE);
    const app = await issue(email, T0, appScope('app_w'));
    await withdrawEmailCode(db, { scope: appScope('app_w'), email, issued: app });
    await verify(email, operator.code, at(1), OPERATOR_SCOPE);
  });
});

describe('verifyEmailCode', () => {
  test('the right code verifies once; a second use is refused', async () => {
    const email = freshEmail();
    const { code } = await issue(email);
    await verify(email, code, at(30));
    await assertInvalid(verify(email, code, at(31)));
    const row = await db('email_codes').where({ scope: OPERATOR_SCOPE, email }).first();
    assert.deepEqual(row.consumed_at, at(30));
  });

  test('a code verifies until its expiry and not at or after it', async () => {
    const a = freshEmail();
    const b = freshEmail();
    const codeA = (await issue(a)).code;
    const codeB = (await issue(b)).code;
    await verify(a, codeA, new Date(at(600).getTime() - 1));
    await assertInvalid(verify(b, codeB, at(600)));
    await assertInvalid(verify(b, codeB, at(3600)));
  });

  test('each wrong guess counts: after 4 wrong guesses the right code still verifies', async () => {
    const email = freshEmail();
    const { code } = await issue(email);
    for (let i = 1; i <= 4; i++) {
      await assertInvalid(verify(email, wrongCodeFor(code), at(i)));
      assert.equal(await attemptsOf(email), i);
    }
    await verify(email, code, at(5));
  });

  test('after 5 wrong guesses the code is dead: the right code is refused and the count stays at 5', async () => {
    const email = freshEmail();
    const { code } = await issue(email);
    for (let i = 0; i < 5; i++) await assertInvalid(verify(email, wrongCodeFor(code), at(1)));
    await assertInvalid(verify(email, code, at(2)));
    await assertInvalid(verify(email, wrongCodeFor(code), at(3)));
    assert.equal(await attemptsOf(email), 5);
  });

  test('every refusal looks the same: no code, wrong, expired, consumed, used up', async () => {
    const reasons: Array<() => Promise<void>> = [
      async () => {
        await verify(freshEmail(), '123456');
      },
      async () => {
        const email = freshEmail();
        const { code } = await issue(email);
        await verify(email, wrongCodeFor(code), at(1));
      },
      async () => {
        const email = freshEmail();
        const { code } = await issue(email);
        await verify(email, code, at(601));
      },
      async () => {
        const email = freshEmail();
        const { code } = await issue(email);
        await verify(email, code, at(1));
        await verify(email, code, at(2));
      },
      async () => {
        const email = freshEmail();
        const { code } = await issue(email);
        for (let i = 0; i < 5; i++) await verify(email, wrongCodeFor(code), at(1)).catch(() => undefined);
        await verify(email, code, at(2));
      },
    ];
    const errors = await Promise.all(reasons.map((reason) => refusal(reason())));
    const seen = errors.map((e) =>
      JSON.stringify({
        code: e.code,
        status: e.status,
        message: e.message,
        details: e.details,
        fields: e.fields,
        headers: e.headers,
      }),
    );
    assert.equal(new Set(seen).size, 1, `refusals differ: ${seen.join(' | ')}`);
    assert.equal(errors[0]!.code, 'EMAIL_CODE_INVALID');
  });

  test('a malformed code is refused and counts as a wrong guess', async () => {
    const email = freshEmail();
    const { code } = await issue(email);
    await assertInvalid(verify(email, `${code}0`, at(1)));
    await assertInvalid(verify(email, '', at(1)));
    assert.equal(await attemptsOf(email), 2);
  });

  test('20 concurrent verifications with the right code: exactly one succeeds', async () => {
    const email = freshEmail();
    const { code } = await issue(email);
    const results = await Promise.allSettled(Array.from({ length: 20 }, () => verify(email, code, at(1))));
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
    for (const r of results)
      if (r.status === 'rejected') assert.equal((r.reason as AppError).code, 'EMAIL_CODE_INVALID');
  });

  test('50 concurrent wrong guesses, then the right code: refused, and the count is exactly 5 (none lost, none past 5)', async () => {
    const email = freshEmail();
    const { code } = await issue(email);
    const wrong = wrongCodeFor(code);
    const results = await Promise.allSettled(Array.from({ length: 50 }, () => verify(email, wrong, at(1))));
    assert.ok(results.every((r) => r.status === 'rejected'));
    assert.equal(await attemptsOf(email), 5);
    await assertInvalid(verify(email, code, at(2)));
  });

  test('4 concurrent wrong guesses are all counted, so the right code still verifies after them', async () => {
    const email = freshEmail();
    const { code } = await issue(email);
    await Promise.allSettled(Array.from({ length: 4 }, () => verify(email, wrongCodeFor(code), at(1))));
    assert.equal(await attemptsOf(email), 4);
    await verify(email, code, at(2));
  });

  test('refuses to run inside a caller transaction (its rollback would undo the wrong-attempt count)', async () => {
    const email = freshEmail();
    const { code } = await issue(email);
    await assert.rejects(
      withTx(db, (trx) => verifyEmailCode(trx, secrets, { scope: OPERATOR_SCOPE, email, code, now: at(1) })),
      /own transaction/,
    );
    await verify(email, code, at(2));
  });
});

describe('releaseEmailCode', () => {
  test('a released code verifies again, keeping its expiry and its wrong-attempt count', async () => {
    const email = freshEmail();
    const { code, expiresAt } = await issue(email);
    await assertInvalid(verify(email, wrongCodeFor(code), at(1)));
    const consumed = await verify(email, code, at(2));
    await releaseEmailCode(db, consumed);
    const row = await db('email_codes').where({ scope: OPERATOR_SCOPE, email }).first();
    assert.equal(row.consumed_at, null);
    assert.deepEqual(row.expires_at, expiresAt);
    assert.equal(row.attempts, 1);
    await verify(email, code, at(3));
    await assertInvalid(verify(email, code, at(4)));
  });

  test('releasing leaves a code issued since alone (the old code stays dead, the new one live)', async () => {
    const email = freshEmail();
    const first = await issue(email);
    const consumed = await verify(email, first.code, at(1));
    const second = await issue(email, at(61));
    await releaseEmailCode(db, consumed);
    if (second.code !== first.code) await assertInvalid(verify(email, first.code, at(62)));
    await verify(email, second.code, at(63));
  });

  test('releasing an old consumption does not revive a code consumed again since', async () => {
    const email = freshEmail();
    const { code } = await issue(email);
    const firstUse = await verify(email, code, at(1));
    await releaseEmailCode(db, firstUse);
    await verify(email, code, at(2));
    await releaseEmailCode(db, firstUse);
    await assertInvalid(verify(email, code, at(3)));
  });

  test('while a consumed code awaits release, concurrent verifications are refused and count no attempt', async () => {
    const email = freshEmail();
    const { code } = await issue(email);
    const consumed = await verify(email, code, at(1));
    const results = await Promise.allSettled([verify(email, code, at(2)), verify(email, wrongCodeFor(code), at(2))]);
    assert.ok(results.every((r) => r.status === 'rejected' && (r.reason as AppError).code === 'EMAIL_CODE_INVALID'));
    assert.equal(await attemptsOf(email), 0);
    await releaseEmailCode(db, consumed);
    await verify(email, code, at(3));
  });
});

describe('deleteExpiredEmailCodes', () => {
  test('deletes codes expired for more than a day, keeps live and recently dead ones', async () => {
    const scope = appScope('app_prune');
    const old = freshEmail();
    const recent = freshEmail();
    const live = freshEmail();
    await issue(old, T0, scope);
    await issue(recent, at(3600), scope);
    await issue(live, at(86_400 + 900), scope);
    // at T0 + 1 day + 1000 s: `old` expired at T0+600 (more than a day ago), `recent` at T0+4200 (less than a day ago)
    const deleted = await deleteExpiredEmailCodes(db, at(86_400 + 1000));
    assert.ok(deleted >= 1);
    const left = (await db('email_codes').where({ scope }).select<{ email: string }[]>('email'))
      .map((r) => r.email)
      .sort();
    assert.deepEqual(left, [recent, live].sort());
  });
});
