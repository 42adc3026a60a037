// Binds the contract to the handlers. Per request: route to the operationId (404/405) -> authenticate (401/403/404)
// -> the rate limit in the sender's bucket (429; RateLimit-* headers on every keyed answer) -> validate against the
// bundled contract (400; requestValidation.ts) -> the testnet quota (429) -> Idempotency-Key (replay, 409, 422; idempotency.ts) -> handler -> success envelope (or the
// raw body of a non-JSON success, e.g. a CSV export). A read-only operation's handler (x-read-only) may run before
// its DPoP proof is recorded as first used; nothing is answered until it is (authenticate.ts).
// CORS: a preflight (OPTIONS on a contract path) is answered 204 for any origin, since it carries no key to name the
// app; the real request is then checked against the key's app origins by the gate, and only an allowed origin gets
// Access-Control-Allow-Origin back.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Document } from 'openapi-backend';
import type { Logger } from 'pino';
import { operations, type OperationId } from '../../generated/server/catalogue.gen';
import type { HandlerRegistry, OperationRequest, OperationResult } from '../operations/types';
import type { Gate } from './authenticate';
import { headersOf, type Limits } from './limits';
import type { Idempotency } from './idempotency';
import { AppError } from '../domain/errors';
import { toFieldErrors } from './fieldErrors';
import { unsafeTextErrors } from './textSafety';
import { createRouteTable } from './routeTable';
import { createRequestValidation } from './requestValidation';

/** Per-request values the router needs from Express (set by app.ts). */
export interface RequestLocals {
  requestId: string;
  log: Logger;
}

/** Request headers a browser may send cross-origin (the preflight's Access-Control-Allow-Headers). */
const CORS_ALLOWED_HEADERS = 'x-service-api-key, authorization, dpop, content-type, idempotency-key, x-request-id';
/** Response headers a browser script may read. */
const CORS_EXPOSED_HEADERS =
  'X-Request-Id, WWW-Authenticate, DPoP-Nonce, Date, Retry-After, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Location, Idempotent-Replayed';
const PREFLIGHT_MAX_AGE_SECONDS = '600';

/** The URL the client addressed: PUBLIC_URL + path when configured, else scheme and Host of the request + path. */
function requestUrl(req: Request, publicUrl: string | undefined): string {
  if (publicUrl) return publicUrl.replace(/\/+$/, '') + req.path;
  return `${req.protocol}://${req.get('host') ?? 'localhost'}${req.path}`;
}

