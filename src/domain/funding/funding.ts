// The funding flow: taking a user wallet from unfunded to funded with one sponsored activation transaction
// (activation.ts), for POST /v1/wallets/fund, the Dashboard's Fund action and Immediate-mode sign-in.
//
// 1. claim      one conditional UPDATE moves the wallet unfunded -> activating (fundingStore.ts): of any number of
//               concurrent callers on any number of instances exactly one proceeds; the others answer 409.
// 2. check      the funding wallet must have the reserve + starting balance available, the gas wallet the fee-bump fee
//               (one wallet both in the single layout) (402, nothing submitted).
// 3. intent     the signed fee-bump envelope and its hash are recorded before it is sent; it is valid only until a
//               time bound.
// 4. submit     through the gateway (retries TRY_AGAIN_LATER and transport failures; a bad sequence rebuilds and
//               re-wraps).
// 5. outcome    funded (with audit entry, events, the transaction and the user's history row, one transaction), or
//               back to unfunded when it definitely did not happen and the caller is told (402, 503), or left
//               activating when the outcome is unknown.
// An activating wallet whose lease runs out (the request gave up, the process died) is picked up by the recovery loop
// of any instance, at start-up and every few seconds: a recorded hash is looked up on the chain (applied: funded; still
// valid: resent verbatim; dead: rebuilt), and an account that already exists sponsored by the funding wallet counts
// as funded. The chain itself refuses a second activation (createAccount of an existing account fails and rolls the
// whole transaction back), so no wallet is ever funded twice.
import { FeeBumpTransaction, TransactionBuilder } from '@stellar/stellar-sdk';
import { DEFAULT_FUNDING_SETTINGS, type NetworkName } from '../../config';
import type { Deps } from '../deps';
import { fromStroops } from '../money/amounts';
import {
  StellarUnavailableError,
  TransactionRejectedError,
  TransactionUnconfirmedError,
} from '../../infra/stellar/errors';
import { availableStroops, type StellarGateway } from '../../infra/stellar/gateway';
import { SYSTEM_ACTOR, type AuditActor } from '../audit/auditLog';
import { findApp, type App } from '../apps/store';
import { AppError, DEPENDENCY_RETRY_AFTER_SECONDS } from '../errors';
import { appWalletFor, MINIMUM_BALANCE_XLM } from '../wallets/treasuryWallets';
import { activationFeeStroops, reserveStroops, sponsorCostStroops, type WalletActivation } from './activation';
import { ActivationFailed, FundingShortfall, Rebuild } from './errors';
import { ActivationQueue, activationTransactionOf, GasShortfall, LEASE_MARGIN_MS } from './queue';
import {
  claimActivation,
  findActivation,
  leaseDueActivations,
  markFunded,
  releaseActivation,
  scheduleRetry,
  sentActivations,
  type ActivationRecord,
  type ActivationTransaction,
  type ActivationTrigger,
} from './store';
import { externalWalletCannotSign } from '../wallets/custody';
import { findWallet, type WalletRecord } from '../wallets/store';
import { gatewayFor } from '../chain/gateways';

/**
 * What the funding module adds to the context: the service's activation queue, which batches activations per funding
 * wallet (built by the composition root, src/service.ts). Absent (a bare Deps), each call batches alone.
 */
export interface FundingContext {
  activationQueue?: ActivationQueue;
}

export type FundingDeps = Pick<Deps, 'db' | 'kms' | 'clock' | 'log' | 'secrets' | 'stellar' | 'funding' | 'jobs'> &
  FundingContext;

/** Rebuilds after a bad sequence (another transaction of the funding wallet took it) before giving up. */
const MAX_REBUILDS = 5;
/** How long an Immediate-mode sign-in waits for its activation before answering `funded: false`. */
const SIGN_IN_WAIT_MS = 10_000;
/** Upper bound of the recovery loop's backoff between attempts on one wallet. */
const MAX_RETRY_DELAY_MS = 15 * 60_000;
/** Activations a recovery pass takes on at once (across apps; one app's run one after the other). */
const RECOVERY_BATCH = 50;

interface Drive {
  app: App;
  wallet: WalletRecord;
  activation: ActivationRecord;
  /** Who the key decryptions are recorded for. */
  actor: AuditActor;
  ip?: string;
}

