// Sponsored transactions for the client library: build, sign-and-submit, run and wait, each answering a transaction
// outcome `{ status: 'built' | 'success' | 'pending' | 'error', ... }` (interface spec, "Client transaction outcome"),
// or `dry_run` for a dry run that the policy would allow (nothing signed or sent).
// Like the rest of the core these never throw: an API error, a network failure and a malformed answer all come back
// as `{ status: 'error', code, ... }`, with Stellar's `resultCode` (TX_SUBMIT_FAILED) and the error's `details`.
// Import as `import { tx } from '@onboard/core'` and call `tx.run(client, { operation })`.
import type { BuiltTransaction, TxMemo, TxOperation, TxOutcome } from '../../../generated/client/types.gen.js';
import {
  errorOutcome as errorOf,
  invalidOutcome as invalid,
  isTransient,
  type ErrorOutcome,
  type Outcome,
} from './outcome.js';
import type { OnboardClient } from './types.js';

/** The operations these helpers call (an OnboardClient, or a stand-in with the same methods). */
export type TxClient = Pick<
  OnboardClient,
  'buildTransaction' | 'signTransaction' | 'submitTransaction' | 'runTransaction' | 'getTransaction'
>;

export type TxBuilt = BuiltTransaction;
export type TxPolicy = NonNullable<TxOutcome['policy']>;
export interface TxSubmitted {
  status: 'success' | 'pending';
  txId: string;
  /** The fee-bump's hash (what getTransaction and waitForTransaction take). */
  hash: string;
  feeXlm?: string;
  /** The ledger that included it (success only). */
  ledger?: number;
  resultCode?: string;
  policy?: TxPolicy;
}
/** A dry run the policy would allow: nothing was signed or sent (a denial is an error outcome with details.policy). */
export interface TxDryRun {
  status: 'dry_run';
  /** Set when the transaction was already recorded (a dry run of a built transaction's submission). */
  txId?: string;
  /** What the app's gas wallet would pay. */
  feeXlm?: string;
  policy: TxPolicy;
}
/**
 * The error outcome: a catalogue code, or NETWORK_ERROR / INVALID_RESPONSE for failures the client saw itself, with
 * Stellar's `resultCode` (TX_SUBMIT_FAILED) and the Idempotency-Key a failed submission carried (retry with it and a
 * submission that did go through is not paid twice).
 */
export type TxError = ErrorOutcome;
export type TxResult = TxSubmitted | TxDryRun | TxError;

export interface BuildInput {
  operation: TxOperation;
  memo?: TxMemo;
  /** How long the transaction stays valid, 10-300 s (server default 60). */
  timeoutSeconds?: number;
}
export interface SubmitOptions {
  /** Idempotency-Key for the request that pays; a UUID is generated when omitted. */
  idempotencyKey?: string;
}

/**
 * A submission's TxOutcome as a client outcome. A real submission is only ever success or pending (failures are
 * error answers). A dry run is `dry_run` when the policy would allow it, and an error outcome when it would deny it:
 * the first reason's code (the code a real submission would answer) with the decision in `details.policy`.
 */
function submittedOf(out: Outcome<TxOutcome>, idempotencyKey: string): TxResult {
  if (!out.ok) return errorOf(out, idempotencyKey);
  const c = out.content;
  if (c.status === 'dry_run') {
    if (!c.policy) return invalid('a dry run without a policy decision', out.status);
    if (c.policy.decision === 'allow') {
      return {
        status: 'dry_run',
        ...(c.txId !== undefined ? { txId: c.txId } : {}),
        ...(c.feeXlm !== undefined ? { feeXlm: c.feeXlm } : {}),
        policy: c.policy,
      };
    }
    const first = c.policy.reasons[0];
    if (!first) return invalid('a denied dry run without reasons', out.status);
    return {
      status: 'error',
      code: first.code,
      httpStatus: out.status,
      message: first.message,
      details: { policy: c.policy, dryRun: true, ...(c.txId !== undefined ? { txId: c.txId } : {}) },
    };
  }
  if (c.status !== 'success' && c.status !== 'pending')
    return invalid(`unknown outcome status ${String(c.status)}`, out.status);
  if (c.txId === undefined || c.hash === undefined)
    return invalid(`a ${c.status} outcome without txId and hash`, out.status);
  return {
    status: c.status,
    txId: c.txId,
    hash: c.hash,
    ...(c.feeXlm !== undefined ? { feeXlm: c.feeXlm } : {}),
    ...(c.ledger !== undefined ? { ledger: c.ledger } : {}),
    ...(c.resultCode !== undefined ? { resultCode: c.resultCode } : {}),
    ...(c.policy !== undefined ? { policy: c.policy } : {}),
  };
}

