// The contract as the tests see it: the bundled document, operation lookup, and response validation with the same
// JSON Schema 2020-12 semantics as the server. Every test that calls the service validates what it got here.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { errorCatalogue, operations, type OperationId } from '../../generated/server/catalogue.gen';
import { projectRoot } from '../../src/paths';

export type Json = Record<string, any>;

export const spec: Json = JSON.parse(readFileSync(join(projectRoot, 'openapi/dist/openapi.json'), 'utf8'));

const SPEC_ID = 'https://onboard.invalid/openapi.json';
export const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(spec, SPEC_ID);

const compiled = new Map<string, ValidateFunction>();

/** A validator for the schema at a JSON pointer of the bundle (`#/components/schemas/Wallet`). */
export function validatorAt(pointer: string): ValidateFunction {
  let v = compiled.get(pointer);
  if (!v) {
    v = ajv.compile({ $ref: `${SPEC_ID}${pointer}` });
    compiled.set(pointer, v);
  }
  return v;
}

export function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function resolve(node: Json): { node: Json; pointer?: string } {
  if (typeof node?.$ref !== 'string') return { node };
  const pointer = node.$ref;
  const target = pointer
    .slice(2)
    .split('/')
    .reduce((at: Json, k: string) => at[k.replace(/~1/g, '/').replace(/~0/g, '~')], spec);
  return { node: target, pointer };
}

export function operationObject(id: OperationId): { op: Json; pointer: string } {
  const { method, path } = operations[id];
  return { op: spec.paths[path][method], pointer: `#/paths/${escapePointer(path)}/${method}` };
}

export interface ObservedResponse {
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
}

/**
 * Checks a response against the contract, with schemathesis' check names: status_code_conformance,
 * content_type_conformance, response_schema_conformance, response_headers_conformance, plus the catalogue check
 * (an error code is answered with the status the catalogue gives it). Returns the violations; empty means conforming.
 */
export function responseViolations(id: OperationId, res: ObservedResponse): string[] {
  const violations: string[] = [];
  const { op, pointer } = operationObject(id);
  const documented = op.responses[String(res.status)];
  // 405/413/415 are transport-level answers the router gives to any operation (see the README's error section).
  if (!documented) {
    if (![405, 413, 415].includes(res.status))
      violations.push(`status_code_conformance: ${res.status} is not documented for ${id}`);
    return violations.concat(catalogueViolations(res));
  }
  const { node: response, pointer: responsePointer } = resolve(documented);
  const base = responsePointer ?? `${pointer}/responses/${res.status}`;
  const contentType = (res.headers.get('content-type') ?? '').split(';')[0]!.trim();
  const media = response.content?.[contentType];
  if (!media) {
    violations.push(`content_type_conformance: ${contentType || '(none)'} is not documented for ${id} ${res.status}`);
  } else if (contentType === 'application/json') {
    const validate = validatorAt(`${base}/content/${escapePointer(contentType)}/schema`);
    if (!validate(res.body)) {
      violations.push(
        `response_schema_conformance: ${id} ${res.status}: ${ajv.errorsText(validate.errors)} in ${res.text.slice(0, 300)}`,
      );
    }
  }
  for (const [name, header] of Object.entries<Json>(response.headers ?? {})) {
    const h = resolve(header).node;
    if (h.required && !res.headers.has(name)) violations.push(`response_headers_conformance: missing ${name}`);
  }
  return violations.concat(catalogueViolations(res));
}

function catalogueViolations(res: ObservedResponse): string[] {
  const body = res.body as Json | undefined;
  if (res.status < 400 || !body || typeof body.code !== 'string') return [];
  const entry = (errorCatalogue as Record<string, { status: number }>)[body.code];
  if (!entry) return [`error_catalogue: unknown code ${body.code}`];
  if (entry.status !== res.status)
    return [`error_catalogue: ${body.code} answered with ${res.status}, catalogue says ${entry.status}`];
  return [];
}
