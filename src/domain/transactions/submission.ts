// The sponsored transaction path for an end user's custodial wallet: record what was built, sign it with the user's
// key, then sponsor and submit it.
//
//   build    buildUserTransaction (build.ts) -> recordBuilt: a PENDING history record before anything is signed, with
//            the wallet's next sequence number reserved in the same database transaction (sequences.ts).
//   sign     the user's key signs only the user's own transaction, for the user's own session (the record, or an
//            unsigned XDR whose every source is the wallet: signable.ts); a sponsored trustline's funding wallet
//            co-signs only transactions the service built itself.
//   submit   1. check the signed XDR (the wallet's own, signed by it), find or create its record;
//            2. the fee-bump policy (policyCheck.ts): a denial is recorded (history FAILED with the denial's code, an
//               audit entry) and answered with its own code; a dry run answers the decision and stops here;
//            3. claim the record (one conditional UPDATE: concurrent submissions of one transaction, on any number
//               of instances, sign and send it once) and reserve the user's operations for the UTC day (a conditional
//               upsert: never past the cap);
//            4. the gas wallet signs the fee-bump; its envelope and hash are recorded before it is sent;
//            5. send in the wallet's turn (sequences.ts: every lower live record of the wallet settled first; the
//               gateway rides out TRY_AGAIN_LATER and transport failures); a refusal is final: FAILED with its result
//               code (the operations stay counted: the fee-bump was signed), 422 TX_SUBMIT_FAILED; but a
//               runTransaction whose number the account overtook (tx_bad_seq) takes a new one and signs again, and
//               a fee refused by a congested network (tx_insufficient_fee, naming the fee that would get in) goes
//               again in a fee-bump at that fee when the policy's maximum allows it (the inner transaction is
//               unchanged; only the gas wallet signs again), else it is denied with TX_POLICY_MAX_FEE_EXCEEDED
//               saying what the network needed (nothing was sent or charged);
//            6. wait up to TX_CONFIRM_WAIT_MS for the ledger: `success`, 422 on a failed apply, else `pending` (the
//               confirmation worker, confirmation.ts, finishes it, also after a crash).
//   run      runTransaction takes the same steps with fewer commits: the policy is decided before anything is
//            recorded (a denial is recorded and nothing signed), then one statement records the build already
//            claimed, with its sequence number, its history line and count, the day's operations and the key.decrypt
//            entries of every key that signs it (planKeyUses: no key opens before it commits); the keys sign, the
//            envelope is recorded with the signed transaction, and it is sent. Two statements, each its own commit,
//            instead of nine: the sealed keys and the wallet's highest live sequence number are read beside the chain
//            reads, and a number another build took meanwhile is refused by a unique index and the next one taken
//            (sequences.ts). Without a wait for the ledger, `pending` is answered while the sent mark is written
//            (sendInTurn).
import { TransactionBuilder, type FeeBumpTransaction, type Transaction } from '@stellar/stellar-sdk';
import type { OperationTypes } from '../../../generated/server/catalogue.gen';
import { DEFAULT_TRANSACTION_SETTINGS } from '../../config';
import type { Deps } from '../deps';
import { fromStroops } from '../money/amounts';
import {
  StellarUnavailableError,
  TransactionRejectedError,
  TransactionUnconfirmedError,
} from '../../infra/stellar/errors';
import type { StellarGateway, TransactionDetails } from '../../infra/stellar/gateway';
import { auditEntriesSql, recordAudit, type AuditActor } from '../audit/auditLog';
import type { App } from '../apps/store';
import { runInBackground } from '../background';
import { AppError } from '../errors';
import { dailyOpsReservationSql, opsUsedToday, reserveDailyOps } from '../feePolicy/dailyOps';
import { dailyCapReason, policyError, type PolicyReason } from '../feePolicy/evaluate';
import type { FeePolicy } from '../feePolicy/policy';
import { appWalletFor } from '../wallets/treasuryWallets';
import {
  externalWalletCannotSign,
  planKeyUses,
  readSealedKeys,
  withWalletKeypair,
  type PreparedKeyUses,
  type SealedKeys,
} from '../wallets/custody';
import { refreshExternalFunding } from '../wallets/externalFunding';
import { gatewayFor } from '../chain/gateways';
import type { WalletRecord } from '../wallets/store';
import { buildUserTransaction, type BuildRequest, type BuiltTx } from './build';
import { describeTransaction, recordFieldsOf, type TxDescription } from './describe';
import { feeBumpFeeOf, MAX_FEE_RAISES, raisedFeeUnderPolicy, sponsorFee, unsignedFeeBump } from './feeBump';
import { finalizeApplied, finalizeRejected, headlineResultCode, markSentAndHandOver, releaseClaim } from './finalize';
import { decidePolicy, readPolicyState, type PolicyDecision } from './policyCheck';
import {
  claimSequence,
  highestLiveSequence,
  isInTurn,
  isSequenceTaken,
  LIVE_STAGES,
  SEQUENCE_TAKEN,
  withSequence,
} from './sequences';
import { assertUserTransaction, isSignedBy, parseInnerTransaction } from './signable';
import {
  findTransaction,
  findTransactionByInnerHash,
  insertTransaction,
  insertTransactionWith,
  type StatementPart,
  toTxRecord,
  type HistoryEntry,
  type NewTx,
  type TransactionRow,
  type TxRecord,
} from './store';
import { sleep } from '../../infra/stellar/retry';
import { preparedQuery } from '../../infra/db/database';
import { signTransaction, transactionHashHex } from '../../infra/stellar/transactionHash';

export type TxOutcome = OperationTypes['submitTransaction']['content'];
export type TxDeps = Pick<Deps, 'db' | 'kms' | 'clock' | 'log' | 'stellar' | 'transactions' | 'jobs' | 'background'>;

