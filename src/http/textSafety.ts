// One check of every string a request brings, before the contract's validation: U+0000 and unpaired UTF-16
// surrogates are refused with 400 VALIDATION_ERROR naming the field (body values and property names, query, path,
// Idempotency-Key). PostgreSQL refuses U+0000 in text (a 500 otherwise) and would silently store U+FFFD for a lone
// surrogate. Field names follow fieldErrors.ts: `name`, `operation.memo`, `query.search`, `path.appId`.
import { inputTextProblem } from '../domain/text/safeText';

type FieldErrors = Record<string, string[]>;

/** At most this deep into a body (deeper bodies are the validator's to refuse); keeps the walk bounded. */
const MAX_DEPTH = 32;

function add(errors: FieldErrors, field: string, message: string): void {
  (errors[field] ??= []).push(message);
}

function walk(value: unknown, path: string, errors: FieldErrors, depth: number): void {
  if (typeof value === 'string') {
    const problem = inputTextProblem(value);
    if (problem) add(errors, path || 'body', problem);
    return;
  }
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return;
  if (Array.isArray(value)) {
    value.forEach((item, i) => walk(item, path ? `${path}.${i}` : String(i), errors, depth + 1));
    return;
  }
  for (const [key, item] of Object.entries(value)) {
    const field = path ? `${path}.${key}` : key;
    const keyProblem = inputTextProblem(key);
    if (keyProblem) add(errors, path || 'body', `property names ${keyProblem}`);
    else walk(item, field, errors, depth + 1);
  }
}

/** The field errors of the request's unsafe strings (a null-prototype map: names come from the request), if any. */
export function unsafeTextErrors(request: {
  body: unknown;
  query: Record<string, unknown>;
  params: Record<string, unknown>;
  idempotencyKey?: string | undefined;
}): FieldErrors | undefined {
  const errors: FieldErrors = Object.create(null) as FieldErrors;
  walk(request.body, '', errors, 0);
  for (const [name, value] of Object.entries(request.query)) {
    const nameProblem = inputTextProblem(name);
    if (nameProblem) add(errors, 'query', `parameter names ${nameProblem}`);
    else walk(value, `query.${name}`, errors, 0);
  }
  for (const [name, value] of Object.entries(request.params)) walk(value, `path.${name}`, errors, 0);
  if (request.idempotencyKey !== undefined) walk(request.idempotencyKey, 'header.idempotency-key', errors, 0);
  return Object.keys(errors).length ? errors : undefined;
}
