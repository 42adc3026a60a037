// The request log (pino-http): each request gets an id (a safe incoming X-Request-Id, else a new one, sent back in
// X-Request-Id) and one line when it completes, at info (error for a fault), with the request (credentials
// redacted), the response and its time. Handlers log through req.log (res.locals.log), bound to the request's id.
//
// The request is serialized only for its completion line, and only when the level lets that line be written.
// pino-http's default binds the whole request to req.log instead: serialized, redacted and stringified on every
// request, logged or not (6% of the CPU at LOG_LEVEL=silent, bench/results/2026-11-27-http-foundation.md). Its
// quietReqLogger option does not help: it still binds the whole request, to a second child logger.
import { randomUUID } from 'node:crypto';
import { IncomingMessage } from 'node:http';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { pinoHttp, stdSerializers } from 'pino-http';
import type { RequestLocals } from './operationRouter';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestLogger(log: Logger): RequestHandler {
  const logRequest = pinoHttp({
    logger: log,
    genReqId: (req, res) => {
      const incoming = req.headers['x-request-id'];
      const id =
        typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : `req_${randomUUID().replace(/-/g, '')}`;
      res.setHeader('X-Request-Id', id);
      return id;
    },
    // req.log binds the request under this key, serialized to its id alone (wrapSerializers: false, or pino-http would
    // serialize the whole request first); the completion line carries the whole request under req.
    customAttributeKeys: { req: 'reqId' },
    wrapSerializers: false,
    serializers: {
      reqId: (value: unknown) => (value instanceof IncomingMessage ? value.id : value),
      req: stdSerializers.req,
      res: stdSerializers.res,
      err: stdSerializers.err,
    },
    customSuccessObject: (req, _res, fields: object) => ({ req, ...fields }),
    customErrorObject: (req, _res, _err, fields: object) => ({ req, ...fields }),
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
    // 501 is the documented answer of an operation not built yet, not a fault. A line the level would drop is not
    // even put together ('silent').
    customLogLevel: (_req, res, err) => {
      const level = (err || res.statusCode >= 500) && res.statusCode !== 501 ? 'error' : 'info';
      return log.isLevelEnabled(level) ? level : 'silent';
    },
  });
  return (req: Request, res: Response, next: NextFunction) => {
    logRequest(req, res);
    const locals = res.locals as RequestLocals;
    locals.requestId = req.id as string; // genReqId's
    locals.log = req.log;
    next();
  };
}
