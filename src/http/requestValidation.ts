// Request validation against the contract: each operation's Ajv validators, compiled by openapi-backend from the
// bundled document (its parameters and request body, dereferenced), run on the parts of the request the router already
// holds: the route table's decoded path parameters, Express's parsed query and JSON body, and Node's headers (already
// lower-cased). openapi-backend's own validateRequest parses the request again on every call (headers re-keyed with
// lodash, the cookie header parsed, the query serialized and deep-copied, the path template compiled to a regex and
// matched again) before it runs the same validators: 7.3-7.6 us a call for a valid fundWallet body against 0.57 us
// here (a loop of 50,000 calls, 2026-12-02; bench/results/2026-12-02-http-foundation.md).
//
// What openapi-backend would do beyond that is not needed by this contract, and the contract is checked for it at
// start-up (an operation using it fails createRequestValidation): query parameters of type array (a single value
// wrapped in an array), `explode`/`style` or JSON `content` query parameters, cookie parameters.
import type { IncomingHttpHeaders } from 'node:http';
import type { ErrorObject } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { OpenAPIBackend, type Document } from 'openapi-backend';

/** The parts of a routed request that the contract describes. */
export interface RequestParts {
  /** Path parameters, decoded (routeTable.ts). */
  params: Record<string, string>;
  query: Record<string, unknown>;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body (undefined when the request has none). */
  body: unknown;
}

export type RequestValidation =
  | { valid: true; params: Record<string, unknown>; query: Record<string, unknown>; body: unknown }
  | { valid: false; errors: ErrorObject[] };

interface ParameterObject {
  name: string;
  in: string;
  schema?: { type?: unknown };
  content?: unknown;
  style?: unknown;
  explode?: unknown;
}

/** Refuses a contract that needs more of the request parsed than this module does (see the header). */
function checkSupported(operationId: string, parameters: readonly ParameterObject[]): void {
  for (const p of parameters) {
    const unsupported =
      p.in === 'cookie' ||
      (p.in === 'query' && (p.content !== undefined || p.style !== undefined || p.explode !== undefined)) ||
      (p.in === 'query' &&
        (p.schema?.type === 'array' || (Array.isArray(p.schema?.type) && p.schema.type.includes('array'))));
    if (unsupported)
      throw new Error(
        `${operationId}: parameter ${p.in} ${p.name} needs request parsing that requestValidation.ts does not do`,
      );
  }
}

function createAjv(opts: object): Ajv2020 {
  // OpenAPI 3.1 schemas are JSON Schema 2020-12; x-* and example keywords are annotations, hence strict: false.
  const ajv = new Ajv2020({ ...opts, strict: false, allErrors: true });
  addFormats(ajv);
  return ajv;
}

/**
 * The document as the validator needs it: examples removed. They are annotations only, and openapi-backend's
 * dereferencer turns an examples array shared by two $ref sites into an internal {$ref}, which Ajv rejects as a
 * schema. /openapi.json still serves the original bundle.
 */
function withoutExamples<T>(node: T): T {
  if (Array.isArray(node)) return node.map(withoutExamples) as T;
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([key]) => key !== 'example' && key !== 'examples')
      .map(([key, value]) => [key, withoutExamples(value)]),
  ) as T;
}

export type ValidateRequest = (operationId: string, parts: RequestParts) => RequestValidation;

/**
 * The validator of every operation of `document` (the bundled contract). Validators compile on an operation's first
 * request (openapi-backend's `quick` mode), so start-up stays fast. Coercion is in place: path and query values take
 * their schema types.
 */
export async function createRequestValidation(document: Document): Promise<ValidateRequest> {
  const api = new OpenAPIBackend({
    definition: withoutExamples(document),
    validate: true,
    coerceTypes: true,
    strict: true,
    quick: true,
    customizeAjv: (_ajv, ajvOpts) => createAjv(ajvOpts),
  });
  // openapi-backend's own definition check only knows OpenAPI 3.0; the bundle is linted by redocly instead.
  api.validateDefinition = () => api.document;
  await api.init();
  for (const operation of api.getOperations()) {
    checkSupported(
      operation.operationId ?? `${operation.method} ${operation.path}`,
      (operation.parameters ?? []) as ParameterObject[],
    );
  }

  return (operationId, { params, query, headers, body }) => {
    // null for an operationId the contract does not have: a caller's bug, never a request to let through.
    const validators = api.validator.getRequestValidatorsForOperation(operationId) as ReturnType<
      typeof api.validator.getRequestValidatorsForOperation
    > | null;
    if (!validators) throw new Error(`${operationId}: not an operation of the contract`);
    // The body as parsed (undefined when there is none: Ajv counts an undefined property as missing, so a required
    // body reports its absence, as openapi-backend does).
    const request = { path: params, query, header: headers, cookie: {}, requestBody: body };
    const errors: ErrorObject[] = [];
    for (const validate of validators) {
      if (!validate(request)) errors.push(...(validate.errors ?? []));
    }
    if (errors.length > 0) return { valid: false, errors };
    return {
      valid: true,
      params: request.path,
      query: request.query,
      body,
    };
  };
}
