// Binds the contract to the handlers: openapi-backend routes each request to its operationId and validates it
// against the bundled spec; the gate authenticates; the handler runs; its content goes out in the success envelope.
// Order per request: route (404/405) -> authenticate (401/403) -> validate (400) -> handler.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { OpenAPIBackend, type Context, type Document } from 'openapi-backend';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { Logger } from 'pino';
import { operations, type OperationId } from '../../generated/server/catalogue.gen';
import type { HandlerRegistry, OperationRequest } from '../operations/types';
import { authenticate, type AuthContext } from './authenticate';
import { AppError } from './errors';
import { toFieldErrors } from './fieldErrors';

/** Per-request values the router needs from Express (set by app.ts). */
export interface RequestLocals {
  requestId: string;
  log: Logger;
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
    Object.entries(node).filter(([key]) => key !== 'example' && key !== 'examples').map(([key, value]) => [key, withoutExamples(value)]),
  ) as T;
}

export async function createOperationRouter(document: Document, handlers: HandlerRegistry): Promise<RequestHandler> {
  const api = new OpenAPIBackend({
    definition: withoutExamples(document),
    validate: true,
    coerceTypes: true,
    strict: true,
    quick: true,
    customizeAjv: (_ajv, ajvOpts) => createAjv(ajvOpts) as never,
  });
  // openapi-backend's own definition check only knows OpenAPI 3.0; the bundle is linted by redocly instead.
  api.validateDefinition = () => api.document;

  const authByContext = new WeakMap<Context, AuthContext>();

  api.register({
    notFound: () => {
      throw new AppError('NOT_FOUND', { message: 'No such path' });
    },
    methodNotAllowed: (c: Context) => {
      const allowed = Object.entries(operations)
        .filter(([, op]) => api.router.matchOperation({ method: op.method, path: c.request.path, headers: {} }, false)?.operationId === op.operationId)
        .map(([, op]) => op.method.toUpperCase());
      throw new AppError('METHOD_NOT_ALLOWED', {
        message: `${c.request.method.toUpperCase()} is not allowed here`,
        headers: allowed.length ? { Allow: [...new Set(allowed)].join(', ') } : {},
      });
    },
    postRoutingHandler: (c: Context, req: Request) => {
      // Runs before openapi-backend answers 404/405, so an unmatched request has no operation yet.
      if (!c.operation) return;
      const op = operations[c.operation.operationId as OperationId];
      authByContext.set(c, authenticate(op.security, req.headers));
    },
    validationFail: (c: Context) => {
      throw new AppError('VALIDATION_ERROR', {
        message: 'Request validation failed',
        details: { fieldErrors: toFieldErrors(c.validation.errors as never) },
      });
    },
  });
  // Authentication already ran in postRoutingHandler (it throws on failure); these tell openapi-backend so.
  for (const scheme of Object.keys(document.components?.securitySchemes ?? {})) {
    api.registerSecurityHandler(scheme, (c: Context) => authByContext.has(c));
  }
  for (const operationId of Object.keys(operations) as OperationId[]) {
    const handler = handlers[operationId] as (r: OperationRequest<OperationId>) => ReturnType<HandlerRegistry[OperationId]>;
    const op = operations[operationId];
    api.register(operationId, async (c: Context, req: Request, res: Response) => {
      const locals = res.locals as RequestLocals;
      const result = await handler({
        operationId,
        body: c.request.requestBody,
        query: c.request.query as never,
        path: c.request.params as never,
        headers: req.headers,
        auth: authByContext.get(c) ?? {},
        requestId: locals.requestId,
        log: locals.log,
      } as OperationRequest<OperationId>);
      for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, value);
      res.status(op.successStatus).json({ content: result.content, code: op.successCode, success: true });
    });
  }
  await api.init();

  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      await api.handleRequest(
        { method: req.method, path: req.path, query: req.query as Record<string, string>, headers: req.headers as Record<string, string>, body: req.body },
        req,
        res,
      );
    } catch (err) {
      next(err);
    }
  };
}
