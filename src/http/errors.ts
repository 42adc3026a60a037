// The one error type handlers and domain code throw, and the one mapper that writes the error envelope.
// What the client sees (code, message, details) is kept apart from what the log sees (cause, stack).
import type { Response } from 'express';
import type { Logger } from 'pino';
import { errorCatalogue, type ErrorCode } from '../../generated/server/catalogue.gen';

export interface AppErrorOptions {
  message?: string;
  details?: Record<string, unknown>;
  /** Extra top-level body fields the catalogue allows for this code (applicationId, resultCode, limit, kycUrl...). */
  fields?: Record<string, unknown>;
  headers?: Record<string, string>;
  /** Internal cause: logged, never sent. */
  cause?: unknown;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: Record<string, unknown> | undefined;
  readonly fields: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, opts: AppErrorOptions = {}) {
    super(opts.message ?? errorCatalogue[code].description, { cause: opts.cause });
    this.name = 'AppError';
    this.code = code;
    this.status = errorCatalogue[code].status;
    this.details = opts.details;
    this.fields = opts.fields ?? {};
    this.headers = opts.headers ?? {};
  }
}

export function statusOf(code: ErrorCode): number {
  return errorCatalogue[code].status;
}

/** Body-parser failures carry a `type`; map the ones a client can cause to catalogue codes. */
function fromBodyParser(err: unknown): AppError | undefined {
  const type = (err as { type?: string } | null)?.type;
  if (type === 'entity.parse.failed') return new AppError('INVALID_JSON', { message: 'The body is not valid JSON' });
  if (type === 'entity.too.large') return new AppError('PAYLOAD_TOO_LARGE', { message: 'The body exceeds 1 MiB' });
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
    return new AppError('UNSUPPORTED_MEDIA_TYPE', { message: 'The body must be UTF-8 JSON' });
  }
  return undefined;
}

/** Writes any thrown value as the error envelope. Unknown errors are logged with their stack and masked. */
export function sendError(res: Response, err: unknown, log: Logger, requestId: string): void {
  const appError = err instanceof AppError ? err : fromBodyParser(err);
  if (!appError) {
    log.error({ err }, 'unhandled error');
    return sendError(res, new AppError('INTERNAL_SERVER_ERROR', { message: 'Internal server error' }), log, requestId);
  }
  if (appError.status >= 500 && appError.code !== 'NOT_IMPLEMENTED') log.error({ err: appError, cause: appError.cause }, appError.code);
  else log.info({ code: appError.code, status: appError.status }, 'request refused');
  if (res.headersSent) return;
  for (const [name, value] of Object.entries(appError.headers)) res.setHeader(name, value);
  const body: Record<string, unknown> = { code: appError.code, success: false, message: appError.message };
  if (appError.details) body.details = appError.details;
  Object.assign(body, appError.fields, { requestId });
  res.status(appError.status).json(body);
}