/** Who is transacting: the session user's wallet of the key's app, and who the key uses are audited for. */
export interface TxContext {
  app: App;
  userId: string;
  wallet: WalletRecord;
  actor: AuditActor;
  ip?: string;
}

/** A record's signing is refused once a submission has claimed it. */
const SIGNABLE_STAGES: TxRecord['stage'][] = ['built', 'signed', 'denied'];
/** A claim not followed by a recorded envelope within this long died before sending: the worker releases it. */
export const CLAIM_TIMEOUT_MS = 60_000;
/** How often a transaction waiting for its turn looks again. */
const TURN_POLL_MS = 100;
/** How many times runTransaction takes a new sequence number when the account overtook its transaction's. */
const MAX_RESEQUENCES = 2;

function policyView(reasons: PolicyReason[]): NonNullable<TxOutcome['policy']> {
  return {
    decision: reasons.length === 0 ? 'allow' : 'deny',
    reasons: reasons.map((r) => ({ code: r.code, message: r.message })),
  };
}

function gateway(deps: TxDeps, ctx: TxContext): StellarGateway {
  return gatewayFor(deps, ctx.wallet.network);
}

interface UnsignedTx {
  origin: 'built' | 'client';
  tx: Transaction;
  description: TxDescription;
  title: string;
  lines: string[];
  cosigners?: string[];
}

/** The PENDING record of `tx` (its sequence number final, nothing signed yet) and its line in the wallet's history. */
function newRecordOf(ctx: TxContext, input: UnsignedTx, tx: Transaction, now: Date): [NewTx, HistoryEntry[]] {
  const { description: d } = input;
  const maxTime = tx.timeBounds?.maxTime ? Number(tx.timeBounds.maxTime) : 0;
  const summary = d.summaryFor(ctx.wallet.publicKey).text;
  const hash = transactionHashHex(tx);
  return [
    {
      appId: ctx.app.id,
      network: ctx.wallet.network,
      walletId: ctx.wallet.id,
      userId: ctx.userId,
      origin: input.origin,
      status: 'PENDING',
      stage: 'built',
      ...recordFieldsOf(d),
      summary,
      summaryTitle: input.title,
      summaryLines: input.lines,
      ...(input.cosigners ? { cosigners: input.cosigners } : {}),
      unsignedXdr: tx.toXDR(),
      innerHash: hash,
      hash,
      feeStroops: feeBumpFeeOf(tx),
      seqNum: BigInt(tx.sequence),
      ...(maxTime > 0 ? { validUntil: new Date(maxTime * 1000) } : {}),
      at: now,
    },
    [{ walletId: ctx.wallet.id, direction: 'sent', summary }],
  ];
}

/** A built transaction's input for newRecordOf. */
function builtInput(built: BuiltTx): UnsignedTx {
  return {
    origin: 'built',
    tx: built.tx,
    description: built.description,
    title: built.summary.title,
    lines: built.summary.lines,
    cosigners: built.cosigners,
  };
}

/**
 * Records an unsigned transaction of the wallet, PENDING in its history: one the service built, which takes the
 * wallet's next sequence number here (`chainSequence` given: sequences.ts), or one the client brought with its own.
 * A transaction is recorded once (by its inner hash): the same XDR brought again answers the existing record.
 */
async function recordUnsigned(
  deps: TxDeps,
  ctx: TxContext,
  input: UnsignedTx & { chainSequence?: bigint },
): Promise<TxRecord> {
  const now = deps.clock.now();
  const { chainSequence } = input;
  if (chainSequence === undefined) {
    const inserted = await insertTransaction(deps.db, ...newRecordOf(ctx, input, input.tx, now));
    return inserted ?? (await findTransactionByInnerHash(deps.db, ctx.wallet.network, transactionHashHex(input.tx)))!;
  }
  const networkPassphrase = gateway(deps, ctx).networkPassphrase;
  return claimSequence(deps.db, ctx.wallet.id, chainSequence, async (sequence) => {
    const tx = withSequence(input.tx, sequence, chainSequence, networkPassphrase);
    const inserted = await insertTransaction(deps.db, ...newRecordOf(ctx, input, tx, now));
    return inserted ?? (await recordOfNumberNeverSent(deps, ctx, tx)) ?? SEQUENCE_TAKEN;
  });
}

/**
 * When a built transaction was not inserted: the wallet's record of this very transaction if it never went out (the
 * number of a denied record is taken again, so the same payment within the same second is the same transaction, and
 * that record goes on). Undefined when the number is another live record's, another build's of the same payment or
 * not: the build takes the next number.
 */
async function recordOfNumberNeverSent(deps: TxDeps, ctx: TxContext, tx: Transaction): Promise<TxRecord | undefined> {
  const same = await findTransactionByInnerHash(deps.db, ctx.wallet.network, transactionHashHex(tx));
  return same && !LIVE_STAGES.includes(same.stage) ? same : undefined;
}

/**
 * Records a transaction built for the wallet (build.ts): PENDING in its history, nothing signed yet, with the
 * wallet's next sequence number (the record's unsignedXdr is the transaction to sign, not `built.tx`).
 */
export function recordBuilt(deps: TxDeps, ctx: TxContext, built: BuiltTx): Promise<TxRecord> {
  return recordUnsigned(deps, ctx, { ...builtInput(built), chainSequence: built.chainSequence });
}

/** Records a transaction the client brought (an unsigned or signed XDR of the wallet), or finds its record. */
async function recordClientTransaction(
  deps: TxDeps,
  ctx: TxContext,
  inner: Transaction,
  description: TxDescription,
): Promise<TxRecord> {
  const existing = await findTransactionByInnerHash(deps.db, ctx.wallet.network, transactionHashHex(inner));
  return (
    existing ??
    recordUnsigned(deps, ctx, {
      origin: 'client',
      tx: inner,
      description,
      title: description.title,
      lines: description.lines,
    })
  );
}