/** The service's queue; without one (a bare Deps), a queue of this call's own: no batching, same outcome. */
function queueOf(deps: FundingDeps): ActivationQueue {
  return deps.activationQueue ?? new ActivationQueue(deps, 0);
}

function settings(deps: FundingDeps) {
  return deps.funding ?? DEFAULT_FUNDING_SETTINGS;
}

/** Whether a rejection means the funding wallet lacked XLM for a reserve or the starting balance. */
function isShortfall(err: TransactionRejectedError): boolean {
  return err.codes.operations.some((c) => c === 'op_low_reserve' || c === 'op_underfunded');
}

/**
 * Whether a rejection means the fee could not be paid. Only the fee-bump's fee source (the gas wallet) is checked for
 * the fee: stellar-core does not look at the inner source's balance.
 */
function isFeeShortfall(err: TransactionRejectedError): boolean {
  return err.stage === 'submission' && err.codes.transaction === 'tx_insufficient_balance';
}

/** The facts of a recorded envelope: a fee-bump, or a plain transaction from before fee-bumps (its source paid). */
function recordedTransaction(envelopeXdr: string, networkPassphrase: string): ActivationTransaction {
  const tx = TransactionBuilder.fromXDR(envelopeXdr, networkPassphrase);
  if (tx instanceof FeeBumpTransaction) return activationTransactionOf(tx, envelopeXdr);
  return {
    hash: Buffer.from(tx.hash()).toString('hex'),
    envelopeXdr,
    sourceAccount: tx.source,
    feeSource: tx.source,
    feeStroops: BigInt(tx.fee),
    opsCount: tx.operations.length,
  };
}

/**
 * The activation with the fee the ledger charged, which a surge-priced ledger makes lower than the bid the envelope
 * declares (every transaction of such a ledger pays its lowest rate); the bid when the chain cannot say.
 */
async function withChargedFee(
  deps: FundingDeps,
  network: NetworkName,
  tx: ActivationTransaction,
): Promise<ActivationTransaction> {
  const details = await gatewayFor(deps, network)
    .transactionDetails(tx.hash)
    .catch(() => undefined);
  return details ? { ...tx, feeStroops: details.feeChargedStroops } : tx;
}

// ---------------------------------------------------------------------------------------------------------------
// Driving one activation (the caller holds the lease)

/** `sponsorBalance`: the funding wallet's XLM balance after this activation, when known (checked for sponsor.balance.low). */
async function fundedFromChain(
  deps: FundingDeps,
  d: Drive,
  input: {
    sponsor: WalletRecord;
    ledger: number | null;
    transaction?: ActivationTransaction;
    baseReserve: bigint;
    sponsorBalance?: bigint;
  },
) {
  const role = input.sponsor.role ?? 'funding';
  const transaction = input.transaction && (await withChargedFee(deps, d.app.network, input.transaction));
  await markFunded(deps, {
    walletId: d.wallet.id,
    appId: d.app.id,
    network: d.app.network,
    userId: d.wallet.userId,
    publicKey: d.wallet.publicKey,
    ledger: input.ledger,
    txHash: transaction?.hash ?? null,
    ...(transaction ? { transaction } : {}),
    startingBalanceXlm: d.app.startingBalanceXlm,
    reserveStroops: reserveStroops(d.app.assets.length, input.baseReserve),
    sponsorPublicKey: input.sponsor.publicKey,
    assets: d.app.assets,
    requestedBy: d.activation.requestedBy,
    at: deps.clock.now(),
    ...(input.sponsorBalance !== undefined
      ? {
          sponsorBalance: {
            walletType: role,
            address: input.sponsor.publicKey,
            balanceStroops: input.sponsorBalance,
            thresholdXlm: MINIMUM_BALANCE_XLM[role],
          },
        }
      : {}),
  });
}

/**
 * A previous attempt's envelope (recovery): applied -> funded; still valid -> resent verbatim and confirmed; refused
 * or past its time bound -> dead (the caller builds a new one). Throws when the outcome is still unknown.
 */
