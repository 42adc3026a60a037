// The opaque cursor of deep pages (the audit log, wallet histories): the id of the last row returned (the next page
// starts right after it in the list's (created_at, id) order, at constant cost at any depth) and the offset of the
// next page (so the answer can still say where the page sits). base64url JSON: opaque to clients, cheap to check.
// The id's type prefix is checked on decoding, so a cursor of one list is never read as a position in another.
import { AppError } from '../errors';
import type { IdPrefix } from '../ids';

export interface KeysetCursor {
  /** The last row of the previous page. */
  afterId: string;
  /** How many rows come before the page the cursor opens. */
  offset: number;
}

export function encodeCursor(cursor: KeysetCursor): string {
  return Buffer.from(JSON.stringify({ a: cursor.afterId, o: cursor.offset }), 'utf8').toString('base64url');
}

/** The cursor, or undefined for anything this service did not produce for ids of type `prefix`. */
export function decodeCursor(value: string, prefix: IdPrefix): KeysetCursor | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(value)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  const { a, o } = (parsed ?? {}) as { a?: unknown; o?: unknown };
  if (typeof a !== 'string' || !new RegExp(`^${prefix}_[0-9A-Za-z]{1,60}$`).test(a)) return undefined;
  if (typeof o !== 'number' || !Number.isSafeInteger(o) || o < 0) return undefined;
  return { afterId: a, offset: o };
}

/**
 * 400 INVALID_CURSOR: a cursor the schema accepts (any short string) that this list never issued (forged, another
 * list's, another app's). Not a VALIDATION_ERROR: the request is well formed; details.fieldErrors still names the
 * field, for forms and clients that show errors in place.
 */
export function invalidCursor(): AppError {
  return new AppError('INVALID_CURSOR', {
    message: 'The cursor is not one this list issued: pass back a nextCursor as given',
    details: { fieldErrors: { 'query.cursor': ['is not a cursor of this list: pass back a nextCursor as given'] } },
  });
}