/** The funding wallet's address when the record needs its co-signature (a sponsored trustline the service built). */
async function cosignerWallets(
  deps: TxDeps,
  record: Pick<TxRecord, 'origin' | 'cosigners' | 'appId' | 'network'>,
): Promise<WalletRecord[]> {
  if (record.origin !== 'built' || !record.cosigners?.includes('funding')) return [];
  const funding = await appWalletFor(deps.db, record.appId, record.network, 'funding');
  if (!funding)
    throw new AppError('TX_SIGN_FAILED', { message: 'The app has no funding wallet to sponsor the trustline' });
  return [funding];
}

/** Adds the signatures of the app wallets a record needs (the funding wallet sponsoring a trustline's reserve). */
async function signAsCosigners(
  deps: TxDeps,
  ctx: TxContext,
  tx: Transaction,
  cosigners: WalletRecord[],
): Promise<void> {
  for (const cosigner of cosigners) {
    await withWalletKeypair(
      deps,
      {
        walletId: cosigner.id,
        purpose: 'trustline.sponsor',
        actor: ctx.actor,
        ...(ctx.ip !== undefined ? { ip: ctx.ip } : {}),
      },
      (kp) => {
        signTransaction(tx, kp);
      },
    );
  }
}

/** Signs `unsignedXdr` (the record's inner transaction) with the user's key, and a co-signer's when the record needs it. */
async function signUnsigned(deps: TxDeps, ctx: TxContext, record: TxRecord, unsignedXdr: string): Promise<Transaction> {
  const tx = parseInnerTransaction(unsignedXdr, gateway(deps, ctx).networkPassphrase);
  const cosigners = await cosignerWallets(deps, record);
  // The record's XDR was checked when it was built or brought; checked again so a stored row can never widen it.
  assertUserTransaction(tx, ctx.wallet.publicKey, { allowedCosigners: cosigners.map((w) => w.publicKey) });
  try {
    await withWalletKeypair(
      deps,
      {
        walletId: ctx.wallet.id,
        purpose: 'tx.sign',
        actor: ctx.actor,
        ...(ctx.ip !== undefined ? { ip: ctx.ip } : {}),
      },
      (kp) => {
        signTransaction(tx, kp);
      },
    );
    await signAsCosigners(deps, ctx, tx, cosigners);
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new AppError('TX_SIGN_FAILED', { message: 'Signing failed; retry', cause: err });
  }
  return tx;
}

/** Signs the record's inner transaction with the user's key (and a co-signer's), records the signed XDR. */
async function signRecord(
  deps: TxDeps,
  ctx: TxContext,
  record: TxRecord,
): Promise<{ record: TxRecord; signed: Transaction }> {
  if (record.signedXdr)
    return { record, signed: parseInnerTransaction(record.signedXdr, gateway(deps, ctx).networkPassphrase) };
  if (!record.unsignedXdr)
    throw new AppError('TX_NOT_FOUND', { message: `No unsigned transaction ${record.id} for this wallet` });
  const tx = await signUnsigned(deps, ctx, record, record.unsignedXdr);
  const signedXdr = tx.toXDR();
  const [row] = await deps
    .db('transactions')
    .where({ id: record.id })
    .whereIn('stage', ['built', 'signed'])
    .update({ signed_xdr: signedXdr, stage: 'signed', updated_at: deps.clock.now() })
    .returning<TransactionRow[]>('*');
  return { record: row ? toTxRecord(row) : { ...record, signedXdr }, signed: tx };
}

/** signTransaction: by the record's id, or an unsigned XDR of the wallet (recorded on the way). */
export async function signUserTransaction(
  deps: TxDeps,
  ctx: TxContext,
  input: { txId: string } | { unsignedXdr: string },
): Promise<{ txId: string; signedXdr: string }> {
  if (ctx.wallet.custody === 'external') throw externalWalletCannotSign();
  let record: TxRecord | undefined;
  if ('txId' in input) {
    record = await findTransaction(deps.db, input.txId);
    if (!record || record.walletId !== ctx.wallet.id)
      throw new AppError('TX_NOT_FOUND', { message: `No transaction ${input.txId} for this wallet` });
  } else {
    const gw = gateway(deps, ctx);
    const inner = parseInnerTransaction(input.unsignedXdr, gw.networkPassphrase);
    assertUserTransaction(inner, ctx.wallet.publicKey);
    // Signatures the client put on it are dropped: the record keeps the bare transaction, signed here.
    const bare = TransactionBuilder.fromXDR(inner.toXDR(), gw.networkPassphrase) as Transaction;
    bare.signatures.splice(0);
    record = await recordClientTransaction(deps, ctx, bare, describeTransaction(bare));
    if (record.walletId !== ctx.wallet.id)
      throw new AppError('TX_NOT_FOUND', { message: 'No such transaction for this wallet' });
  }
  if (!SIGNABLE_STAGES.includes(record.stage) && !record.signedXdr) {
    throw new AppError('TX_NOT_FOUND', { message: `Transaction ${record.id} can no longer be signed` });
  }
  const { record: signed, signed: tx } = await signRecord(deps, ctx, record);
  return { txId: signed.id, signedXdr: tx.toXDR() };
}

/** The answer for a record whose submission already happened (a resubmission of the same transaction). */
function settledOutcome(record: TxRecord): TxOutcome {
  if (record.status === 'FAILED') {
    throw new AppError('TX_SUBMIT_FAILED', {
      message: 'Stellar rejected the transaction',
      fields: { resultCode: record.resultCode ?? 'tx_failed' },
    });
  }
  return {
    txId: record.id,
    hash: record.hash,
    status: record.status === 'SUCCESS' ? 'success' : 'pending',
    ...(record.resultCode ? { resultCode: record.resultCode } : {}),
    ...(record.feeStroops !== null ? { feeXlm: fromStroops(record.feeStroops) } : {}),
    ...(record.ledger !== null ? { ledger: record.ledger } : {}),
  };
}

