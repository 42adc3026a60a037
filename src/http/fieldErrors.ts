// Turns request-validation errors (Ajv, as reported by openapi-backend) into the spec's `details.fieldErrors`:
// a map from field name to messages. Body fields use their plain dotted path (`publicKey`, `operation.amount`);
// other request parts are prefixed (`query.limit`, `path.appId`, `header.idempotency-key`).
import type { ErrorObject } from 'ajv';

const PART_PREFIX: Record<string, string> = {
  requestBody: '',
  query: 'query.',
  path: 'path.',
  header: 'header.',
  cookie: 'cookie.',
};

function fieldName(err: ErrorObject): string {
  const segments = err.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (err.keyword === 'required') segments.push(String((err.params as { missingProperty: string }).missingProperty));
  if (err.keyword === 'additionalProperties')
    segments.push(String((err.params as { additionalProperty: string }).additionalProperty));
  const [part, ...rest] = segments;
  if (part === undefined) return 'body';
  const prefix = PART_PREFIX[part];
  if (prefix === undefined) return segments.join('.');
  if (rest.length === 0) return part === 'requestBody' ? 'body' : part;
  return prefix + rest.join('.');
}

function messageOf(err: ErrorObject): string {
  switch (err.keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties':
      return 'is not allowed';
    case 'enum':
      return `must be one of: ${((err.params as { allowedValues: unknown[] }).allowedValues ?? []).join(', ')}`;
    case 'const':
      return `must be ${JSON.stringify((err.params as { allowedValue: unknown }).allowedValue)}`;
    default:
      return err.message ?? 'is invalid';
  }
}

export function toFieldErrors(errors: ErrorObject[] | null | undefined): Record<string, string[]> {
  // Field names come from the request (`toString`, `__proto__`...): a map without a prototype takes them as plain keys.
  const out: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
  for (const err of errors ?? []) {
    // oneOf/anyOf summaries repeat what their branches already said.
    if (err.keyword === 'oneOf' || err.keyword === 'anyOf' || err.keyword === 'if') continue;
    const name = fieldName(err);
    const message = messageOf(err);
    const list = (out[name] ??= []);
    if (!list.includes(message)) list.push(message);
  }
  if (Object.keys(out).length === 0) out.body = ['is invalid'];
  return out;
}
