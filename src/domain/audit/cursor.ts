// The opaque cursor of the audit log's deep pages: the id of the last entry returned (the next page starts right
// after it in (created_at, id) order, at constant cost at any depth) and the offset of the next page (so the answer
// can still say where the page sits). base64url JSON: opaque to clients, cheap to check.

export interface AuditCursor {
  /** The last entry of the previous page. */
  afterId: string;
  /** How many entries come before the page the cursor opens. */
  offset: number;
}

export function encodeCursor(cursor: AuditCursor): string {
  return Buffer.from(JSON.stringify({ a: cursor.afterId, o: cursor.offset }), 'utf8').toString('base64url');
}

/** The cursor, or undefined for anything this service did not produce. */
export function decodeCursor(value: string): AuditCursor | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(value)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  const { a, o } = (parsed ?? {}) as { a?: unknown; o?: unknown };
  if (typeof a !== 'string' || !/^aud_[0-9A-Za-z]{1,60}$/.test(a)) return undefined;
  if (typeof o !== 'number' || !Number.isSafeInteger(o) || o < 0) return undefined;
  return { afterId: a, offset: o };
}
