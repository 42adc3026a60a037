// The activation queue: activations waiting for the same funding wallet are batched into one transaction (up to 18
// wallets: 20 signatures, 100 operations), and with channel accounts (fundingChannels.ts) several batches of one
// funding wallet are in flight in the same ledger. Without channels the funding wallet is the source, so this
// instance has one batch in flight per funding wallet and the next batch gathers whatever arrives meanwhile. Every
// batch is wrapped in a fee-bump paid by the app's gas wallet (GAS pays fees, FUNDING pays reserves; in the single
// layout both are the one global wallet), so neither the funding wallet nor a channel pays a fee. A batch the ledger
// refuses as a whole (one wallet's trustline fails, say) is retried wallet by wallet, so one bad activation never
// holds the others back. Callers (funding.ts) check each activation before queueing it and record the outcome
// after; the queue records the intent (the fee-bump's envelope and hash, for every wallet of the batch) before
// sending. The gathering and scheduling of batches is chain/batchQueue.ts (distribution payouts use it too).
import type { FeeBumpTransaction, Transaction } from '@stellar/stellar-sdk';
import type { Deps } from '../deps';
import { DEFAULT_FUNDING_SETTINGS } from '../../config';
import { fromStroops } from '../money/amounts';
import { TransactionRejectedError } from '../../infra/stellar/errors';
import { availableStroops, type AccountState, type StellarGateway } from '../../infra/stellar/gateway';
import { SYSTEM_ACTOR, type AuditActor } from '../audit/auditLog';
import { MAX_FEE_RAISES, raisedFeeUnderPolicy, sponsorFee } from '../transactions/feeBump';
import { loadFeePolicy } from '../feePolicy/policy';
import {
  activationFeeStroops,
  buildActivationTransaction,
  MAX_OPERATIONS_PER_TRANSACTION,
  operationCount,
  reserveStroops,
  sponsorCostStroops,
  type WalletActivation,
} from './activation';
import { withWalletKeypair } from '../wallets/custody';
import { leaseBatchChannel, releaseChannel, type ChannelHolder } from './channels';
import { FundingShortfall } from './errors';
import { recordAttempt, type ActivationTransaction } from './store';
import { BatchQueue, type BatchEntry, type BatchTurn } from '../chain/batchQueue';
import { registerOwnSubmission } from '../transactions/store';
import type { WalletRecord } from '../wallets/store';
import { signTransaction, transactionHashHex } from '../../infra/stellar/transactionHash';

export type QueueDeps = Pick<Deps, 'db' | 'kms' | 'clock' | 'log' | 'secrets' | 'funding'>;

/** A lease outlives the envelope's time bound by this much, so the envelope is final when the lease ends. */
export const LEASE_MARGIN_MS = 5_000;
/** How long a new batch waits for company: a burst of requests lands in one transaction. */
const GATHER_MS = 20;
/** A transaction carries at most 20 signatures: one per activated wallet, the funding wallet's and a channel's. */
export const MAX_WALLETS_PER_BATCH = 20 - 2;

/**
 * The gas wallet cannot pay an activation's fee-bump fee (or the app has none, or its account does not exist):
 * nothing was submitted. In the single layout the gas wallet is the funding wallet, which then needs the fee on top.
 */
export class GasShortfall extends Error {
  constructor(
    /** The gas wallet's address; undefined when the app has no gas wallet. */
    readonly gasPublicKey: string | undefined,
    readonly feeStroops: bigint,
    readonly reason: 'missing' | 'no_account' | 'balance',
  ) {
    super(
      reason === 'missing'
        ? 'the app has no gas wallet'
        : reason === 'no_account'
          ? `the gas wallet ${gasPublicKey} does not exist on the ledger`
          : `the gas wallet ${gasPublicKey} cannot cover the fee of ${fromStroops(feeStroops)} XLM`,
    );
    this.name = 'GasShortfall';
  }
}

