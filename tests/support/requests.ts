// Request generation from the contract, shared by the fuzzer and the mock test: valid path, query, header and
// body values for an operation, and its URL.
import fc from 'fast-check';
import { operations, type OperationId } from '../../generated/server/catalogue.gen';
import { valueArb } from './arbitraries';
import { headersFor, type Credentials, type ProofTarget } from './credentials';
import { operationObject, resolve, validatorAt, escapePointer, type Json } from './spec';

export interface GeneratedRequest {
  path: Record<string, string>;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: unknown;
}

export function parametersOf(op: Json): Json[] {
  return (op.parameters ?? []).map((p: Json) => resolve(p).node);
}

export function bodySchemaPointer(id: OperationId): string | undefined {
  const { op, pointer } = operationObject(id);
  return op.requestBody?.content?.['application/json']?.schema
    ? `${pointer}/requestBody/content/${escapePointer('application/json')}/schema`
    : undefined;
}

export function requestArb(id: OperationId): fc.Arbitrary<GeneratedRequest> {
  const { op } = operationObject(id);
  const params = parametersOf(op);
  const group = (where: string) => {
    const list = params.filter((p) => p.in === where);
    const record: Record<string, fc.Arbitrary<unknown>> = {};
    for (const p of list) record[p.name] = valueArb(p.schema);
    return fc.record(record, { requiredKeys: list.filter((p) => p.required || where === 'path').map((p) => p.name) });
  };
  const bodySchema = op.requestBody?.content?.['application/json']?.schema;
  const bodyPointer = bodySchemaPointer(id);
  const bodyArb = bodySchema
    ? valueArb(bodySchema).filter((b) => validatorAt(bodyPointer!)(b))
    : fc.constant(undefined);
  const stringify = (r: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(r).map(([k, v]) => [k, String(v)]));
  return fc
    .record({ path: group('path'), query: group('query'), headers: group('header'), body: bodyArb })
    .map((r) => ({
      path: stringify(r.path),
      query: stringify(r.query),
      headers: stringify(r.headers),
      body: r.body,
    }));
}

export function urlOf(id: OperationId, req: GeneratedRequest): string {
  const template = operations[id].path as string;
  const path = template.replace(/\{([^}]+)\}/g, (_m, name: string) => encodeURIComponent(req.path[name] ?? ''));
  const qs = new URLSearchParams(req.query).toString();
  return qs ? `${path}?${qs}` : path;
}

/**
 * Headers for the operation's first security requirement: form-only sample credentials unless others are given; with
 * live sessions, `target` (the request's method and absolute URL) gets a fresh DPoP proof.
 */
export async function credentials(
  id: OperationId,
  creds?: Credentials,
  target?: ProofTarget,
): Promise<Record<string, string>> {
  const first = operations[id].security[0];
  return first ? headersFor(first, creds, target) : {};
}