/** Records a denial (history FAILED with its code, an audit entry) and throws its error. */
async function deny(
  deps: TxDeps,
  ctx: TxContext,
  record: TxRecord,
  reasons: PolicyReason[],
  fromStages: TxRecord['stage'][],
): Promise<never> {
  const first = reasons[0]!;
  const now = deps.clock.now();
  await deps.db.transaction(async (trx) => {
    await trx('transactions')
      .where({ id: record.id })
      .whereIn('stage', fromStages)
      .update({ status: 'FAILED', stage: 'denied', result_code: first.code, next_check_at: null, updated_at: now });
    await recordAudit(trx, {
      appId: ctx.app.id,
      action: 'tx.policy_denied',
      actor: ctx.actor,
      walletId: ctx.wallet.id,
      purpose: reasons.map((r) => r.code).join(','),
      ...(ctx.ip !== undefined ? { ip: ctx.ip } : {}),
      at: now,
    });
  });
  throw policyError(first, now);
}

/**
 * The dry run's answer: `dry_run`, the decision and the fee. No hash (nothing was sent) and a txId only for a
 * transaction already recorded, so that nothing in it can be mistaken for a submission.
 */
function dryRunOutcome(recordedTxId: string | undefined, decision: PolicyDecision): TxOutcome {
  return {
    ...(recordedTxId !== undefined ? { txId: recordedTxId } : {}),
    status: 'dry_run',
    dryRun: true,
    feeXlm: fromStroops(decision.feeStroops),
    policy: policyView(decision.reasons),
  };
}

/** submitTransaction: a signed inner transaction of the wallet, sponsored and sent (or a dry run of the policy). */
export async function submitUserTransaction(
  deps: TxDeps,
  ctx: TxContext,
  input: { signedXdr: string; dryRun?: boolean },
): Promise<TxOutcome> {
  const gw = gateway(deps, ctx);
  const inner = parseInnerTransaction(input.signedXdr, gw.networkPassphrase);
  const innerHash = transactionHashHex(inner);
  const known = await findTransactionByInnerHash(deps.db, ctx.wallet.network, innerHash);
  const cosigners = known ? await cosignerWallets(deps, known) : [];
  assertUserTransaction(inner, ctx.wallet.publicKey, { allowedCosigners: cosigners.map((w) => w.publicKey) });
  if (!isSignedBy(inner, ctx.wallet.publicKey))
    throw new AppError('TX_INVALID_SIGNED_XDR', {
      message: "The transaction is not signed by the session user's wallet",
    });
  const wallet = await refreshExternalFunding(deps, ctx.wallet);
  if (wallet.fundingState !== 'funded')
    throw new AppError('WALLET_NOT_FUNDED', { message: 'The wallet is not funded yet; it cannot transact' });
  const description = describeTransaction(inner);
  if (input.dryRun) {
    const decision = await decidePolicy(deps, { app: ctx.app, userId: ctx.userId, gw, inner, description });
    return dryRunOutcome(known?.id, decision);
  }
  // A transaction the service built with a sponsored trustline, signed by the user's own wallet in the client: the
  // app's funding wallet adds its signature here, as signing does for a custodial wallet.
  let signedXdr = input.signedXdr;
  const unsignedBy = cosigners.filter((w) => !isSignedBy(inner, w.publicKey));
  if (unsignedBy.length > 0) {
    await signAsCosigners(deps, ctx, inner, unsignedBy);
    signedXdr = inner.toXDR();
  }
  let record = known ?? (await recordClientTransaction(deps, ctx, inner, description));
  if (!SIGNABLE_STAGES.includes(record.stage)) {
    if (record.stage === 'submitted' && !record.envelopeXdr)
      throw new AppError('TX_IDEMPOTENCY_CONFLICT', { message: 'This transaction is being submitted' });
    return settledOutcome(record);
  }
  if (!record.signedXdr) {
    await deps
      .db('transactions')
      .where({ id: record.id })
      .whereIn('stage', ['built', 'signed'])
      .update({ signed_xdr: signedXdr, stage: 'signed', updated_at: deps.clock.now() });
    record = { ...record, signedXdr, stage: record.stage === 'built' ? 'signed' : record.stage };
  }
  return sponsorAndSubmit(deps, ctx, gw, record, inner, description);
}

/** Steps 2-6 of the submission for a recorded, signed inner transaction. */
async function sponsorAndSubmit(
  deps: TxDeps,
  ctx: TxContext,
  gw: StellarGateway,
  record: TxRecord,
  inner: Transaction,
  description: TxDescription,
  /** The service built and signed it in this request, so it may take a new sequence number (runTransaction). */
  opts: { resequence: boolean } = { resequence: false },
): Promise<TxOutcome> {
  // 2. policy (the daily cap is reserved below, atomically)
  const decision = await decidePolicy(deps, { app: ctx.app, userId: ctx.userId, gw, inner, description });
  if (decision.staticReasons.length > 0) await deny(deps, ctx, record, decision.staticReasons, SIGNABLE_STAGES);
  const gasWallet = decision.gasWallet!; // a missing gas wallet is a TX_POLICY_GAS_BALANCE_LOW reason above

  // 3. claim, then reserve the day's operations
  const submittedAt = deps.clock.now();
  const [claimed] = await deps
    .db('transactions')
    .where({ id: record.id })
    .whereIn('stage', SIGNABLE_STAGES)
    .update({
      stage: 'submitted',
      status: 'PENDING',
      result_code: null,
      submitted_at: submittedAt,
      next_check_at: new Date(submittedAt.getTime() + CLAIM_TIMEOUT_MS),
      updated_at: submittedAt,
    })
    .returning<TransactionRow[]>('*');
  if (!claimed) {
    const now = await findTransaction(deps.db, record.id);
    if (!now || (now.stage === 'submitted' && !now.envelopeXdr))
      throw new AppError('TX_IDEMPOTENCY_CONFLICT', { message: 'This transaction is being submitted' });
    return settledOutcome(now);
  }
  record = toTxRecord(claimed);
  const reserved = await reserveDailyOps(deps.db, {
    appId: ctx.app.id,
    userId: ctx.userId,
    at: submittedAt,
    ops: description.opsCount,
    cap: decision.policy.dailyOpsCap,
  });
  if (!reserved) await denyOverCap(deps, ctx, record, decision);

  // 4. the gas wallet signs the fee-bump, recorded before it is sent
  const sponsored = await sponsorAndRecord(deps, ctx, gw, gasWallet, record, inner);
  return sendAndSettle(deps, ctx, gw, { ...sponsored, gasWallet, policy: decision.policy }, opts);
}