async function settlePrevious(
  deps: FundingDeps,
  gw: StellarGateway,
  d: Drive,
  sponsor: WalletRecord,
): Promise<boolean> {
  const { txHash, envelopeXdr, validUntil } = d.activation;
  if (!txHash || !envelopeXdr || !validUntil) return false;
  const status = await gw.transactionStatus(txHash);
  const figures = await gw.ledgerFigures();
  const transaction = { ...recordedTransaction(envelopeXdr, gw.networkPassphrase), hash: txHash };
  if (status.status === 'SUCCESS') {
    await fundedFromChain(deps, d, {
      sponsor,
      ledger: status.ledger,
      transaction,
      baseReserve: figures.baseReserveStroops,
    });
    return true;
  }
  if (status.status === 'FAILED' || status.latestLedgerCloseTime * 1000 > validUntil.getTime()) return false;
  try {
    // Verbatim: the fee-bump as recorded (fromXDR gives back a FeeBumpTransaction for a fee-bump envelope).
    const hash = await gw.submit(TransactionBuilder.fromXDR(envelopeXdr, gw.networkPassphrase));
    const { ledger } = await gw.confirm(hash, { timeoutMs: validUntil.getTime() - Date.now() + 2000 });
    await fundedFromChain(deps, d, { sponsor, ledger, transaction, baseReserve: figures.baseReserveStroops });
    return true;
  } catch (err) {
    if (err instanceof TransactionRejectedError) return false;
    throw err;
  }
}

/**
 * One attempt: the app's settings now, the checks (402 here), then the queue builds, signs, wraps in the gas wallet's
 * fee-bump, records and sends it.
 */
async function attempt(
  deps: FundingDeps,
  gw: StellarGateway,
  d: Drive,
  sponsor: WalletRecord,
  gas: WalletRecord,
): Promise<string> {
  const sameWallet = gas.publicKey === sponsor.publicKey;
  const [figures, sponsorAccount, gasAccount, walletAccount] = await Promise.all([
    gw.ledgerFigures(),
    gw.loadAccount(sponsor.publicKey),
    sameWallet ? Promise.resolve(undefined) : gw.loadAccount(gas.publicKey),
    gw.loadAccount(d.wallet.publicKey),
  ]);
  // An account that already exists was activated by an attempt whose outcome we lost, or by someone else.
  if (walletAccount) {
    if (walletAccount.sponsor !== sponsor.publicKey)
      throw new ActivationFailed(
        `the account ${d.wallet.publicKey} already exists without the funding wallet's sponsorship`,
      );
    await fundedFromChain(deps, d, { sponsor, ledger: null, baseReserve: figures.baseReserveStroops });
    return d.app.startingBalanceXlm;
  }
  const activation: WalletActivation = {
    publicKey: d.wallet.publicKey,
    assets: d.app.assets,
    startingBalanceXlm: d.app.startingBalanceXlm,
  };
  const needed = sponsorCostStroops([activation], { baseReserveStroops: figures.baseReserveStroops });
  const fee = activationFeeStroops([activation], figures.baseFeeStroops);
  const reserve = reserveStroops(activation.assets.length, figures.baseReserveStroops);
  if (!sponsorAccount || availableStroops(sponsorAccount, figures.baseReserveStroops) < needed) {
    throw new FundingShortfall(needed, reserve, activation.startingBalanceXlm);
  }
  const payer = sameWallet ? sponsorAccount : gasAccount;
  if (!payer) throw new GasShortfall(gas.publicKey, fee, 'no_account');
  if (availableStroops(payer, figures.baseReserveStroops) < fee + (sameWallet ? needed : 0n))
    throw new GasShortfall(gas.publicKey, fee, 'balance');

  // Queued: batched with other activations of this funding wallet, intent recorded before sending.
  let applied: { ledger: number } & ActivationTransaction;
  try {
    applied = await queueOf(deps).activate(sponsor, gas, gw, {
      wallet: d.wallet,
      activation,
      actor: d.actor,
      ...(d.ip !== undefined ? { ip: d.ip } : {}),
    });
  } catch (err) {
    if (!(err instanceof TransactionRejectedError)) throw err;
    if (err.stage === 'submission' && err.codes.transaction === 'tx_bad_seq') throw new Rebuild(err.message);
    if (isFeeShortfall(err)) throw new GasShortfall(gas.publicKey, fee, 'balance');
    if (isShortfall(err)) throw new FundingShortfall(needed, reserve, activation.startingBalanceXlm);
    // Lost a race to another activation of the same account: look at the chain again.
    if (err.codes.operations.includes('op_already_exists')) throw new Rebuild(err.message);
    throw new ActivationFailed(err.message, err.codes);
  }
  const { ledger, ...transaction } = applied;
  // The reserve stays in the funding wallet's balance (locked); the starting balance leaves it, and the fee too when
  // it is also the gas wallet.
  const balanceAfter = sponsorAccount.balanceStroops - needed + reserve - (sameWallet ? fee : 0n);
  await fundedFromChain(deps, d, {
    sponsor,
    ledger,
    transaction,
    baseReserve: figures.baseReserveStroops,
    sponsorBalance: balanceAfter,
  });
  return activation.startingBalanceXlm;
}

