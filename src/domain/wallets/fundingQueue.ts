// The activation queue: activations waiting for the same funding wallet are batched into one transaction (up to 18
// wallets: 20 signatures, 100 operations), and with channel accounts (fundingChannels.ts) several batches of one
// funding wallet are in flight in the same ledger. Without channels the funding wallet is the source, so this
// instance has one batch in flight per funding wallet and the next batch gathers whatever arrives meanwhile. A batch
// the ledger refuses as a whole (one wallet's trustline fails, say) is retried wallet by wallet, so one bad activation
// never holds the others back. Callers (funding.ts) check each activation before queueing it and record the outcome
// after; the queue records the intent (envelope and hash, for every wallet of the batch) before sending.
import type { Transaction } from '@stellar/stellar-sdk';
import type { Deps } from '../../deps';
import { DEFAULT_FUNDING_SETTINGS } from '../../config';
import { TransactionRejectedError } from '../../infra/stellar/errors';
import { availableStroops, type StellarGateway } from '../../infra/stellar/gateway';
import { SYSTEM_ACTOR, type AuditActor } from '../audit/auditLog';
import { buildActivationTransaction, MAX_OPERATIONS_PER_TRANSACTION, operationCount, reserveStroops, sponsorCostStroops, type WalletActivation } from './activation';
import { withWalletKeypair } from './custody';
import { channelTopUp, ensureChannelAccounts, leaseChannel, releaseChannel } from './fundingChannels';
import { FundingShortfall } from './fundingErrors';
import { recordAttempt } from './fundingStore';
import type { WalletRecord } from './store';

export type QueueDeps = Pick<Deps, 'db' | 'kms' | 'clock' | 'log' | 'secrets' | 'funding'>;

/** A lease outlives the envelope's time bound by this much, so the envelope is final when the lease ends. */
export const LEASE_MARGIN_MS = 5_000;
/** How long a new batch waits for company: a burst of requests lands in one transaction. */
const GATHER_MS = 20;
/** A transaction carries at most 20 signatures: one per activated wallet, the funding wallet's and a channel's. */
export const MAX_WALLETS_PER_BATCH = 20 - 2;

export interface QueuedActivation {
  /** The user wallet to activate. */
  wallet: WalletRecord;
  activation: WalletActivation;
  /** Who the user key's decryption is recorded for. */
  actor: AuditActor;
  ip?: string;
}

export interface ActivationApplied {
  txHash: string;
  ledger: number;
}

interface Entry extends QueuedActivation {
  /** Retried alone after its batch was refused. */
  solo: boolean;
  resolve(applied: ActivationApplied): void;
  reject(err: unknown): void;
}

interface SponsorQueue {
  sponsor: WalletRecord;
  gw: StellarGateway;
  pending: Entry[];
  /** Batches under way; `gathering` of them have not taken their entries yet. */
  running: number;
  gathering: number;
  scheduled: boolean;
  channelsReady?: Promise<void>;
}

export class ActivationQueue {
  private readonly queues = new Map<string, SponsorQueue>();

  /** `channels`: channel accounts per funding wallet (0: the funding wallet is the transaction source). */
  constructor(
    private readonly deps: QueueDeps,
    private readonly channels: number,
  ) {}

  /** Queues an activation sponsored by `sponsor`; resolves once applied, rejects with why not. */
  activate(sponsor: WalletRecord, gw: StellarGateway, item: QueuedActivation): Promise<ActivationApplied> {
    let queue = this.queues.get(sponsor.id);
    if (!queue) {
      queue = { sponsor, gw, pending: [], running: 0, gathering: 0, scheduled: false };
      this.queues.set(sponsor.id, queue);
    }
    const q = queue;
    return new Promise((resolve, reject) => {
      q.pending.push({ ...item, solo: false, resolve, reject });
      this.schedule(q);
    });
  }

  private schedule(q: SponsorQueue): void {
    if (q.scheduled) return;
    q.scheduled = true;
    setTimeout(() => {
      q.scheduled = false;
      this.pump(q);
    }, GATHER_MS);
  }

  /** Starts batches while there are entries no running batch will take, up to one per channel (or one). */
  private pump(q: SponsorQueue): void {
    while (q.running < Math.max(1, this.channels) && q.gathering * MAX_WALLETS_PER_BATCH < q.pending.length) {
      q.running += 1;
      q.gathering += 1;
      void this.run(q).finally(() => {
        q.running -= 1;
        if (q.pending.length > 0) this.pump(q);
        else if (q.running === 0) this.queues.delete(q.sponsor.id);
      });
    }
  }

  /** The next batch: a solo entry alone, else entries in order while their signatures and operations fit. */
  private take(q: SponsorQueue): Entry[] {
    q.gathering -= 1;
    const first = q.pending.shift();
    if (!first) return [];
    if (first.solo) return [first];
    const batch = [first];
    let ops = operationCount(first.activation) + 1;
    while (
      q.pending.length > 0 &&
      batch.length < MAX_WALLETS_PER_BATCH &&
      !q.pending[0]!.solo &&
      ops + operationCount(q.pending[0]!.activation) <= MAX_OPERATIONS_PER_TRANSACTION
    ) {
      const next = q.pending.shift()!;
      ops += operationCount(next.activation);
      batch.push(next);
    }
    return batch;
  }