/** Others took the day's operations since the decision: judged again against what is counted now, and denied. */
async function denyOverCap(deps: TxDeps, ctx: TxContext, record: TxRecord, decision: PolicyDecision): Promise<never> {
  const used = await opsUsedToday(deps.db, { appId: ctx.app.id, userId: ctx.userId, at: record.submittedAt! });
  return deny(
    deps,
    ctx,
    record,
    [dailyCapReason(decision.policy.dailyOpsCap ?? 0, used, record.opsCount)],
    ['submitted'],
  );
}

/** A claimed record with its recorded fee-bump, on its way to the chain. */
interface Sponsored {
  record: TxRecord;
  bump: FeeBumpTransaction;
  gasWallet: WalletRecord;
  /** The policy the fee-bump was allowed under: a fee raised for a congested network stays within its maximum. */
  policy: FeePolicy;
  /** Known to be the wallet's next transaction on the chain, so nothing of the wallet has to go first. */
  nextOnChain?: boolean;
}

/**
 * Steps 5-6: sent in the wallet's turn (a runTransaction whose sequence number the account overtook takes a new one
 * and goes again), then a short wait for the ledger.
 */
async function sendAndSettle(
  deps: TxDeps,
  ctx: TxContext,
  gw: StellarGateway,
  sponsored: Sponsored,
  /** The service built and signed it in this request, so it may take a new sequence number (runTransaction). */
  opts: { resequence: boolean } = { resequence: false },
): Promise<TxOutcome> {
  let { record, bump } = sponsored;
  const { gasWallet, policy } = sponsored;
  const waitMs = (deps.transactions ?? DEFAULT_TRANSACTION_SETTINGS).confirmWaitMs;
  const deadline = Date.now() + waitMs;
  let resequenced = 0;
  let feeRaises = 0;
  let marked: Promise<void>;
  for (let attempt = 0; ; attempt++) {
    try {
      const inTurn = attempt === 0 && sponsored.nextOnChain === true;
      const sent = await sendInTurn(deps, gw, record, bump, deadline, inTurn);
      if (!sent) return pendingOutcome(record, bump);
      marked = sent.marked;
      break;
    } catch (err) {
      if (err instanceof TransactionRejectedError) {
        // A refusal of an envelope that reached the chain after all (a transport retry, a ledger closing meanwhile)
        // is no refusal: what the ledger says is recorded instead, and nothing is built again.
        const landed = await gw.transactionDetails(record.hash).catch(() => undefined);
        if (landed) return settle(deps, gw, record, landed);
        if (err.requiredFeeStroops !== undefined && feeRaises < MAX_FEE_RAISES) {
          // A congested network: the same inner transaction goes again in a fee-bump at the fee it asked for, when
          // the policy's maximum allows it; otherwise the denial says what the network needed.
          feeRaises++;
          const inner = bump.innerTransaction;
          const raised = raisedFeeUnderPolicy(policy, inner, err.requiredFeeStroops);
          if (raised.refusal) return deny(deps, ctx, record, [raised.refusal], ['submitted']);
          ({ record, bump } = await sponsorAndRecord(deps, ctx, gw, gasWallet, record, inner, raised.feeStroops));
          continue;
        }
        if (opts.resequence && resequenced < MAX_RESEQUENCES && err.codes.transaction === 'tx_bad_seq') {
          resequenced++;
          const next = await resequence(deps, ctx, gw, record);
          record = next.record;
          ({ record, bump } = await sponsorAndRecord(deps, ctx, gw, gasWallet, record, next.inner));
          continue;
        }
        const resultCode = headlineResultCode(err.codes);
        await finalizeRejected(deps, record, resultCode);
        throw new AppError('TX_SUBMIT_FAILED', {
          message: 'Stellar rejected the transaction',
          fields: { resultCode },
          cause: err,
        });
      }
      // Unknown whether it got through: the worker looks the hash up and resends the recorded envelope.
      if (err instanceof StellarUnavailableError) {
        throw new AppError('STELLAR_UNAVAILABLE', {
          message: 'The Stellar network could not be reached; the transaction is retried until its time bound',
          cause: err,
        });
      }
      throw err;
    }
  }

  // 6. wait a little for the ledger. Without a wait, `pending` is answered while the sent mark is still being written
  // (sendInTurn); with one, the mark is written first, so the answer comes after it.
  const envelopeHash = record.hash;
  if (deadline - Date.now() <= 0) return pendingOutcome(record, bump);
  await marked;
  const remainingMs = deadline - Date.now();
  if (remainingMs <= 0) return pendingOutcome(record, bump);
  try {
    await gw.confirm(envelopeHash, { timeoutMs: remainingMs });
  } catch (err) {
    if (err instanceof TransactionUnconfirmedError || err instanceof StellarUnavailableError)
      return pendingOutcome(record, bump);
    if (!(err instanceof TransactionRejectedError)) throw err;
  }
  const details = await gw.transactionDetails(envelopeHash).catch(() => undefined);
  if (!details) return pendingOutcome(record, bump);
  return settle(deps, gw, record, details);
}

