// The one mapper that writes the error envelope. What the client sees (code, message, details) is kept apart from
// what the log sees (cause, stack). The error type itself, AppError, lives in src/domain/errors.ts.
import type { Response } from 'express';
import type { Logger } from 'pino';
import { AppError, appErrorOf } from '../domain/errors';

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
  const appError = appErrorOf(err) ?? fromBodyParser(err);
  if (!appError) {
    log.error({ err }, 'unhandled error');
    return sendError(res, new AppError('INTERNAL_SERVER_ERROR', { message: 'Internal server error' }), log, requestId);
  }
  if (appError.status >= 500 && appError.code !== 'NOT_IMPLEMENTED')
    log.error({ err: appError, cause: appError.cause }, appError.code);
  else log.info({ code: appError.code, status: appError.status }, 'request refused');
  if (res.headersSent) return;
  for (const [name, value] of Object.entries(appError.headers)) res.setHeader(name, value);
  const body: Record<string, unknown> = { code: appError.code, success: false, message: appError.message };
  if (appError.details) body.details = appError.details;
  Object.assign(body, appError.fields, { requestId });
  res.status(appError.status).json(body);
}
