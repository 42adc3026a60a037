// Text from outside (the chain above all: a text memo is up to 28 arbitrary bytes) as PostgreSQL and people can take
// it. PostgreSQL refuses U+0000 in text and jsonb ("unsupported Unicode escape sequence"), and a lone UTF-16 surrogate
// is silently turned into U+FFFD on the way in; control characters garble a history line. So:
//   - raw bytes are kept apart, exactly (base64), by whoever needs them;
//   - what is shown and stored as text is the display form: UTF-8 decoded leniently, every invalid byte sequence,
//     lone surrogate and control character replaced by U+FFFD, so the replacement is visible and nothing fails.

/** Shown in place of a byte, surrogate or control character that cannot be shown. */
export const REPLACEMENT = '\uFFFD';

// C0 controls (NUL included), DEL and C1 controls, and unpaired surrogates.
const UNSAFE = /\p{Cc}|\p{Cs}/gu;

/** `text` with every control character and lone surrogate replaced by U+FFFD (the same string when it has none). */
export function safeText(text: string): string {
  return text.replace(UNSAFE, REPLACEMENT);
}

/** Whether `text` can be stored and shown as it is (no control character, no lone surrogate). */
export function isSafeText(text: string): boolean {
  UNSAFE.lastIndex = 0;
  const unsafe = UNSAFE.test(text);
  UNSAFE.lastIndex = 0;
  return !unsafe;
}

// What no input string may hold: U+0000 (PostgreSQL refuses it) and unpaired surrogates (stored as U+FFFD otherwise).
const REFUSED_IN_INPUT = /\0|\p{Cs}/u;

/** Why `text` cannot be taken as input (U+0000, an unpaired surrogate), or undefined when it can. */
export function inputTextProblem(text: string): string | undefined {
  const found = REFUSED_IN_INPUT.exec(text);
  if (!found) return undefined;
  return found[0] === '\u0000'
    ? 'must not contain U+0000 (NUL)'
    : 'must be well-formed Unicode (no unpaired surrogate)';
}

/** Arbitrary bytes as display text: UTF-8 decoded leniently (invalid sequences become U+FFFD), then made safe. */
export function displayBytes(bytes: Uint8Array): string {
  return safeText(new TextDecoder('utf-8', { fatal: false }).decode(bytes));
}

/**
 * A JSON-like value with every string (keys included) made safe, for jsonb columns (events, summary lines).
 * Values that are not plain data (bigint, Buffer...) are expected to have been converted by the caller.
 */
export function safeJson<T>(value: T): T {
  if (typeof value === 'string') return safeText(value) as T;
  if (Array.isArray(value)) return value.map(safeJson) as T;
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [safeText(k), safeJson(v)])) as T;
  }
  return value;
}
