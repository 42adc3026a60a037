// The sponsored transaction path for an end user's custodial wallet: record what was built, sign it with the user's
// key, then sponsor and submit it.
//
//   build    buildUserTransaction (build.ts) -> recordBuilt: a PENDING history record before anything is signed.
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
//            5. send (the gateway rides out TRY_AGAIN_LATER and transport failures); a refusal is final: FAILED with
//               its result code (the operations stay counted: the fee-bump was signed), 422 TX_SUBMIT_FAILED;
//            6. wait up to TX_CONFIRM_WAIT_MS for the ledger: `success`, 422 on a failed apply, else `pending` (the
//               confirmation worker, confirmation.ts, finishes it, also after a crash).
import { TransactionBuilder, type Transaction } from '@stellar/stellar-sdk';
import type { OperationTypes } from '../../../generated/server/catalogue.gen';
import { DEFAULT_TRANSACTION_SETTINGS } from '../../config';
import type { Deps } from '../../deps';
import { fromStroops } from '../../infra/stellar/amounts';
import { StellarUnavailableError, TransactionRejectedError, TransactionUnconfirmedError } from '../../infra/stellar/errors';
import type { StellarGateway } from '../../infra/stellar/gateway';
import { recordAudit, type AuditActor } from '../audit/auditLog';
import type { App } from '../apps/store';
import { AppError } from '../errors';
import { opsUsedToday, reserveDailyOps } from '../feePolicy/dailyOps';
import { dailyCapReason, policyError, type PolicyReason } from '../feePolicy/evaluate';
import { newId } from '../ids';
import { appWalletFor } from '../treasury/appWallets';
import { withWalletKeypair } from '../wallets/custody';
import { gatewayFor } from '../wallets/funding';
import type { WalletRecord } from '../wallets/store';
import { buildUserTransaction, type BuildRequest, type BuiltTx } from './build';
import { describeTransaction, type TxDescription } from './describe';
import { feeBumpFeeOf, sponsorFee } from './feeBump';
import { finalizeApplied, finalizeRejected, headlineResultCode, releaseClaim } from './finalize';
import { decidePolicy, type PolicyDecision } from './policyCheck';
import { assertUserTransaction, isSignedBy, parseInnerTransaction } from './signable';
import { findTransaction, findTransactionByInnerHash, insertTransaction, toTxRecord, type TxRecord } from './store';

export type TxOutcome = OperationTypes['submitTransaction']['content'];
export type TxDeps = Pick<Deps, 'db' | 'kms' | 'clock' | 'log' | 'stellar' | 'transactions'>;

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

function txHashOf(tx: { hash(): Uint8Array }): string {
  return Buffer.from(tx.hash()).toString('hex');
}

function policyView(reasons: PolicyReason[]): NonNullable<TxOutcome['policy']> {
  return { decision: reasons.length === 0 ? 'allow' : 'deny', reasons: reasons.map((r) => ({ code: r.code, message: r.message })) };
}

function gateway(deps: TxDeps, ctx: TxContext): StellarGateway {
  return gatewayFor(deps, ctx.wallet.network);
}

/**
 * Records an unsigned transaction of the wallet, PENDING in its history: one the service built, or one the client
 * brought. A transaction is recorded once (by its inner hash): an identical one built or brought again (same
 * sequence, time bounds and operations) is the same transaction and answers the existing record.
 */