/**
 * Drives a leased activation to funded, or throws why not (FundingShortfall, GasShortfall, ActivationFailed, chain
 * trouble).
 */
async function drive(deps: FundingDeps, d: Drive): Promise<string> {
  const gw = gatewayFor(deps, d.app.network);
  const [sponsor, gas] = await Promise.all([
    appWalletFor(deps.db, d.app.id, d.app.network, 'funding'),
    appWalletFor(deps.db, d.app.id, d.app.network, 'gas'),
  ]);
  if (!sponsor) throw new FundingShortfall(0n, 0n, d.app.startingBalanceXlm);
  // A previous envelope is already paid for (or dead): it needs no gas wallet now.
  if (await settlePrevious(deps, gw, d, sponsor)) return d.app.startingBalanceXlm;
  if (!gas) throw new GasShortfall(undefined, 0n, 'missing');
  for (let rebuilds = 0; ; rebuilds++) {
    try {
      return await attempt(deps, gw, d, sponsor, gas);
    } catch (err) {
      if (!(err instanceof Rebuild) || rebuilds + 1 >= MAX_REBUILDS)
        throw err instanceof Rebuild ? new StellarUnavailableError(err.message) : err;
    }
  }
}

function retryDelayMs(deps: FundingDeps, attempts: number): number {
  return Math.min(MAX_RETRY_DELAY_MS, settings(deps).retryIntervalSeconds * 1000 * 2 ** Math.min(attempts, 10));
}

/**
 * After a failed drive: give the wallet back (unfunded) when the activation definitely did not happen and someone
 * asked for it explicitly (they get 402/503 and decide), else keep it activating for the recovery loop: an
 * Immediate-mode sign-in promised the user a funded wallet, and an unknown outcome must be reconciled first.
 */
async function afterFailure(deps: FundingDeps, d: Drive, err: unknown): Promise<void> {
  const now = deps.clock.now();
  const message = err instanceof Error ? err.message : String(err);
  const definite = err instanceof FundingShortfall || err instanceof GasShortfall || err instanceof ActivationFailed;
  const current = await findActivation(deps.db, d.wallet.id);
  // Nothing was ever sent for this claim: nothing can apply later either.
  const nothingSent = !current?.txHash;
  if (d.activation.trigger !== 'sign_in' && (definite || nothingSent)) {
    await releaseActivation(deps.db, d.wallet.id, message, now);
    return;
  }
  // A sent envelope keeps its lease until its time bound has passed; otherwise retry after the backoff.
  const leaseEnd = current?.leaseUntil && !definite ? current.leaseUntil.getTime() : 0;
  const next = new Date(Math.max(leaseEnd, now.getTime() + retryDelayMs(deps, current?.attempts ?? 0)));
  await scheduleRetry(deps.db, d.wallet.id, message, next, now);
}

function toAppError(err: unknown, startingBalanceXlm: string): unknown {
  if (err instanceof FundingShortfall) {
    const message =
      err.neededStroops === 0n
        ? 'The app has no funding wallet'
        : `The funding wallet cannot cover ${fromStroops(err.neededStroops)} XLM (${fromStroops(err.reserveStroops)} XLM reserve + ${startingBalanceXlm} XLM starting balance)`;
    return new AppError('FUND_XLM_FAILED', { message });
  }
  if (err instanceof GasShortfall) {
    const message =
      err.reason === 'missing'
        ? 'The app has no gas wallet to pay the activation fee'
        : err.reason === 'no_account'
          ? `The gas wallet ${err.gasPublicKey} does not exist on the ledger; fund it to pay the activation fee`
          : `The gas wallet ${err.gasPublicKey} cannot cover the activation fee of ${fromStroops(err.feeStroops)} XLM`;
    return new AppError('FUND_XLM_FAILED', { message });
  }
  if (err instanceof ActivationFailed) {
    return new AppError('WALLET_CREATION_FAILED', {
      message: 'Stellar refused the activation',
      ...(err.resultCodes ? { details: { resultCodes: err.resultCodes } } : {}),
      cause: err,
    });
  }
  // An unreachable network (StellarUnavailableError) is left as it is: src/domain/errors.ts maps it.
  if (err instanceof TransactionUnconfirmedError) {
    const message =
      'The Stellar network did not confirm the activation in time; the service follows it up automatically';
    return new AppError('STELLAR_UNAVAILABLE', {
      message,
      headers: { 'Retry-After': String(DEPENDENCY_RETRY_AFTER_SECONDS) },
      cause: err,
    });
  }
  return err;
}

