// The opaque cursor of the audit log's deep pages: the generic keyset cursor (src/domain/paging/cursor.ts) over audit
// entry ids.
import { decodeCursor as decodeKeysetCursor, type KeysetCursor } from '../paging/cursor';

export { encodeCursor } from '../paging/cursor';

export type AuditCursor = KeysetCursor;

/** The cursor, or undefined for anything this service did not produce. */
export function decodeCursor(value: string): AuditCursor | undefined {
  return decodeKeysetCursor(value, 'aud');
}