  /**
   * One batch: its source first (channel accounts created on first use, one leased), then the entries waiting by now
   * (so a batch fills with everything that arrived meanwhile), then checks, signatures, intent, submission.
   */
  private async run(q: SponsorQueue): Promise<void> {
    const { deps } = this;
    const { sponsor, gw } = q;
    const timeoutSeconds = (deps.funding ?? DEFAULT_FUNDING_SETTINGS).activationTimeoutSeconds;
    let channel: Awaited<ReturnType<typeof leaseChannel>>;
    let batch: Entry[] = [];
    let taken = false;
    let built = false;
    try {
      const now = deps.clock.now();
      if (this.channels > 0) {
        q.channelsReady ??= ensureChannelAccounts(gw, deps.secrets, {
          sponsorPublicKey: sponsor.publicKey,
          count: this.channels,
          sign: (tx) => this.signWith([sponsor], tx, SYSTEM_ACTOR, undefined),
        }).catch((err: unknown) => {
          q.channelsReady = undefined;
          throw err;
        });
        await q.channelsReady;
        // All busy (other instances): the funding wallet itself is the source of this batch.
        channel = await leaseChannel(deps.db, deps.secrets, {
          sponsorPublicKey: sponsor.publicKey,
          count: this.channels,
          now,
          leaseUntil: new Date(now.getTime() + timeoutSeconds * 1000 + LEASE_MARGIN_MS),
        });
      }
      batch = this.take(q);
      taken = true;
      if (batch.length === 0) return;
      const sourceKey = channel?.keypair.publicKey() ?? sponsor.publicKey;
      const [figures, sponsorAccount, channelAccount] = await Promise.all([
        gw.ledgerFigures(),
        gw.loadAccount(sponsor.publicKey),
        channel ? gw.loadAccount(sourceKey) : Promise.resolve(undefined),
      ]);
      // Funds may have gone since each entry was checked: keep, in order, what the funding wallet can still cover.
      let available = sponsorAccount ? availableStroops(sponsorAccount, figures.baseReserveStroops) : 0n;
      const affordable: Entry[] = [];
      for (const entry of batch) {
        const cost = sponsorCostStroops([entry.activation], { baseReserveStroops: figures.baseReserveStroops, feePerOperationStroops: figures.baseFeeStroops, sponsorPaysFee: !channel });
        if (cost > available) {
          entry.reject(new FundingShortfall(cost, reserveStroops(entry.activation.assets.length, figures.baseReserveStroops), entry.activation.startingBalanceXlm));
          continue;
        }
        available -= cost;
        affordable.push(entry);
      }
      batch = affordable;
      if (batch.length === 0 || !sponsorAccount) return;
      const topUp = channelAccount ? channelTopUp(channelAccount, sponsor.publicKey, figures.baseReserveStroops) : undefined;
      // The time bound counts from now (creating the channels may have taken a ledger), never before the chain's clock.
      const validUntilSeconds = Math.max(Math.floor(deps.clock.now().getTime() / 1000), figures.closeTime) + timeoutSeconds;
      const tx = buildActivationTransaction({
        source: { publicKey: sourceKey, sequence: (channelAccount ?? sponsorAccount).sequence },
        sponsor: sponsor.publicKey,
        activations: batch.map((e) => e.activation),
        networkPassphrase: gw.networkPassphrase,
        feePerOperationStroops: figures.baseFeeStroops,
        validUntil: validUntilSeconds,
        ...(topUp ? { extraOperations: [topUp] } : {}),
      });
      built = true;
      if (channel) tx.sign(channel.keypair);
      const sponsorActor = batch.length === 1 ? batch[0]!.actor : SYSTEM_ACTOR;
      await this.signWith([sponsor], tx, sponsorActor, batch.length === 1 ? batch[0]!.ip : undefined);
      for (const entry of batch) await this.signWith([entry.wallet], tx, entry.actor, entry.ip);

      const txHash = Buffer.from(tx.hash()).toString('hex');
      const validUntil = new Date(validUntilSeconds * 1000);
      const envelopeXdr = tx.toXDR();
      await deps.db.transaction(async (trx) => {
        for (const entry of batch) {
          await recordAttempt(trx, entry.wallet.id, {
            txHash,
            envelopeXdr,
            validUntil,
            leaseUntil: new Date(validUntil.getTime() + LEASE_MARGIN_MS),
            sponsorPublicKey: sponsor.publicKey,
            at: deps.clock.now(),
          });
        }
      });
      await gw.submit(tx);
      const { ledger } = await gw.confirm(txHash, { timeoutMs: validUntil.getTime() - Date.now() + 2000 });
      for (const entry of batch) entry.resolve({ txHash, ledger });
    } catch (err) {
      if (!taken) batch = this.take(q); // the source could not be had: these entries cannot go now
      const refusedAsWhole = built && err instanceof TransactionRejectedError && batch.length > 1 && !(err.stage === 'submission' && err.codes.transaction === 'tx_bad_seq');
      if (refusedAsWhole) {
        q.pending.unshift(...batch.map((e) => ({ ...e, solo: true })));
      } else {
        for (const entry of batch) entry.reject(err);
      }
    } finally {
      if (channel) await releaseChannel(deps.db, sponsor.publicKey, channel.position).catch((e: unknown) => deps.log.warn({ err: e }, 'could not release a channel account'));
    }
  }

  /** Signs with each wallet's key in turn, every decryption audited. */
  private async signWith(wallets: WalletRecord[], tx: Transaction, actor: AuditActor, ip: string | undefined): Promise<void> {
    for (const wallet of wallets) {
      await withWalletKeypair(this.deps, { walletId: wallet.id, purpose: 'wallet.activate', actor, ...(ip !== undefined ? { ip } : {}) }, async (kp) => {
        tx.sign(kp);
      });
    }
  }
}