// ---------------------------------------------------------------------------------------------------------------
// Entry points

/**
 * POST /v1/wallets/fund and the Dashboard's Fund action: activates an unfunded wallet of the app. Answers the
 * starting balance paid; throws 409 WALLET_ALREADY_FUNDED (funded, or being activated), 402 FUND_XLM_FAILED, 503.
 */
export async function fundUserWallet(
  deps: FundingDeps,
  input: {
    app: App;
    wallet: WalletRecord;
    trigger: Exclude<ActivationTrigger, 'sign_in'>;
    actor: AuditActor;
    ip?: string;
  },
): Promise<{ publicKey: string; startingBalance: string }> {
  const { app, wallet } = input;
  // 0. the service cannot activate an account it holds no key for (the user's own wallet funds itself)
  if (wallet.custody === 'external') throw externalWalletCannotSign();
  // 1. already funded or under way: nothing to do (safe to treat as success)
  if (wallet.fundingState !== 'unfunded')
    throw new AppError('WALLET_ALREADY_FUNDED', { message: 'The wallet is already funded' });
  gatewayFor(deps, app.network);
  // 2. claim: of concurrent calls, one wins
  const now = deps.clock.now();
  const activation = await claim(deps, {
    app,
    walletId: wallet.id,
    trigger: input.trigger,
    requestedBy: input.actor,
    now,
  });
  if (!activation) throw new AppError('WALLET_ALREADY_FUNDED', { message: 'The wallet is already funded' });
  // 3. activate, or record why not
  const d: Drive = { app, wallet, activation, actor: input.actor, ...(input.ip !== undefined ? { ip: input.ip } : {}) };
  try {
    const startingBalance = await drive(deps, d);
    return { publicKey: wallet.publicKey, startingBalance };
  } catch (err) {
    await afterFailure(deps, d, err);
    throw toAppError(err, app.startingBalanceXlm);
  }
}

async function claim(
  deps: FundingDeps,
  input: { app: App; walletId: string; trigger: ActivationTrigger; requestedBy: AuditActor; now: Date },
): Promise<ActivationRecord | undefined> {
  const leaseUntil = new Date(input.now.getTime() + settings(deps).activationTimeoutSeconds * 1000 + LEASE_MARGIN_MS);
  const claimed = await deps.db.transaction((trx) =>
    claimActivation(trx, {
      walletId: input.walletId,
      appId: input.app.id,
      trigger: input.trigger,
      requestedBy: input.requestedBy,
      at: input.now,
      leaseUntil,
    }),
  );
  return claimed ? findActivation(deps.db, input.walletId) : undefined;
}

/**
 * Immediate-mode funding of a wallet created at a user's first sign-in: claims and starts the activation, waits for
 * it a few seconds, and answers the wallet as it stands then. It never fails the sign-in: an activation that cannot
 * complete now stays `activating` and the recovery loop finishes it. Deferred-mode apps: nothing happens.
 */