/**
 * Builds an unsigned transaction for the session user's wallet (recorded in history as PENDING). Nothing is paid, but
 * the request still carries an Idempotency-Key (given or generated) so a repeated request does not record it twice.
 */
export async function build(
  client: TxClient,
  input: BuildInput,
  options: SubmitOptions = {},
): Promise<TxBuilt | TxError> {
  const idempotencyKey = options.idempotencyKey ?? crypto.randomUUID();
  const out = await client.buildTransaction({ body: input, headers: { 'Idempotency-Key': idempotencyKey } });
  if (!out.ok) return errorOf(out);
  const { txId, unsignedXdr, networkPassphrase, estimatedFeeXlm, summary } = out.content;
  return { status: 'built', txId, unsignedXdr, networkPassphrase, estimatedFeeXlm, summary };
}

export interface TxSigned {
  status: 'signed';
  txId: string;
  /** The TransactionEnvelope with the wallet's signature (not submitted). */
  signedXdr: string;
}

/** Which transaction to sign: one built by `build` (its txId), or any unsigned XDR of the wallet. */
export type TxRef = { txId: string } | { unsignedXdr: string };

/** Signs with the user's custodial key; nothing is submitted. */
export async function sign(client: TxClient, tx: TxRef): Promise<TxSigned | TxError> {
  const out = await client.signTransaction({
    body: 'txId' in tx ? { txId: tx.txId } : { unsignedXdr: tx.unsignedXdr },
  });
  if (!out.ok) return errorOf(out);
  return { status: 'signed', txId: out.content.txId, signedXdr: out.content.signedXdr };
}

/**
 * Submits a signed transaction wrapped in the app's fee-bump. Resolves to success (in a ledger) or pending
 * (accepted, not yet confirmed: `waitForTransaction(client, hash)`), or an error outcome (a policy denial, Stellar's
 * rejection with `resultCode`, a network failure).
 *
 * Idempotency: the submit carries `options.idempotencyKey`, or a UUID generated for this call, so a retry of that
 * request (the transport's retry, the DPoP nonce retry, or the caller's own retry with the same key) replays the
 * first outcome instead of paying twice. An error outcome returns the key used; pass it back when retrying after an
 * ambiguous NETWORK_ERROR.
 */
export async function submit(client: TxClient, signedXdr: string, options: SubmitOptions = {}): Promise<TxResult> {
  const idempotencyKey = options.idempotencyKey ?? crypto.randomUUID();
  const submitted = await client.submitTransaction({
    body: { signedXdr },
    headers: { 'Idempotency-Key': idempotencyKey },
  });
  return submittedOf(submitted, idempotencyKey);
}

/** `sign` then `submit`: the outcomes of `submit`, or the sign error (nothing was submitted then). */
export async function signAndSubmit(client: TxClient, tx: TxRef, options: SubmitOptions = {}): Promise<TxResult> {
  const signed = await sign(client, tx);
  if (signed.status !== 'signed') return signed;
  return submit(client, signed.signedXdr, options);
}

/**
 * Builds, signs and submits in one request (runTransaction). Same outcomes as `signAndSubmit`; with `dryRun: true`
 * nothing is signed or submitted and the outcome is `{ status: 'dry_run', policy, feeXlm }` when the policy would
 * sponsor it, or an error outcome with the first denial's code and `details.policy` when it would not.
 *
 * Idempotency: the request carries `options.idempotencyKey`, or a UUID generated for this call, so a retry of it
 * (the DPoP nonce retry, or the caller's own retry with the same key and input) never pays twice. An error outcome
 * returns the key used.
 */