/** Records what the ledger said of the record's envelope, and answers it. */
async function settle(
  deps: TxDeps,
  gw: StellarGateway,
  record: TxRecord,
  details: TransactionDetails,
): Promise<TxOutcome> {
  await finalizeApplied(deps, record, details, gw.networkPassphrase);
  if (details.status === 'FAILED') {
    throw new AppError('TX_SUBMIT_FAILED', {
      message: 'Stellar rejected the transaction',
      fields: { resultCode: headlineResultCode(details.codes) },
    });
  }
  return {
    txId: record.id,
    hash: details.hash,
    status: 'success',
    resultCode: 'tx_success',
    feeXlm: fromStroops(details.feeChargedStroops),
    ledger: details.ledger,
    policy: policyView([]),
  };
}

function pendingOutcome(record: TxRecord, bump: FeeBumpTransaction): TxOutcome {
  return {
    txId: record.id,
    hash: record.hash,
    status: 'pending',
    feeXlm: fromStroops(BigInt(bump.fee)),
    policy: policyView([]),
  };
}

/**
 * Records the fee-bump (hash, envelope, fee; and the signed inner transaction when given) before it is sent: from
 * here on the envelope is what the confirmation worker looks up and resends. Answers the record as it is then (each
 * transaction serialized once: js-xdr is a fair part of a run's CPU).
 */
async function recordEnvelope(
  deps: TxDeps,
  record: TxRecord,
  bump: FeeBumpTransaction,
  gasWallet: WalletRecord,
  signedXdr?: string,
): Promise<TxRecord> {
  const now = deps.clock.now();
  const recorded: TxRecord = {
    ...record,
    ...(signedXdr !== undefined ? { signedXdr } : {}),
    hash: transactionHashHex(bump),
    envelopeXdr: bump.toXDR(),
    feeStroops: BigInt(bump.fee),
    feeSource: gasWallet.publicKey,
  };
  await preparedQuery(deps.db, 'tx-record-envelope', RECORD_ENVELOPE_SQL, [
    record.id,
    signedXdr ?? null,
    recorded.hash,
    recorded.envelopeXdr,
    recorded.feeStroops!.toString(),
    recorded.feeSource,
    // The request sends it (or hands it over when its wait ends); the worker takes it over only if the request dies.
    new Date(now.getTime() + CLAIM_TIMEOUT_MS),
    now,
  ]);
  return recorded;
}

/** A prepared statement, as every run records its envelope (database.ts preparedQuery); no signed XDR keeps the one recorded. */
const RECORD_ENVELOPE_SQL = `update transactions set signed_xdr = coalesce($2, signed_xdr), hash = $3, envelope_xdr = $4,
    fee_stroops = $5, fee_source = $6, sent_at = null, next_check_at = $7, updated_at = $8
  where id = $1`;

/** Nothing was sent: the claim and the day's operations are given back, and the failure answered as a signing one. */
async function signingFailed(deps: TxDeps, record: TxRecord, err: unknown): Promise<never> {
  await releaseClaim(deps, record).catch((e: unknown) =>
    deps.log.warn({ err: e, txId: record.id }, 'could not release a transaction claim'),
  );
  if (err instanceof AppError) throw err;
  throw new AppError('TX_SIGN_FAILED', { message: 'Signing the fee-bump failed; nothing was submitted', cause: err });
}

/** Step 4: the gas wallet's fee-bump of `inner`, recorded (hash, envelope, fee) before it is sent; and the record then. */
async function sponsorAndRecord(
  deps: TxDeps,
  ctx: TxContext,
  gw: StellarGateway,
  gasWallet: WalletRecord,
  record: TxRecord,
  inner: Transaction,
  /** A fee raised for a congested network; the product's fee otherwise. */
  feeStroops?: bigint,
): Promise<{ bump: FeeBumpTransaction; record: TxRecord }> {
  try {
    const bump = await sponsorFee(deps, {
      gasWallet,
      inner,
      networkPassphrase: gw.networkPassphrase,
      actor: ctx.actor,
      ...(ctx.ip !== undefined ? { ip: ctx.ip } : {}),
      ...(feeStroops !== undefined ? { feeStroops } : {}),
    });
    return { bump, record: await recordEnvelope(deps, record, bump, gasWallet) };
  } catch (err) {
    return signingFailed(deps, record, err);
  }
}

/**
 * Step 5: sends the recorded envelope once the record's turn comes (sequences.ts; `inTurn` when it is known already),
 * and starts noting that the RPC accepted it (`marked`: the caller need not wait for it). Undefined when the turn did
 * not come by `deadline`: the record stays submitted and the confirmation worker sends it.
 *
 * The note (sent_at, and the worker's next check moved to now) is not what makes the send recoverable: the record is
 * `submitted` with its envelope and a claim timeout (recordEnvelope) from before the send, so if the note is never
 * written (the process dies after answering, the write fails) the worker takes the record over once the claim times
 * out, as after a crash between the send and the note: it looks the hash up and resends the envelope in its turn (the
 * RPC answers DUPLICATE while it still holds it). Nothing that decides a turn reads sent_at (sequences.ts).
 */
async function sendInTurn(
  deps: TxDeps,
  gw: StellarGateway,
  record: TxRecord,
  bump: FeeBumpTransaction,
  deadline: number,
  inTurn = false,
): Promise<{ marked: Promise<void> } | undefined> {
  while (!inTurn && !(await isInTurn(deps.db, record, deps.clock.now()))) {
    if (Date.now() + TURN_POLL_MS > deadline) {
      await handOver(deps, record.id);
      return undefined;
    }
    await sleep(TURN_POLL_MS);
  }
  try {
    await gw.submit(bump);
  } catch (err) {
    // Unknown whether it got through: the worker looks it up (and resends it) from now on.
    if (err instanceof StellarUnavailableError) await handOver(deps, record.id);
    throw err;
  }
  // Tracked as background work, so a shutdown right after the answer waits for the note before the pool closes.
  const marked = runInBackground(
    deps,
    () => markSentAndHandOver(deps, record.id),
    (err: unknown) =>
      deps.log.warn(
        { err, txId: record.id },
        'could not note a sent transaction; the confirmation worker takes it over when its claim times out',
      ),
  );
  return { marked };
}