export async function activateOnSignIn(
  deps: FundingDeps,
  input: { app: App; wallet: WalletRecord },
): Promise<WalletRecord> {
  const { app, wallet } = input;
  if (app.fundingMode !== 'immediate' || wallet.fundingState !== 'unfunded' || wallet.userId === null) return wallet;
  const requestedBy: AuditActor = { type: 'user', id: wallet.userId };
  try {
    const activation = await claim(deps, {
      app,
      walletId: wallet.id,
      trigger: 'sign_in',
      requestedBy,
      now: deps.clock.now(),
    });
    if (activation) {
      const d: Drive = { app, wallet, activation, actor: requestedBy };
      const running = drive(deps, d).catch(async (err: unknown) => {
        deps.log.warn(
          { err, walletId: wallet.id },
          'wallet activation at sign-in did not complete; it is retried in the background',
        );
        await afterFailure(deps, d, err).catch((e: unknown) =>
          deps.log.error({ err: e, walletId: wallet.id }, 'could not schedule the activation retry'),
        );
      });
      const waitMs = Math.min(SIGN_IN_WAIT_MS, settings(deps).activationTimeoutSeconds * 1000);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([running, new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)))]);
      clearTimeout(timer);
    }
  } catch (err) {
    deps.log.warn(
      { err, walletId: wallet.id },
      'wallet activation at sign-in could not start; it is retried in the background',
    );
  }
  return (await findWallet(deps.db, wallet.id)) ?? wallet;
}

/**
 * One recovery pass: leases the activating wallets that are due and whose lease has run out, and drives each (one
 * app's in turn, since they share the funding wallet's sequence). Returns how many it took on.
 */
export async function runActivationRecovery(deps: FundingDeps): Promise<number> {
  const now = deps.clock.now();
  const leaseUntil = new Date(now.getTime() + settings(deps).activationTimeoutSeconds * 1000 + LEASE_MARGIN_MS);
  const due = await leaseDueActivations(deps.db, { now, leaseUntil, limit: RECOVERY_BATCH });
  const byApp = new Map<string, ActivationRecord[]>();
  for (const a of due) byApp.set(a.appId, [...(byApp.get(a.appId) ?? []), a]);
  await Promise.all(
    [...byApp.values()].map(async (activations) => {
      for (const activation of activations) {
        const [wallet, app] = await Promise.all([
          findWallet(deps.db, activation.walletId),
          findApp(deps.db, activation.appId),
        ]);
        if (!wallet || !app) continue;
        const d: Drive = { app, wallet, activation, actor: SYSTEM_ACTOR };
        try {
          await drive(deps, d);
          deps.log.info({ walletId: wallet.id }, 'wallet activation recovered');
        } catch (err) {
          deps.log.warn({ err, walletId: wallet.id }, 'wallet activation retry did not complete');
          await afterFailure(deps, d, err).catch((e: unknown) =>
            deps.log.error({ err: e, walletId: wallet.id }, 'could not schedule the activation retry'),
          );
        }
      }
    }),
  );
  return due.length;
}

/**
 * Start-up reconciliation: an envelope the chain already applied marks its wallet funded at once, whoever holds the
 * lease (a process that died holding it, typically). Read-only on the chain and a conditional update in the database,
 * so it is safe beside a live holder. Returns how many wallets it found funded.
 */
export async function settleAppliedActivations(deps: FundingDeps): Promise<number> {
  let settled = 0;
  for (const activation of await sentActivations(deps.db, RECOVERY_BATCH)) {
    try {
      const [wallet, app] = await Promise.all([
        findWallet(deps.db, activation.walletId),
        findApp(deps.db, activation.appId),
      ]);
      if (!wallet || !app) continue;
      const gw = gatewayFor(deps, app.network);
      const status = await gw.transactionStatus(activation.txHash!);
      const sponsor = await appWalletFor(deps.db, app.id, app.network, 'funding');
      if (status.status !== 'SUCCESS' || !sponsor) continue;
      const { baseReserveStroops } = await gw.ledgerFigures();
      const transaction = activation.envelopeXdr
        ? { ...recordedTransaction(activation.envelopeXdr, gw.networkPassphrase), hash: status.hash }
        : undefined;
      await fundedFromChain(
        deps,
        { app, wallet, activation, actor: SYSTEM_ACTOR },
        { sponsor, ledger: status.ledger, baseReserve: baseReserveStroops, ...(transaction ? { transaction } : {}) },
      );
      settled += 1;
    } catch (err) {
      deps.log.warn({ err, walletId: activation.walletId }, 'could not reconcile a sent activation at start-up');
    }
  }
  return settled;
}

/** How often the activation recovery pass runs (FUNDING_RETRY_SECONDS). */
export function activationRecoveryIntervalMs(deps: FundingDeps): number {
  return settings(deps).retryIntervalSeconds * 1000;
}
