// buildApp(deps): the whole HTTP service as an Express app, with no globals, so tests build the same app as main.ts.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import express, { type NextFunction, type Request, type Response } from 'express';
import { pinoHttp } from 'pino-http';
import type { Document } from 'openapi-backend';
import { createGate } from './http/authenticate';
import { createLimits } from './http/limits';
import { createIdempotency } from './http/idempotency';
import { docsRouter } from './http/docs';
import { dashboardRouter } from './http/dashboard';
import { sandboxRouter } from './http/sandbox';
import { securityHeaders } from './http/securityHeaders';
import { AppError } from './domain/errors';
import { sendError } from './http/errors';
import { createOperationRouter, type RequestLocals } from './http/operationRouter';
import { assertRegistryComplete, createHandlers } from './operations/index';
import type { HandlerRegistry, ServiceDeps } from './operations/types';
import type { TrustProxy } from './config';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

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

  app.use(
    pinoHttp({
      logger: deps.log,
      genReqId: (req, res) => {
        const incoming = req.headers['x-request-id'];
        const id =
          typeof incoming === 'string' && REQUEST_ID.test(incoming)
            ? incoming
            : `req_${randomUUID().replace(/-/g, '')}`;
        res.setHeader('X-Request-Id', id);
        return id;
      },
      // Credentials never reach the log.
      redact: {
        paths: [
          'req.headers["x-service-api-key"]',
          'req.headers.authorization',
          'req.headers.dpop',
          'req.headers.cookie',
        ],
        censor: '[redacted]',
      },
      // 501 is the documented answer of an operation not built yet, not a fault.
      customLogLevel: (_req, res, err) => ((err || res.statusCode >= 500) && res.statusCode !== 501 ? 'error' : 'info'),
    }),
  );
  app.use((req: Request, res: Response, next: NextFunction) => {
    const locals = res.locals as RequestLocals;
    locals.requestId = typeof req.id === 'object' ? JSON.stringify(req.id) : String(req.id);
    locals.log = req.log;
    next();
  });

  app.use(...securityHeaders({ https: deps.publicUrl?.startsWith('https://') ?? false }));
  app.use(docsRouter(opts.document));
  app.use(dashboardRouter(deps));
  app.use(sandboxRouter(deps));

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
