// What makes two requests "the same request" for an Idempotency-Key: the same operation, path parameters, query and
// body. The fingerprint is the SHA-256 of a canonical JSON form of those parts, so that key order and whitespace, which
// a client's JSON encoder may change between retries, do not count as a different request.
import { createHash } from 'node:crypto';

export interface FingerprintedRequest {
  operationId: string;
  path: unknown;
  query: unknown;
  body: unknown;
}

/**
 * JSON with object keys sorted by UTF-16 code units and no whitespace: RFC 8785 (JCS) for values that came from
 * JSON.parse, whose numbers and strings JSON.stringify already writes the JCS way. Undefined members are dropped, as
 * JSON.stringify does.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.entries(value)
      .filter(([, member]) => member !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, member]) => `${JSON.stringify(name)}:${canonicalJson(member)}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** Hex SHA-256 of the request's canonical form. */
export function requestFingerprint(req: FingerprintedRequest): string {
  const canonical = canonicalJson({
    operationId: req.operationId,
    path: req.path ?? {},
    query: req.query ?? {},
    body: req.body ?? null,
  });
  return createHash('sha256').update(canonical).digest('hex');
}
