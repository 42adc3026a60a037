// buildApp(deps): the whole HTTP service as an Express app, with no globals, so tests build the same app as main.ts.
import type { IncomingMessage } from 'node:http';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Document } from 'openapi-backend';
import { createGate } from './http/authenticate';
import { createLimits } from './http/limits';
import { createIdempotency } from './http/idempotency';
import { contractRouter, docsRouter } from './http/docs';
import { dashboardRouter } from './http/dashboard';
import { requestLogger } from './http/requestLog';
import { sandboxRouter } from './http/sandbox';
import { securityHeaders } from './http/securityHeaders';
import { AppError } from './domain/errors';
import { sendError } from './http/errors';
import { createOperationRouter, type RequestLocals } from './http/operationRouter';
import { assertRegistryComplete, createHandlers } from './operations/index';
import type { HandlerRegistry, ServiceDeps } from './operations/types';
import type { TrustProxy } from './config';

export interface BuildAppOptions {
  /** The bundled contract (openapi/dist/openapi.json). */
  document: Document;
  /** Which proxies may name the client's address (TRUST_PROXY, Config.trustProxy); none by default. */
  trustProxy?: TrustProxy;
  /** Replace handlers (tests); defaults to createHandlers(deps). */
  handlers?: HandlerRegistry;
}

/** The paths whose body bytes are kept for the operation (receiveRampWebhook). */
const RAW_BODY_PATH_PREFIX = '/v1/ramps/webhooks/';

type RawBodyRequest = IncomingMessage & { rawBody?: Buffer };

export async function buildApp(deps: ServiceDeps, opts: BuildAppOptions): Promise<express.Express> {
  const handlers = opts.handlers ?? createHandlers(deps);
  assertRegistryComplete(handlers);

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // req.ip: the connection's address, or behind trusted proxies the client's they name in X-Forwarded-For.
  if (opts.trustProxy) app.set('trust proxy', opts.trustProxy);

  app.use(requestLogger(deps.log));

  app.use(...securityHeaders({ https: deps.publicUrl?.startsWith('https://') ?? false }));
  // Pages and files for browsers, each router on its own path: an API request tests these four prefixes and enters
  // none of them (a router it passed through would cost its layers' matching and a setImmediate on the way out).
  app.use('/openapi.json', contractRouter(opts.document));
  app.use('/docs', docsRouter());
  app.use('/dashboard', dashboardRouter(deps));
  app.use('/sandbox', sandboxRouter(deps));

  // A body that claims another media type is refused before routing; JSON bodies are parsed up to 1 MiB.
  app.use((req: Request, _res: Response, next: NextFunction) => {
    const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
    if (hasBody && !req.is(['application/json', 'application/*+json'])) {
      return next(new AppError('UNSUPPORTED_MEDIA_TYPE', { message: 'The body must be application/json' }));
    }
    next();
  });
  app.use(
    express.json({
      limit: '1mb',
      strict: false,
      type: ['application/json', 'application/*+json'],
      // A provider's webhook is verified over the exact bytes sent (re-serialised JSON would not match).
      verify: (req, _res, buf) => {
        if (req.url?.startsWith(RAW_BODY_PATH_PREFIX)) (req as RawBodyRequest).rawBody = buf;
      },
    }),
  );

  app.use(
    await createOperationRouter(
      opts.document,
      handlers,
      createGate(deps),
      createLimits(deps, deps.limits),
      deps.publicUrl,
      createIdempotency(deps),
    ),
  );

  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const locals = res.locals as RequestLocals;
    sendError(res, err, locals.log ?? deps.log, locals.requestId ?? 'unknown');
  });
  return app;
}
