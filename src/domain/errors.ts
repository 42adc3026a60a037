// The one error type operations and domain code throw: a catalogue code (from the contract's ErrorCode schema, so its
// HTTP status comes with it) plus what the client may see (message, details, fields) and what only the log sees
// (cause). src/http/errors.ts writes it as the error envelope.
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
