// Handler types, derived from the generated operation table: one handler per operationId, typed by its request
// parts and success content. Handlers return content; the router wraps it in the success envelope with the
// operation's success code from the contract (or, for a RawAnswerOperation, may return a raw body, sent without the
// envelope). Handlers never render errors: they throw AppError.
import type { ClaimDeps } from '../domain/distribution/claims';
import type { IncomingHttpHeaders } from 'node:http';
import type { Logger } from 'pino';
import type { OperationId, OperationTypes } from '../../generated/server/catalogue.gen';
import type { AuthContext } from './caller';
import type { Deps } from '../domain/deps';
import type { FundingContext } from '../domain/funding/funding';

/** The context handlers are built with: the service's dependencies and what domain modules add to them. */
export type ServiceDeps = Deps & FundingContext & Pick<ClaimDeps, 'payoutQueue'>;

export interface OperationRequest<Op extends OperationId> {
  operationId: Op;
  body: OperationTypes[Op]['body'];
  query: OperationTypes[Op]['query'];
  path: OperationTypes[Op]['path'];
  headers: IncomingHttpHeaders;
  auth: AuthContext;
  /** The client's IP address as Express sees it (per-IP abuse limits). */
  ip: string;
  requestId: string;
  log: Logger;
  /** The body's exact bytes, kept only for operations that verify a signature over them (receiveRampWebhook). */
  rawBody?: Buffer;
}

export interface OperationResult<Op extends OperationId> {
  content: OperationTypes[Op]['content'];
  /** Extra response headers (e.g. Location, RateLimit-*). */
  headers?: Record<string, string>;
}

/** A success sent as is, without the envelope (a 2xx the contract documents in another media type than JSON). */
export interface RawResult {
  raw: { contentType: string; body: string };
  /** Extra response headers (e.g. Content-Disposition). */
  headers?: Record<string, string>;
}

/**
 * The operations whose contract documents a non-JSON success (listAppTransactions' `format=csv`): only their handlers
 * may answer a RawResult. None takes Idempotency-Key, whose replay store keeps envelope answers only.
 */
export type RawAnswerOperation = 'listAppTransactions';

export type Handler<Op extends OperationId> = (
  req: OperationRequest<Op>,
) => Promise<OperationResult<Op> | (Op extends RawAnswerOperation ? RawResult : never)>;

/** Exactly one handler per operationId: a missing or extra key is a compile error. */
export type HandlerRegistry = { [Op in OperationId]: Handler<Op> };
