// What can fail outside the process, as types. Infra knows no HTTP status and no catalogue code: the one place that
// turns these into the contract's errors is src/domain/errors.ts (appErrorOf), used by the HTTP error writer.

/** The dependencies outside the process whose failure a caller can wait out and retry. */
export type Dependency = 'stellar' | 'kms' | 'mail';

/** A dependency could not be reached, or failed in a way a retry later may not (timeouts, throttling, 5xx). */
export abstract class DependencyUnavailableError extends Error {
  abstract readonly dependency: Dependency;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The key management service (AWS KMS) could not be reached or did not answer as it must. */
export class KmsUnavailableError extends DependencyUnavailableError {
  readonly dependency = 'kms';
}

/** The mail server refused or dropped a message, or could not be reached. */
export class MailUnavailableError extends DependencyUnavailableError {
  readonly dependency = 'mail';
}