export async function run(
  client: TxClient,
  input: BuildInput,
  options: SubmitOptions & { dryRun?: boolean } = {},
): Promise<TxResult> {
  const idempotencyKey = options.idempotencyKey ?? crypto.randomUUID();
  const out = await client.runTransaction({
    body: { ...input, ...(options.dryRun !== undefined ? { dryRun: options.dryRun } : {}) },
    headers: { 'Idempotency-Key': idempotencyKey },
  });
  return submittedOf(out, idempotencyKey);
}

export interface WaitOptions {
  /** Give up after this long and answer the last pending state (default 30 000 ms). */
  timeoutMs?: number;
  /** Pause between polls (default 1 000 ms). */
  intervalMs?: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Polls getTransaction until the transaction (by the hash a pending outcome gave) is SUCCESS or FAILED. SUCCESS is a
 * success outcome with `ledger`; FAILED is an error outcome with code TX_SUBMIT_FAILED and Stellar's `resultCode`.
 * Transient failures (network, 429, 5xx) are polled through; other errors (e.g. TX_NOT_FOUND) answer at once. At the
 * timeout it answers `pending` if the transaction was seen, else the last error.
 */
export async function waitForTransaction(client: TxClient, hash: string, options: WaitOptions = {}): Promise<TxResult> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  const intervalMs = options.intervalMs ?? 1_000;
  let last: TxResult = invalid('no poll was made', 0);
  for (;;) {
    const out = await client.getTransaction({ path: { hash } });
    if (out.ok) {
      const c = out.content;
      const known = {
        txId: c.id,
        hash: c.hash,
        ...(c.feeXlm !== undefined ? { feeXlm: c.feeXlm } : {}),
        ...(c.ledger !== undefined ? { ledger: c.ledger } : {}),
        ...(c.resultCode !== undefined ? { resultCode: c.resultCode } : {}),
      };
      if (c.status === 'SUCCESS') return { status: 'success', ...known };
      if (c.status === 'FAILED') {
        return {
          status: 'error',
          code: 'TX_SUBMIT_FAILED',
          httpStatus: out.status,
          message: 'Stellar rejected the transaction',
          ...(c.resultCode !== undefined ? { resultCode: c.resultCode } : {}),
          details: known,
        };
      }
      last = { status: 'pending', ...known };
    } else if (isTransient(out)) {
      // Keep a pending state already seen: a blip while polling says nothing about the transaction.
      if (last.status !== 'pending') last = errorOf(out);
    } else {
      return errorOf(out);
    }
    if (Date.now() + intervalMs > deadline) return last;
    await sleep(intervalMs);
  }
}

/** What `signAuthEntry` calls (an OnboardClient, or a stand-in with the same method). */
export type AuthEntryClient = Pick<OnboardClient, 'signAuthEntry'>;

export interface AuthEntryInput {
  /** The unsigned SorobanAuthorizationEntry (base64 XDR, address credentials for the user's wallet). */
  entry: string;
  /** Absolute signature expiration ledger; the server's default is the latest ledger + 120, at most + 300. */
  validUntilLedger?: number;
}

export interface AuthEntrySigned {
  status: 'signed';
  /** The entry with the wallet's signature and expiration ledger: put it in the invocation's `auth` and submit. */
  signedEntry: string;
  validUntilLedger: number;
  /** The wallet that signed. */
  publicKey: string;
}

/**
 * Has the service sign a Soroban authorization entry for the session user's custodial wallet, under the app's
 * allowlist. A denial is an error outcome with its SOROBAN_AUTH_* code and message, and `details.applicationId` and
 * `details.applicationName` naming the app whose allowlist decided. Nothing is submitted.
 */
export async function signAuthEntry(
  client: AuthEntryClient,
  input: AuthEntryInput,
): Promise<AuthEntrySigned | TxError> {
  const out = await client.signAuthEntry({
    body: {
      entry: input.entry,
      ...(input.validUntilLedger !== undefined ? { validUntilLedger: input.validUntilLedger } : {}),
    },
  });
  if (!out.ok) {
    const error = errorOf(out);
    const { applicationId, applicationName } = out.body ?? {};
    if (typeof applicationId === 'string' && typeof applicationName === 'string')
      error.details = { ...error.details, applicationId, applicationName };
    return error;
  }
  const { signedEntry, validUntilLedger, publicKey } = out.content;
  return { status: 'signed', signedEntry, validUntilLedger, publicKey };
}