async function recordUnsigned(
  deps: TxDeps,
  ctx: TxContext,
  input: { origin: 'built' | 'client'; tx: Transaction; description: TxDescription; title: string; lines: string[]; cosigners?: string[] },
): Promise<TxRecord> {
  const { tx, description: d } = input;
  const hash = txHashOf(tx);
  const maxTime = tx.timeBounds?.maxTime ? Number(tx.timeBounds.maxTime) : 0;
  const summary = d.summaryFor(ctx.wallet.publicKey).text;
  const record = await deps.db.transaction((trx) =>
    insertTransaction(
      trx,
      {
        appId: ctx.app.id,
        network: ctx.wallet.network,
        walletId: ctx.wallet.id,
        userId: ctx.userId,
        origin: input.origin,
        status: 'PENDING',
        stage: 'built',
        operation: d.operation,
        opsCount: d.opsCount,
        summary,
        summaryTitle: input.title,
        summaryLines: input.lines,
        sourceAccount: d.sourceAccount,
        destination: d.destination,
        asset: d.asset,
        amount: d.amount,
        memo: d.memo,
        ...(input.cosigners ? { cosigners: input.cosigners } : {}),
        unsignedXdr: tx.toXDR(),
        innerHash: hash,
        hash,
        feeStroops: feeBumpFeeOf(tx),
        ...(maxTime > 0 ? { validUntil: new Date(maxTime * 1000) } : {}),
        at: deps.clock.now(),
      },
      [{ walletId: ctx.wallet.id, direction: 'sent', summary }],
    ),
  );
  return record ?? (await findTransactionByInnerHash(deps.db, ctx.wallet.network, hash))!;
}

/** Records a transaction built for the wallet (build.ts): PENDING in its history, nothing signed yet. */
export function recordBuilt(deps: TxDeps, ctx: TxContext, built: BuiltTx): Promise<TxRecord> {
  return recordUnsigned(deps, ctx, { origin: 'built', tx: built.tx, description: built.description, title: built.summary.title, lines: built.summary.lines, cosigners: built.cosigners });
}

/** Records a transaction the client brought (an unsigned or signed XDR of the wallet), or finds its record. */
async function recordClientTransaction(deps: TxDeps, ctx: TxContext, inner: Transaction, description: TxDescription): Promise<TxRecord> {
  const existing = await findTransactionByInnerHash(deps.db, ctx.wallet.network, txHashOf(inner));
  return existing ?? recordUnsigned(deps, ctx, { origin: 'client', tx: inner, description, title: description.title, lines: description.lines });
}

/** The funding wallet's address when the record needs its co-signature (a sponsored trustline the service built). */
async function cosignerWallets(deps: TxDeps, record: TxRecord): Promise<WalletRecord[]> {
  if (record.origin !== 'built' || !record.cosigners?.includes('funding')) return [];
  const funding = await appWalletFor(deps.db, record.appId, record.network, 'funding');
  if (!funding) throw new AppError('TX_SIGN_FAILED', { message: 'The app has no funding wallet to sponsor the trustline' });
  return [funding];
}

/** Signs the record's inner transaction with the user's key (and a co-signer's), records the signed XDR. */
async function signRecord(deps: TxDeps, ctx: TxContext, record: TxRecord): Promise<{ record: TxRecord; signed: Transaction }> {
  if (record.signedXdr) return { record, signed: parseInnerTransaction(record.signedXdr, gateway(deps, ctx).networkPassphrase) };
  if (!record.unsignedXdr) throw new AppError('TX_NOT_FOUND', { message: `No unsigned transaction ${record.id} for this wallet` });
  const gw = gateway(deps, ctx);
  const tx = parseInnerTransaction(record.unsignedXdr, gw.networkPassphrase);
  const cosigners = await cosignerWallets(deps, record);
  // The record's XDR was checked when it was built or brought; checked again so a stored row can never widen it.
  assertUserTransaction(tx, ctx.wallet.publicKey, { allowedCosigners: cosigners.map((w) => w.publicKey) });
  try {
    await withWalletKeypair(deps, { walletId: ctx.wallet.id, purpose: 'tx.sign', actor: ctx.actor, ...(ctx.ip !== undefined ? { ip: ctx.ip } : {}) }, async (kp) => {
      tx.sign(kp);
    });
    for (const cosigner of cosigners) {
      await withWalletKeypair(deps, { walletId: cosigner.id, purpose: 'trustline.sponsor', actor: ctx.actor, ...(ctx.ip !== undefined ? { ip: ctx.ip } : {}) }, async (kp) => {
        tx.sign(kp);
      });
    }
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new AppError('TX_SIGN_FAILED', { message: 'Signing failed; retry', cause: err });
  }
  const signedXdr = tx.toXDR();
  const [row] = await deps.db('transactions')
    .where({ id: record.id })
    .whereIn('stage', ['built', 'signed'])
    .update({ signed_xdr: signedXdr, stage: 'signed', updated_at: deps.clock.now() })
    .returning('*');
  return { record: row ? toTxRecord(row) : { ...record, signedXdr }, signed: tx };
}