/** The confirmation worker looks after the record from its next pass on. */
async function handOver(deps: TxDeps, txId: string): Promise<void> {
  await deps
    .db('transactions')
    .where({ id: txId, stage: 'submitted' })
    .update({ next_check_at: deps.clock.now(), checks: 0 });
}

/**
 * A runTransaction whose sequence number the account overtook (it moved outside the service): the next number is
 * reserved against the chain's, the inner transaction signed again and recorded; nothing was charged for the refusal.
 */
async function resequence(
  deps: TxDeps,
  ctx: TxContext,
  gw: StellarGateway,
  record: TxRecord,
): Promise<{ record: TxRecord; inner: Transaction }> {
  // The worker leaves the record alone meanwhile (it would resend the refused envelope).
  await deps
    .db('transactions')
    .where({ id: record.id, stage: 'submitted' })
    .update({ next_check_at: new Date(deps.clock.now().getTime() + CLAIM_TIMEOUT_MS) });
  let account;
  try {
    account = await gw.loadAccount(ctx.wallet.publicKey);
  } catch (err) {
    if (err instanceof StellarUnavailableError)
      throw new AppError('STELLAR_UNAVAILABLE', {
        message: 'The Stellar network could not be reached; retry later',
        headers: { 'Retry-After': '5' },
        cause: err,
      });
    throw err;
  }
  if (!account)
    throw new AppError('WALLET_NOT_FUNDED', {
      message: `The wallet's account does not exist on ${ctx.wallet.network}`,
    });
  const chainSequence = BigInt(account.sequence);
  const original = parseInnerTransaction(record.unsignedXdr!, gw.networkPassphrase);
  const unsigned = await claimSequence(deps.db, ctx.wallet.id, chainSequence, async (sequence) => {
    const tx = withSequence(original, sequence, chainSequence, gw.networkPassphrase);
    try {
      await deps
        .db('transactions')
        .where({ id: record.id })
        .update({
          unsigned_xdr: tx.toXDR(),
          inner_hash: transactionHashHex(tx),
          seq_num: sequence.toString(),
          updated_at: deps.clock.now(),
        });
    } catch (err) {
      if (isSequenceTaken(err)) return SEQUENCE_TAKEN;
      throw err;
    }
    return tx;
  });
  const inner = await signUnsigned(deps, ctx, record, unsigned.toXDR());
  await deps
    .db('transactions')
    .where({ id: record.id })
    .update({ signed_xdr: inner.toXDR(), updated_at: deps.clock.now() });
  return {
    record: {
      ...record,
      unsignedXdr: unsigned.toXDR(),
      signedXdr: inner.toXDR(),
      innerHash: transactionHashHex(unsigned),
      seqNum: BigInt(unsigned.sequence),
    },
    inner,
  };
}

/**
 * runTransaction: build, sign and submit in one call; a dry run builds and decides only (nothing kept or signed).
 *
 * The policy's state is read while the transaction is built (neither needs the other) and the decision taken before
 * anything is recorded or signed. An allowed transaction is then recorded already claimed for submission (recordClaimed:
 * its sequence number, the day's operations and the audit entries of every key that signs it, in one statement), signed
 * by all its keys, its envelope recorded, and sent: three commits where the separate steps take nine.
 */
