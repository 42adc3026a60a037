// Idempotency-Key for every operation that declares the header (the catalogue's `idempotent` flag), applied by the
// router around the handler, so handlers need no code for it. Behaviour (the IdempotencyKey parameter of the
// contract; IETF draft-ietf-httpapi-idempotency-key-header; Stripe):
//   - same key, same request (operation, path, query, body: requestFingerprint) after completion: the stored answer
//     is replayed for 24 hours, status, body and the handler's headers (Location...), with `Idempotent-Replayed: true`;
//   - same key, another request: 422 IDEMPOTENCY_KEY_REUSED;
//   - same key while the first request runs: 409 TX_IDEMPOTENCY_CONFLICT (the catalogue's in-flight conflict);
//     a claim older than 60 s is presumed dead (a crash) and the same request may take it over;
//   - keys belong to the caller: the operator or end user of a session, else the API key;
//   - without the header, or without a caller to scope it to, nothing changes.
// Storage is in src/domain/idempotency/ (the records and their pruning are not HTTP: a scheduled job prunes them).
//
// The handler's own writes and the record are separate transactions (the router cannot enter the handler's). If the
// process dies between the two, the retry after the lock timeout runs the operation again, so operations that move
// funds still need their own guard (e.g. WALLET_ALREADY_FUNDED, a transaction's hash).
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Deps } from '../domain/deps';
import { AppError } from '../domain/errors';
import { requestFingerprint } from '../domain/idempotency/requestFingerprint';
import { claimIdempotencyKey, completeIdempotencyKey, releaseIdempotencyKey } from '../domain/idempotency/store';
import type { OperationId, ErrorCode } from '../../generated/server/catalogue.gen';
import type { OperationRequest, OperationResult } from '../operations/types';
import type { AuthContext } from '../operations/caller';

/** The response header that marks a replayed answer. */
const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';

type AnyRequest = OperationRequest<OperationId>;
type AnyResult = OperationResult<OperationId>;

/** Runs `execute` (the handler) at most once per caller and Idempotency-Key; see the file comment. */
export type Idempotency = (req: AnyRequest, execute: () => Promise<AnyResult>) => Promise<AnyResult>;

/** What is kept of an answer: enough to render it again through the router (success) or the error mapper. */
type StoredAnswer =
  | { kind: 'success'; content: unknown; headers: Record<string, string> }
  | {
      kind: 'error';
      code: string;
      message: string;
      details?: Record<string, unknown>;
      fields: Record<string, unknown>;
      headers: Record<string, string>;
    };

/**
 * Statuses whose answer depends on state that may change: 401/403 (credentials, roles), 404 (the resource may appear),
 * 409 (the conflicting state may clear) and 429 (limits reset). A retry with the same key must see the new state, so
 * these are not stored, nor is any 5xx (a fault or an unavailable dependency: the retry should run the operation).
 * Every other 4xx (400, 402, 410, 422...) is the final answer to that exact request and is replayed, as Stripe does.
 */
const NOT_FINAL = new Set([401, 403, 404, 409, 429]);

function isFinal(status: number): boolean {
  return status < 500 && !NOT_FINAL.has(status);
}

/**
 * Whose key it is: the operator or end user of a verified session, else the API key. A session whose principal the
 * gate did not name gets no scope rather than the app key's, which would let two users of one app collide.
 */
export function callerScope(auth: AuthContext): string | undefined {
  if (auth.operator) return `operator:${auth.operator.operatorId}`;
  if (auth.user) return `user:${auth.user.userId}`;
  if (auth.accessToken) return undefined;
  if (auth.apiKey) return `key:${auth.apiKey.keyId}`;
  return undefined;
}

function headerValue(req: AnyRequest): string | undefined {
  const value = req.headers['idempotency-key'];
  return Array.isArray(value) ? value[0] : value;
}