export async function createOperationRouter(
  document: Document,
  handlers: HandlerRegistry,
  gate: Gate,
  limits?: Limits,
  /** PUBLIC_URL when configured: the base of the URL DPoP proofs must name (else the request's Host). */
  publicUrl?: string,
  /** Idempotency-Key handling (idempotency.ts) for the operations whose contract declares the header. */
  idempotency?: Idempotency,
): Promise<RequestHandler> {
  const route = createRouteTable();
  // Routing by our compiled table (routeTable.ts), validation by the contract's compiled validators (requestValidation.ts).
  const validate = await createRequestValidation(document);

  return async (req: Request, res: Response, next: NextFunction) => {
    // The request's DPoP proof being recorded as first used, while the handler of a read-only operation runs.
    let proofRecorded: Promise<void> | undefined;
    try {
      // 1. route (OPTIONS is never an operation: it is the CORS preflight of the path's operations)
      const match = route(req.method, req.path);
      if (req.method === 'OPTIONS' && match.kind === 'methodNotAllowed') {
        const allow = match.allow.filter((m) => m !== 'OPTIONS');
        res.setHeader('Allow', allow.join(', '));
        const origin = req.headers.origin;
        if (origin) {
          res.setHeader('Vary', 'Origin');
          res.setHeader('Access-Control-Allow-Origin', origin);
          res.setHeader('Access-Control-Allow-Methods', allow.join(', '));
          res.setHeader('Access-Control-Allow-Headers', CORS_ALLOWED_HEADERS);
          res.setHeader('Access-Control-Max-Age', PREFLIGHT_MAX_AGE_SECONDS);
        }
        res.status(204).end();
        return;
      }
      if (match.kind === 'notFound') throw new AppError('NOT_FOUND', { message: 'No such path' });
      if (match.kind === 'methodNotAllowed') {
        throw new AppError('METHOD_NOT_ALLOWED', {
          message: `${req.method} is not allowed here`,
          headers: { Allow: match.allow.join(', ') },
        });
      }
      const { operationId } = match;
      const op = operations[operationId];
      // 2. authenticate (before validation, so an anonymous caller learns nothing about the input rules)
      const usesDpop = (op.security as readonly (readonly string[])[]).some((r) => r.includes('dpopProof'));
      // Every answer of a DPoP operation, errors included, carries the nonce the next proof should use.
      if (usesDpop) res.setHeader('DPoP-Nonce', gate.dpopNonce());
      // An allowed browser origin may read every answer from here on, the gate's own refusals included.
      const gated = await gate.authenticate(op.security, {
        method: req.method,
        url: requestUrl(req, publicUrl),
        headers: req.headers,
        onOriginAllowed: (origin) => {
          res.setHeader('Vary', 'Origin');
          res.setHeader('Access-Control-Allow-Origin', origin);
          res.setHeader('Access-Control-Expose-Headers', CORS_EXPOSED_HEADERS);
        },
        // An operation that writes nothing (x-read-only) runs while its proof's first use is recorded.
        readOnly: op.readOnly,
      });
      const { auth } = gated;
      proofRecorded = gated.proofRecorded;
      // 2b. the rate limit, only for an authenticated key, in the sender's own bucket (limits.ts: per secret key, per
      // signed-in user, or per publishable key and client address), before validation so garbage is limited too
      const ip = req.ip ?? req.socket.remoteAddress ?? 'unknown';
      const rate =
        auth.apiKey && limits ? await limits.rate({ key: auth.apiKey, userId: auth.user?.userId, ip }) : undefined;
      if (rate) for (const [name, value] of Object.entries(headersOf(rate))) res.setHeader(name, value);
      // 3. validate: no U+0000 or unpaired surrogate in any string (textSafety.ts), then the contract, with query and
      // path parameters coerced to their schema types (req.query parses the query string again on every read)
      // A plain object: Express's parser gives one without a prototype (spread defines even a `__proto__` key as an
      // ordinary own property), and this is what validation coerces in place and the handler receives.
      const query: Record<string, unknown> = { ...(req.query as Record<string, unknown>) };
      const unsafe = unsafeTextErrors({
        body: req.body,
        query,
        params: match.params,
        idempotencyKey: req.get('idempotency-key'),
      });
      if (unsafe)
        throw new AppError('VALIDATION_ERROR', {
          message: 'Request validation failed',
          details: { fieldErrors: unsafe },
        });
      const validation = validate(operationId, { params: match.params, query, headers: req.headers, body: req.body });
      if (!validation.valid) {
        throw new AppError('VALIDATION_ERROR', {
          message: 'Request validation failed',
          details: { fieldErrors: toFieldErrors(validation.errors) },
        });
      }
      // 3b. the testnet key's quota of the day, counted only for requests that passed validation
      const quota = auth.apiKey && limits ? await limits.quota(auth.apiKey) : undefined;
      if (quota) for (const [name, value] of Object.entries(headersOf(rate, quota))) res.setHeader(name, value);
      // The validated request itself: its path, query and body values coerced in place to their schema types.
      const { body, query: coercedQuery, params } = validation;
      // 4. the handler
      const handler = handlers[operationId] as (
        r: OperationRequest<OperationId>,
      ) => ReturnType<HandlerRegistry[OperationId]>;
      const locals = res.locals as RequestLocals;
      const request = {
        operationId,
        body: body as never,
        query: coercedQuery,
        path: params as never,
        headers: req.headers,
        auth,
        ip,
        requestId: locals.requestId,
        log: locals.log,
        ...((req as { rawBody?: Buffer }).rawBody ? { rawBody: (req as { rawBody?: Buffer }).rawBody } : {}),
      } as OperationRequest<OperationId>;
      // Operations declaring Idempotency-Key run once per caller and key; a repeat gets the stored answer.
      // (No operation that may answer a raw body takes Idempotency-Key: see RawAnswerOperation.)
      const result =
        op.idempotent && idempotency
          ? await idempotency(request, () => handler(request) as Promise<OperationResult<OperationId>>)
          : await handler(request);
      // Nothing is answered before the proof is recorded as used for the first time.
      await proofRecorded;
      for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, value);
      // 5a. a success the contract documents in another media type (a CSV export): sent as is, without the envelope
      if ('raw' in result) {
        res.status(op.successStatus).type(result.raw.contentType).send(result.raw.body);
        return;
      }
      // 5b. the success envelope, with the operation's success code from the contract
      res.status(op.successStatus).json({ content: result.content, code: op.successCode, success: true });
    } catch (err) {
      // A replayed proof is refused as such, whatever a read-only operation's handler ran into meanwhile.
      next(
        await (proofRecorded?.then(
          () => err,
          (refusal: unknown) => refusal,
        ) ?? err),
      );
    }
  };
}