export async function runUserTransaction(
  deps: TxDeps,
  ctx: TxContext,
  input: BuildRequest & { dryRun?: boolean },
): Promise<TxOutcome> {
  const gw = gateway(deps, ctx);
  const statePromise = readPolicyState(deps, { app: ctx.app, userId: ctx.userId, gw });
  // The sealed keys of the user's wallet and of the gas wallet the policy state names are read meanwhile too, before
  // the statement that records their use (recordClaimed). Only ciphertext: a key opens only once that statement, with
  // its key.decrypt entry, has committed. A key missing here (a co-signer, another gas wallet) is read just before
  // it. And the wallet's highest live sequence number, which the claim's number starts from (sequences.ts). Nothing
  // is read for a dry run or a wallet the service cannot sign for.
  const signs = !input.dryRun && ctx.wallet.custody !== 'external';
  const sealedKeys = signs
    ? statePromise.then((state) =>
        readSealedKeys(deps.db, [ctx.wallet.id, ...(state.live.gasWallet ? [state.live.gasWallet.id] : [])]),
      )
    : undefined;
  const liveMax = signs ? highestLiveSequence(deps.db, ctx.wallet.id) : undefined;
  // Awaited only once the run records its claim: a run that ends before (a build error, a denial) must not leave them
  // rejected and unobserved.
  sealedKeys?.catch(() => undefined);
  liveMax?.catch(() => undefined);
  const [built, state] = await Promise.all([
    buildUserTransaction(deps, {
      app: ctx.app,
      wallet: ctx.wallet,
      operation: input.operation,
      timeoutSeconds: input.timeoutSeconds,
      ...(input.memo ? { memo: input.memo } : {}),
    }),
    statePromise,
  ]);
  const decision = await decidePolicy(deps, {
    app: ctx.app,
    userId: ctx.userId,
    gw,
    inner: built.tx,
    description: built.description,
    state,
  });
  if (input.dryRun) return dryRunOutcome(undefined, decision);
  // Nothing is recorded for a wallet the service cannot sign for: build, sign in the client and submit instead.
  if (ctx.wallet.custody === 'external') throw externalWalletCannotSign();
  if (decision.staticReasons.length > 0) {
    // Denied: recorded (FAILED with the denial's code) and never signed.
    await deny(deps, ctx, await recordBuilt(deps, ctx, built), decision.staticReasons, SIGNABLE_STAGES);
  }
  const gasWallet = decision.gasWallet!; // a missing gas wallet is a TX_POLICY_GAS_BALANCE_LOW reason above
  const cosigners = await cosignerWallets(deps, {
    origin: 'built',
    cosigners: built.cosigners,
    appId: ctx.app.id,
    network: ctx.wallet.network,
  });
  const claimed = await recordClaimed(deps, ctx, gw, {
    built,
    decision,
    gasWallet,
    cosigners,
    sealedKeys: await sealedKeys,
    liveMax: await liveMax,
  });
  if ('unsent' in claimed) {
    // The very same transaction was recorded before (a denied run repeated within the second): its record goes on.
    const { record, signed } = await signRecord(deps, ctx, claimed.unsent);
    return sponsorAndSubmit(deps, ctx, gw, record, signed, built.description, { resequence: true });
  }
  if (!claimed.keys) return denyOverCap(deps, ctx, claimed.record, decision);

  // Every key signs once the entries of their use are committed; a failure gives the claim back.
  const { record, keys } = claimed;
  const inner = claimed.tx;
  let bump: FeeBumpTransaction;
  let signed: TxRecord;
  try {
    assertUserTransaction(inner, ctx.wallet.publicKey, { allowedCosigners: cosigners.map((w) => w.publicKey) });
    await keys.withKeypair(0, (kp) => signTransaction(inner, kp));
    for (let i = 0; i < cosigners.length; i++) await keys.withKeypair(1 + i, (kp) => signTransaction(inner, kp));
    bump = unsignedFeeBump(gasWallet, inner, gw.networkPassphrase);
    await keys.withKeypair(1 + cosigners.length, (kp) => signTransaction(bump, kp));
    signed = await recordEnvelope(deps, record, bump, gasWallet, inner.toXDR());
  } catch (err) {
    return signingFailed(deps, record, err);
  }
  return sendAndSettle(
    deps,
    ctx,
    gw,
    // A number right after the chain's: any lower record of the wallet is one the chain has passed already.
    {
      record: signed,
      bump,
      gasWallet,
      policy: decision.policy,
      nextOnChain: record.seqNum === built.chainSequence + 1n,
    },
    { resequence: true },
  );
}

/**
 * Records a built transaction already claimed for submission, in one statement: the record with the wallet's next
 * sequence number (stage `submitted`, the claim's timeout set: sequences.ts claimSequence, from `liveMax` read before),
 * its history line and count, the user's operations for the day, and the `key.decrypt` audit entries of the user's
 * key, the co-signers' and the gas wallet's (in that order in `keys`). No `keys` when the day's operations ran out
 * since the decision: the record is claimed, nothing reserved or audited. `unsent`, with nothing written, when the
 * wallet has a record of this very transaction that never went out (recordOfNumberNeverSent).
 */
async function recordClaimed(
  deps: TxDeps,
  ctx: TxContext,
  gw: StellarGateway,
  input: {
    built: BuiltTx;
    decision: PolicyDecision;
    gasWallet: WalletRecord;
    cosigners: WalletRecord[];
    /** Sealed keys read before (readSealedKeys); the others are read here. */
    sealedKeys?: SealedKeys;
    /** The wallet's highest live sequence number, read before (highestLiveSequence). */
    liveMax?: bigint;
  },
): Promise<{ record: TxRecord; tx: Transaction; keys?: PreparedKeyUses } | { unsent: TxRecord }> {
  const { built, decision } = input;
  const now = deps.clock.now();
  const use = (walletId: string, purpose: string) => ({
    walletId,
    purpose,
    actor: ctx.actor,
    ...(ctx.ip !== undefined ? { ip: ctx.ip } : {}),
  });
  const keyUses = await planKeyUses(
    deps,
    [
      use(ctx.wallet.id, 'tx.sign'),
      ...input.cosigners.map((w) => use(w.id, 'trustline.sponsor')),
      use(input.gasWallet.id, 'tx.fee_bump'),
    ],
    input.sealedKeys,
  );
  // The day's operations are counted only if the record is inserted, and the keys' uses audited only if they were.
  const ops = dailyOpsReservationSql(
    {
      appId: ctx.app.id,
      userId: ctx.userId,
      at: now,
      ops: built.description.opsCount,
      cap: decision.policy.dailyOpsCap,
    },
    'tx',
  );
  const parts: StatementPart[] = ops
    ? [
        { name: 'ops', ...ops },
        { name: 'audited', ...auditEntriesSql(keyUses.audits, 'ops') },
      ]
    : [];
  return claimSequence(
    deps.db,
    ctx.wallet.id,
    built.chainSequence,
    async (sequence) => {
      const tx = withSequence(built.tx, sequence, built.chainSequence, gw.networkPassphrase);
      const [fields, history] = newRecordOf(ctx, builtInput(built), tx, now);
      const inserted = await insertTransactionWith(
        deps.db,
        {
          ...fields,
          stage: 'submitted',
          submittedAt: now,
          nextCheckAt: new Date(now.getTime() + CLAIM_TIMEOUT_MS),
        },
        history,
        parts,
      );
      // Nothing written: this very transaction's record never went out (the caller goes on with it), or another
      // build holds the number.
      if (!inserted) {
        const unsent = await recordOfNumberNeverSent(deps, ctx, tx);
        return unsent ? { unsent } : SEQUENCE_TAKEN;
      }
      const { record } = inserted;
      if (!inserted.rows.ops) return { record, tx };
      return { record, tx, keys: keyUses.recorded() };
    },
    input.liveMax,
  );
}
