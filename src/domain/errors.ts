// The one error type operations and domain code throw: a catalogue code (from the contract's ErrorCode schema, so its
// HTTP status comes with it) plus what the client may see (message, details, fields) and what only the log sees
// (cause). src/http/errors.ts writes it as the error envelope. An infra failure (chain, KMS, mail unavailable) is
// mapped to the catalogue here and nowhere else (appErrorOf), so no handler maps such a code by hand.
import { errorCatalogue, type ErrorCode } from '../../generated/server/catalogue.gen';
import { DependencyUnavailableError, type Dependency } from '../infra/errors';

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
    // A client error (4xx) is answered and logged without its stack, and capturing one was the costliest step of a
    // refused request in the http-foundation profile: its stack is not captured. A 5xx keeps it (and its cause).
    const stackTraceLimit = Error.stackTraceLimit;
    if (errorCatalogue[code].status < 500) Error.stackTraceLimit = 0;
    super(opts.message ?? errorCatalogue[code].description, { cause: opts.cause });
    Error.stackTraceLimit = stackTraceLimit;
    this.name = 'AppError';
    this.code = code;
    this.status = errorCatalogue[code].status;
    this.details = opts.details;
    this.fields = opts.fields ?? {};
    this.headers = opts.headers ?? {};
  }
}

/** 400 VALIDATION_ERROR for one field, in the shape the request validator answers (details.fieldErrors). */
export function fieldError(field: string, message: string): AppError {
  return new AppError('VALIDATION_ERROR', {
    message: 'Request validation failed',
    details: { fieldErrors: { [field]: [message] } },
  });
}

/** How long a client is asked to wait (Retry-After, seconds) before retrying after a dependency failed. */
export const DEPENDENCY_RETRY_AFTER_SECONDS = 5;

const UNAVAILABLE: Record<Dependency, { code: ErrorCode; message: string }> = {
  stellar: { code: 'STELLAR_UNAVAILABLE', message: 'The Stellar network could not be reached; retry later' },
  kms: { code: 'SERVICE_UNAVAILABLE', message: 'Key management could not be reached; retry later' },
  mail: { code: 'SERVICE_UNAVAILABLE', message: 'The email could not be sent; retry later' },
};

/** The contract's error for a thrown value: an AppError as it is, an infra failure mapped here, else undefined. */
export function appErrorOf(err: unknown): AppError | undefined {
  if (err instanceof AppError) return err;
  if (err instanceof DependencyUnavailableError) {
    const { code, message } = UNAVAILABLE[err.dependency];
    return new AppError(code, {
      message,
      headers: { 'Retry-After': String(DEPENDENCY_RETRY_AFTER_SECONDS) },
      cause: err,
    });
  }
  return undefined;
}