export interface QueuedActivation {
  /** The user wallet to activate. */
  wallet: WalletRecord;
  activation: WalletActivation;
  /** Who the user key's decryption is recorded for. */
  actor: AuditActor;
  ip?: string;
}

/** An applied activation: the fee-bump that carried it (the batch's), and its ledger. */
export interface ActivationApplied extends ActivationTransaction {
  ledger: number;
}

type Entry = BatchEntry<QueuedActivation, ActivationApplied>;

/** What the batches of one funding wallet (and gas wallet) share. */
interface SponsorContext extends ChannelHolder {
  sponsor: WalletRecord;
  /** Pays every batch's fee-bump fee; may be the sponsor itself (single layout). */
  gas: WalletRecord;
  gw: StellarGateway;
}

/** The facts of a fee-bump envelope the activation records keep (recovery reads them back from the envelope). */
export function activationTransactionOf(bump: FeeBumpTransaction, envelopeXdr = bump.toXDR()): ActivationTransaction {
  const inner = bump.innerTransaction;
  return {
    hash: transactionHashHex(bump),
    innerHash: transactionHashHex(inner),
    envelopeXdr,
    sourceAccount: inner.source,
    feeSource: bump.feeSource,
    // What the fee-bump declares at the ledger's base fee; charged = declared unless surge pricing lowers the rate.
    feeStroops: BigInt(bump.fee),
    opsCount: inner.operations.length,
  };
}

export class ActivationQueue {
  private readonly batches: BatchQueue<SponsorContext, QueuedActivation, ActivationApplied>;

  /** `channels`: channel accounts per funding wallet (0: the funding wallet is the transaction source). */
  constructor(
    private readonly deps: QueueDeps,
    private readonly channels: number,
  ) {
    this.batches = new BatchQueue(
      {
        gatherMs: GATHER_MS,
        concurrency: channels,
        maxItems: MAX_WALLETS_PER_BATCH,
        fits: (batch, next) =>
          batch.reduce((n, e) => n + operationCount(e.activation), 0) + operationCount(next.activation) <=
          MAX_OPERATIONS_PER_TRANSACTION,
      },
      (context, turn) => this.run(context, turn),
    );
  }

  /** Queues an activation sponsored by `sponsor`, its fee paid by `gas`; resolves once applied, rejects with why not. */
  activate(
    sponsor: WalletRecord,
    gas: WalletRecord,
    gw: StellarGateway,
    item: QueuedActivation,
  ): Promise<ActivationApplied> {
    return this.batches.add(`${sponsor.id}/${gas.id}`, { sponsor, gas, gw }, item);
  }

  /**
   * Keeps, in order, the entries the funding wallet (reserves, starting balances) and the gas wallet (the fee-bump
   * fee) can still cover now; the others are rejected with why. One wallet in both roles covers both from one balance.
   */
  private affordable(
    q: SponsorContext,
    batch: Entry[],
    figures: { baseReserveStroops: bigint; baseFeeStroops: number },
    accounts: { sponsor: AccountState | undefined; gas: AccountState | undefined },
  ): Entry[] {
    const sameWallet = q.gas.publicKey === q.sponsor.publicKey;
    let sponsorLeft = accounts.sponsor ? availableStroops(accounts.sponsor, figures.baseReserveStroops) : 0n;
    let gasLeft = sameWallet ? 0n : accounts.gas ? availableStroops(accounts.gas, figures.baseReserveStroops) : 0n;
    const kept: Entry[] = [];
    for (const entry of batch) {
      const cost = sponsorCostStroops([entry.item.activation], { baseReserveStroops: figures.baseReserveStroops });
      // The fee-bump's own operation is charged with the first entry.
      const fee =
        activationFeeStroops([entry.item.activation], figures.baseFeeStroops) -
        (kept.length > 0 ? BigInt(figures.baseFeeStroops) : 0n);
      if (cost > sponsorLeft) {
        entry.reject(
          new FundingShortfall(
            cost,
            reserveStroops(entry.item.activation.assets.length, figures.baseReserveStroops),
            entry.item.activation.startingBalanceXlm,
          ),
        );
        continue;
      }
      const gasAccount = sameWallet ? accounts.sponsor : accounts.gas;
      if (!gasAccount || (sameWallet ? cost + fee > sponsorLeft : fee > gasLeft)) {
        entry.reject(new GasShortfall(q.gas.publicKey, fee, gasAccount ? 'balance' : 'no_account'));
        continue;
      }
      sponsorLeft -= sameWallet ? cost + fee : cost;
      gasLeft -= sameWallet ? 0n : fee;
      kept.push(entry);
    }
    return kept;
  }