/** signTransaction: by the record's id, or an unsigned XDR of the wallet (recorded on the way). */
export async function signUserTransaction(deps: TxDeps, ctx: TxContext, input: { txId: string } | { unsignedXdr: string }): Promise<{ txId: string; signedXdr: string }> {
  let record: TxRecord | undefined;
  if ('txId' in input) {
    record = await findTransaction(deps.db, input.txId);
    if (!record || record.walletId !== ctx.wallet.id) throw new AppError('TX_NOT_FOUND', { message: `No transaction ${input.txId} for this wallet` });
  } else {
    const gw = gateway(deps, ctx);
    const inner = parseInnerTransaction(input.unsignedXdr, gw.networkPassphrase);
    assertUserTransaction(inner, ctx.wallet.publicKey);
    // Signatures the client put on it are dropped: the record keeps the bare transaction, signed here.
    const bare = TransactionBuilder.fromXDR(inner.toXDR(), gw.networkPassphrase) as Transaction;
    bare.signatures.splice(0);
    record = await recordClientTransaction(deps, ctx, bare, describeTransaction(bare));
    if (record.walletId !== ctx.wallet.id) throw new AppError('TX_NOT_FOUND', { message: 'No such transaction for this wallet' });
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
    throw new AppError('TX_SUBMIT_FAILED', { message: 'Stellar rejected the transaction', fields: { resultCode: record.resultCode ?? 'tx_failed' } });
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
async function deny(deps: TxDeps, ctx: TxContext, record: TxRecord, reasons: PolicyReason[], fromStages: TxRecord['stage'][]): Promise<never> {
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

/** The dry run's answer: the decision, the fee, and the hash the submission would have. */
function dryRunOutcome(txId: string, hash: string, decision: PolicyDecision): TxOutcome {
  return {
    txId,
    hash,
    status: decision.reasons.length === 0 ? 'success' : 'error',
    dryRun: true,
    feeXlm: fromStroops(decision.feeStroops),
    policy: policyView(decision.reasons),
  };
}

/** The fee-bump's hash without signing it (signatures are not part of the hash). */
function prospectiveHash(gasPublicKey: string | undefined, inner: Transaction, networkPassphrase: string): string {
  if (!gasPublicKey) return txHashOf(inner);
  const rate = feeBumpFeeOf(inner) / BigInt(inner.operations.length + 1);
  return txHashOf(TransactionBuilder.buildFeeBumpTransaction(gasPublicKey, rate.toString(), inner, networkPassphrase));
}

/** submitTransaction: a signed inner transaction of the wallet, sponsored and sent (or a dry run of the policy). */
export async function submitUserTransaction(deps: TxDeps, ctx: TxContext, input: { signedXdr: string; dryRun?: boolean }): Promise<TxOutcome> {
  const gw = gateway(deps, ctx);
  const inner = parseInnerTransaction(input.signedXdr, gw.networkPassphrase);
  const innerHash = txHashOf(inner);
  const known = await findTransactionByInnerHash(deps.db, ctx.wallet.network, innerHash);
  const cosigners = known ? await cosignerWallets(deps, known) : [];
  assertUserTransaction(inner, ctx.wallet.publicKey, { allowedCosigners: cosigners.map((w) => w.publicKey) });
  if (!isSignedBy(inner, ctx.wallet.publicKey)) throw new AppError('TX_INVALID_SIGNED_XDR', { message: "The transaction is not signed by the session user's wallet" });
  if (ctx.wallet.fundingState !== 'funded') throw new AppError('WALLET_NOT_FUNDED', { message: 'The wallet is not funded yet; it cannot transact' });
  const description = describeTransaction(inner);
  if (input.dryRun) {
    const decision = await decidePolicy(deps, { app: ctx.app, userId: ctx.userId, gw, inner, description });
    return dryRunOutcome(known?.id ?? newId('tx'), prospectiveHash(decision.gasWallet?.publicKey, inner, gw.networkPassphrase), decision);
  }
  let record = known ?? (await recordClientTransaction(deps, ctx, inner, description));
  if (!SIGNABLE_STAGES.includes(record.stage)) {
    if (record.stage === 'submitted' && !record.envelopeXdr) throw new AppError('TX_IDEMPOTENCY_CONFLICT', { message: 'This transaction is being submitted' });
    return settledOutcome(record);
  }
  if (!record.signedXdr) {
    await deps.db('transactions').where({ id: record.id }).whereIn('stage', ['built', 'signed']).update({ signed_xdr: input.signedXdr, stage: 'signed', updated_at: deps.clock.now() });
    record = { ...record, signedXdr: input.signedXdr, stage: record.stage === 'built' ? 'signed' : record.stage };
  }
  return sponsorAndSubmit(deps, ctx, gw, record, inner, description);
}

/** Steps 2-6 of the submission for a recorded, signed inner transaction. */
async function sponsorAndSubmit(deps: TxDeps, ctx: TxContext, gw: StellarGateway, record: TxRecord, inner: Transaction, description: TxDescription): Promise<TxOutcome> {
  // 2. policy (the daily cap is reserved below, atomically)
  const decision = await decidePolicy(deps, { app: ctx.app, userId: ctx.userId, gw, inner, description });
  if (decision.staticReasons.length > 0) await deny(deps, ctx, record, decision.staticReasons, SIGNABLE_STAGES);
  const gasWallet = decision.gasWallet!; // a missing gas wallet is a TX_POLICY_GAS_BALANCE_LOW reason above

  // 3. claim, then reserve the day's operations
  const submittedAt = deps.clock.now();
  const claimed = await deps.db('transactions')
    .where({ id: record.id })
    .whereIn('stage', SIGNABLE_STAGES)
    .update({ stage: 'submitted', status: 'PENDING', result_code: null, submitted_at: submittedAt, next_check_at: new Date(submittedAt.getTime() + CLAIM_TIMEOUT_MS), updated_at: submittedAt })
    .returning('*');
  if (claimed.length === 0) {
    const now = await findTransaction(deps.db, record.id);
    if (!now || (now.stage === 'submitted' && !now.envelopeXdr)) throw new AppError('TX_IDEMPOTENCY_CONFLICT', { message: 'This transaction is being submitted' });
    return settledOutcome(now);
  }
  record = toTxRecord(claimed[0]);
  const reserved = await reserveDailyOps(deps.db, { appId: ctx.app.id, userId: ctx.userId, at: submittedAt, ops: description.opsCount, cap: decision.policy.dailyOpsCap });
  if (!reserved) {
    // Others took the day's operations since the decision: judged again against what is counted now.
    const used = await opsUsedToday(deps.db, { appId: ctx.app.id, userId: ctx.userId, at: submittedAt });
    await deny(deps, ctx, record, [dailyCapReason(decision.policy.dailyOpsCap ?? 0, used, description.opsCount)], ['submitted']);
  }

  // 4. the gas wallet signs the fee-bump; intent recorded before sending
  let envelopeHash: string;
  let bump: Awaited<ReturnType<typeof sponsorFee>>;
  try {
    bump = await sponsorFee(deps, { gasWallet, inner, networkPassphrase: gw.networkPassphrase, actor: ctx.actor, ...(ctx.ip !== undefined ? { ip: ctx.ip } : {}) });
    envelopeHash = txHashOf(bump);
    const now = deps.clock.now();
    await deps.db('transactions').where({ id: record.id }).update({
      hash: envelopeHash,
      envelope_xdr: bump.toXDR(),
      fee_stroops: BigInt(bump.fee).toString(),
      fee_source: gasWallet.publicKey,
      next_check_at: new Date(now.getTime() + 1000),
      updated_at: now,
    });
    record = { ...record, hash: envelopeHash, envelopeXdr: bump.toXDR(), feeStroops: BigInt(bump.fee), feeSource: gasWallet.publicKey, submittedAt };
  } catch (err) {
    // Nothing was sent: the claim and the day's operations are given back.
    await releaseClaim(deps, record).catch((e: unknown) => deps.log.warn({ err: e, txId: record.id }, 'could not release a transaction claim'));
    if (err instanceof AppError) throw err;
    throw new AppError('TX_SIGN_FAILED', { message: 'Signing the fee-bump failed; nothing was submitted', cause: err });
  }

  // 5. send
  try {
    await gw.submit(bump);
  } catch (err) {
    if (err instanceof TransactionRejectedError) {
      const resultCode = headlineResultCode(err.codes);
      await finalizeRejected(deps, record, resultCode);
      throw new AppError('TX_SUBMIT_FAILED', { message: 'Stellar rejected the transaction', fields: { resultCode }, cause: err });
    }
    // Unknown whether it got through: the worker looks the hash up and resends the recorded envelope.
    if (err instanceof StellarUnavailableError) {
      throw new AppError('STELLAR_UNAVAILABLE', { message: 'The Stellar network could not be reached; the transaction is retried until its time bound', cause: err });
    }
    throw err;
  }

  // 6. wait a little for the ledger
  const waitMs = (deps.transactions ?? DEFAULT_TRANSACTION_SETTINGS).confirmWaitMs;
  const pending: TxOutcome = { txId: record.id, hash: envelopeHash, status: 'pending', feeXlm: fromStroops(BigInt(bump.fee)), policy: policyView([]) };
  if (waitMs <= 0) return pending;
  try {
    await gw.confirm(envelopeHash, { timeoutMs: waitMs });
  } catch (err) {
    if (err instanceof TransactionUnconfirmedError || err instanceof StellarUnavailableError) return pending;
    if (!(err instanceof TransactionRejectedError)) throw err;
  }
  const details = await gw.transactionDetails(envelopeHash).catch(() => undefined);
  if (!details) return pending;
  await finalizeApplied(deps, record, details, gw.networkPassphrase);
  if (details.status === 'FAILED') {
    throw new AppError('TX_SUBMIT_FAILED', { message: 'Stellar rejected the transaction', fields: { resultCode: headlineResultCode(details.codes) } });
  }
  return { txId: record.id, hash: envelopeHash, status: 'success', resultCode: 'tx_success', feeXlm: fromStroops(details.feeChargedStroops), ledger: details.ledger, policy: policyView([]) };
}

/** runTransaction: build, sign and submit in one call; a dry run builds and decides only (nothing kept or signed). */
export async function runUserTransaction(deps: TxDeps, ctx: TxContext, input: BuildRequest & { dryRun?: boolean }): Promise<TxOutcome> {
  const gw = gateway(deps, ctx);
  const built = await buildUserTransaction(deps, { app: ctx.app, wallet: ctx.wallet, operation: input.operation, timeoutSeconds: input.timeoutSeconds, ...(input.memo ? { memo: input.memo } : {}) });
  if (input.dryRun) {
    const decision = await decidePolicy(deps, { app: ctx.app, userId: ctx.userId, gw, inner: built.tx, description: built.description });
    // Nothing is signed, so the fee-bump's hash cannot be known: the inner transaction's hash stands for it.
    return dryRunOutcome(newId('tx'), txHashOf(built.tx), decision);
  }
  const record = await recordBuilt(deps, ctx, built);
  const { record: signed, signed: inner } = await signRecord(deps, ctx, record);
  return sponsorAndSubmit(deps, ctx, gw, signed, inner, built.description);
}