/** AES-256-GCM under a key derived from the service secret, bound to its scope and key (an answer can hold a secret). */
function createSealer(secrets: Deps['secrets']) {
  const key = secrets.derive('idempotency-answers');
  const aad = (scope: string, idemKey: string) => Buffer.from(`${scope}\n${idemKey}`);
  return {
    seal(scope: string, idemKey: string, answer: StoredAnswer): Buffer {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(aad(scope, idemKey));
      const sealed = Buffer.concat([cipher.update(JSON.stringify(answer), 'utf8'), cipher.final()]);
      return Buffer.concat([iv, cipher.getAuthTag(), sealed]);
    },
    open(scope: string, idemKey: string, blob: Buffer): StoredAnswer {
      const decipher = createDecipheriv('aes-256-gcm', key, blob.subarray(0, 12)).setAAD(aad(scope, idemKey));
      decipher.setAuthTag(blob.subarray(12, 28));
      return JSON.parse(
        Buffer.concat([decipher.update(blob.subarray(28)), decipher.final()]).toString('utf8'),
      ) as StoredAnswer;
    },
  };
}

/** The answer to keep for an outcome, or undefined when it is not final (see NOT_FINAL). */
function finalAnswer(outcome: { result: AnyResult } | { error: unknown }): StoredAnswer | undefined {
  if ('result' in outcome)
    return { kind: 'success', content: outcome.result.content, headers: outcome.result.headers ?? {} };
  const err = outcome.error;
  if (!(err instanceof AppError) || !isFinal(err.status)) return undefined;
  return {
    kind: 'error',
    code: err.code,
    message: err.message,
    details: err.details,
    fields: err.fields,
    headers: err.headers,
  };
}

function replay(answer: StoredAnswer): AnyResult {
  const headers = { ...answer.headers, [IDEMPOTENT_REPLAYED_HEADER]: 'true' };
  if (answer.kind === 'success') return { content: answer.content as AnyResult['content'], headers };
  throw new AppError(answer.code as ErrorCode, {
    message: answer.message,
    details: answer.details,
    fields: answer.fields,
    headers,
  });
}

export function createIdempotency(deps: Pick<Deps, 'db' | 'clock' | 'secrets'>): Idempotency {
  const sealer = createSealer(deps.secrets);

  return async (req, execute) => {
    const key = headerValue(req);
    const scope = callerScope(req.auth);
    if (key === undefined || scope === undefined) return execute();

    // 1. claim the key, or answer from what it is bound to
    const requestHash = requestFingerprint({
      operationId: req.operationId,
      path: req.path,
      query: req.query,
      body: req.body,
    });
    const claim = await claimIdempotencyKey(deps.db, {
      scope,
      key,
      operationId: req.operationId,
      requestHash,
      now: deps.clock.now(),
    });
    if (claim.kind === 'mismatch') {
      throw new AppError('IDEMPOTENCY_KEY_REUSED', {
        message: 'This Idempotency-Key was already used with a different request',
      });
    }
    if (claim.kind === 'inFlight') {
      throw new AppError('TX_IDEMPOTENCY_CONFLICT', {
        message: 'A request with this Idempotency-Key is still in progress; retry shortly',
      });
    }
    if (claim.kind === 'completed') {
      req.log.info({ operationId: req.operationId }, 'idempotent replay');
      return replay(sealer.open(scope, key, claim.answer));
    }
    const held = { scope, key, lockId: claim.lockId };

    // 2. run the operation
    let outcome: { result: AnyResult } | { error: unknown };
    try {
      outcome = { result: await execute() };
    } catch (error) {
      outcome = { error };
    }

    // 3. keep a final answer, recorded before it is sent so that a retry after it finds it; release the key otherwise
    const answer = finalAnswer(outcome);
    try {
      if (!answer) await releaseIdempotencyKey(deps.db, held);
      else if (
        !(await completeIdempotencyKey(deps.db, {
          ...held,
          answer: sealer.seal(scope, key, answer),
          now: deps.clock.now(),
        }))
      ) {
        req.log.warn(
          { operationId: req.operationId },
          'idempotency key was taken over while its request ran; its answer is not kept',
        );
      }
    } catch (err) {
      // The operation's outcome stands and is answered: failing it now would invite a retry of work already done.
      // The claim lapses after the lock timeout.
      req.log.error({ err, operationId: req.operationId }, 'could not record the idempotency key outcome');
    }
    if ('error' in outcome) throw outcome.error;
    return outcome.result;
  };
}