  /**
   * One batch: its source first (channel accounts created on first use, one leased), then the entries waiting by now
   * (so a batch fills with everything that arrived meanwhile), then checks, signatures, the fee-bump, intent,
   * submission.
   */
  private async run(q: SponsorContext, turn: BatchTurn<QueuedActivation, ActivationApplied>): Promise<void> {
    const { deps } = this;
    const { sponsor, gas, gw } = q;
    const timeoutSeconds = (deps.funding ?? DEFAULT_FUNDING_SETTINGS).activationTimeoutSeconds;
    let channel: Awaited<ReturnType<typeof leaseBatchChannel>>;
    let batch: Entry[] = [];
    let taken = false;
    let built = false;
    try {
      const now = deps.clock.now();
      if (this.channels > 0) {
        // None free within the wait: the funding wallet itself is the source of this batch.
        channel = await leaseBatchChannel(deps, q, {
          owner: sponsor,
          gas,
          gw,
          count: this.channels,
          leaseUntil: new Date(now.getTime() + timeoutSeconds * 1000 + LEASE_MARGIN_MS),
          sign: (tx) => this.signWith([sponsor], tx, SYSTEM_ACTOR, undefined),
        });
      }
      batch = turn.take();
      taken = true;
      if (batch.length === 0) return;
      const sourceKey = channel?.keypair.publicKey() ?? sponsor.publicKey;
      const [figures, sponsorAccount, gasAccount, channelAccount] = await Promise.all([
        gw.ledgerFigures(),
        gw.loadAccount(sponsor.publicKey),
        gas.publicKey === sponsor.publicKey ? Promise.resolve(undefined) : gw.loadAccount(gas.publicKey),
        channel ? gw.loadAccount(sourceKey) : Promise.resolve(undefined),
      ]);
      // Funds may have gone since each entry was checked: keep, in order, what the app's wallets can still cover.
      batch = this.affordable(q, batch, figures, { sponsor: sponsorAccount, gas: gasAccount });
      if (batch.length === 0 || !sponsorAccount) return;
      if (channel && !channelAccount) throw new Error(`the channel account ${sourceKey} does not exist on-chain`);
      // The time bound counts from now (creating the channels may have taken a ledger), never before the chain's clock.
      const validUntilSeconds =
        Math.max(Math.floor(deps.clock.now().getTime() / 1000), figures.closeTime) + timeoutSeconds;
      const tx = buildActivationTransaction({
        source: { publicKey: sourceKey, sequence: (channelAccount ?? sponsorAccount).sequence },
        sponsor: sponsor.publicKey,
        activations: batch.map((e) => e.item.activation),
        networkPassphrase: gw.networkPassphrase,
        feePerOperationStroops: figures.baseFeeStroops,
        validUntil: validUntilSeconds,
      });
      built = true;
      if (channel) signTransaction(tx, channel.keypair);
      const alone = batch.length === 1 ? batch[0]!.item : undefined;
      const batchActor = alone?.actor ?? SYSTEM_ACTOR;
      await this.signWith([sponsor], tx, batchActor, alone?.ip);
      for (const { item } of batch) await this.signWith([item.wallet], tx, item.actor, item.ip);
      const validUntil = new Date(validUntilSeconds * 1000);
      // A congested network refuses the product's fee and names the one that would get in: the gas wallet wraps the
      // same activation again at that fee, within the app's fee policy, each envelope recorded before it is sent.
      let feeStroops: bigint | undefined;
      let sent: ActivationTransaction;
      for (let raises = 0; ; raises++) {
        const bump = await sponsorFee(deps, {
          gasWallet: gas,
          inner: tx,
          networkPassphrase: gw.networkPassphrase,
          actor: batchActor,
          ...(alone?.ip !== undefined ? { ip: alone.ip } : {}),
          ...(feeStroops !== undefined ? { feeStroops } : {}),
        });
        sent = activationTransactionOf(bump);
        const recorded = sent;
        await deps.db.transaction(async (trx) => {
          // Before it is sent: the ledger follower must never take the service's own activation for an outside one.
          await registerOwnSubmission(trx, {
            network: gw.network,
            hashes: [recorded.hash, ...(recorded.innerHash ? [recorded.innerHash] : [])],
            at: deps.clock.now(),
          });
          for (const entry of batch) {
            await recordAttempt(trx, entry.item.wallet.id, {
              txHash: recorded.hash,
              envelopeXdr: recorded.envelopeXdr,
              validUntil,
              leaseUntil: new Date(validUntil.getTime() + LEASE_MARGIN_MS),
              sponsorPublicKey: sponsor.publicKey,
              at: deps.clock.now(),
            });
          }
        });
        try {
          await gw.submit(bump);
          break;
        } catch (err) {
          const raised = await this.raisedFee(err, tx, sponsor.appId, raises);
          if (raised === undefined) throw err;
          feeStroops = raised;
        }
      }
      const { ledger } = await gw.confirm(sent.hash, { timeoutMs: validUntil.getTime() - Date.now() + 2000 });
      for (const entry of batch) entry.resolve({ ...sent, ledger });
    } catch (err) {
      if (!taken) batch = turn.take(); // the source could not be had: these entries cannot go now
      const refusedAsWhole =
        built &&
        err instanceof TransactionRejectedError &&
        batch.length > 1 &&
        !(
          err.stage === 'submission' &&
          (err.codes.transaction === 'tx_bad_seq' || err.codes.transaction === 'tx_insufficient_balance')
        );
      if (refusedAsWhole) {
        turn.retryAlone(batch);
      } else {
        for (const entry of batch) entry.reject(err);
      }
    } finally {
      if (channel)
        await releaseChannel(deps.db, sponsor.publicKey, channel.position).catch((e: unknown) =>
          deps.log.warn({ err: e }, 'could not release a channel account'),
        );
    }
  }

  /**
   * The fee to wrap an activation in again after `err`: the fee a congested network asked for (tx_insufficient_fee),
   * when the app's fee policy allows it and this batch has not been raised MAX_FEE_RAISES times; undefined otherwise.
   */
  private async raisedFee(err: unknown, tx: Transaction, appId: string, raises: number): Promise<bigint | undefined> {
    if (!(err instanceof TransactionRejectedError) || err.requiredFeeStroops === undefined) return undefined;
    if (raises >= MAX_FEE_RAISES) return undefined;
    const raised = raisedFeeUnderPolicy(await loadFeePolicy(this.deps.db, appId), tx, err.requiredFeeStroops);
    return raised.refusal ? undefined : raised.feeStroops;
  }

  /** Signs with each wallet's key in turn, every decryption audited. */
  private async signWith(
    wallets: WalletRecord[],
    tx: Transaction,
    actor: AuditActor,
    ip: string | undefined,
  ): Promise<void> {
    for (const wallet of wallets) {
      await withWalletKeypair(
        this.deps,
        { walletId: wallet.id, purpose: 'wallet.activate', actor, ...(ip !== undefined ? { ip } : {}) },
        (kp) => {
          signTransaction(tx, kp);
        },
      );
    }
  }
}
