// Payouts: an app's distribution wallet paying an asset to its users' wallets (distribution claims), batched. Per
// recipient, in one transaction with the others of its batch:
//   beginSponsoringFutureReserves(wallet)  source: the funding wallet   } only when the wallet has no trustline for a
//   changeTrust(asset)                     source: the wallet           } credit asset yet: the line's 0.5 XLM reserve
//   endSponsoringFutureReserves            source: the wallet           } is the funding wallet's, as at activation
//   payment(wallet, asset, amount)         source: the distribution wallet
// The transaction source is a channel account of the distribution wallet (channels.ts: it only provides the sequence
// number, so several batches of one distribution wallet land in the same ledger, and none competes with the funding
// wallet's own sequence, which activations use), and the whole is wrapped in a fee-bump paid by the app's gas wallet:
// nobody else pays a fee. Before anything is sent
// each payout records the envelope it goes in (its `intent`, in one database transaction with the hash registered as
// the service's own), so a crash after sending is reconciled with the chain by that hash, never paid again.
import {
  Account,
  Asset,
  Operation,
  TransactionBuilder,
  type FeeBumpTransaction,
  type Transaction,
  type xdr,
} from '@stellar/stellar-sdk';
import type { Knex } from 'knex';
import { DEFAULT_FUNDING_SETTINGS } from '../../config';
import { TransactionRejectedError } from '../../infra/stellar/errors';
import {
  availableStroops,
  parseAsset,
  type StellarGateway,
  type TransactionDetails,
} from '../../infra/stellar/gateway';
import type { NetworkName } from '../../config';
import { SYSTEM_ACTOR, type AuditActor } from '../audit/auditLog';
import { BatchQueue, type BatchEntry, type BatchTurn } from '../chain/batchQueue';
import type { Deps } from '../deps';
import { leaseBatchChannel, releaseChannel, type ChannelHolder } from '../funding/channels';
import { MAX_OPERATIONS_PER_TRANSACTION } from '../funding/activation';
import { LEASE_MARGIN_MS } from '../funding/queue';
import { fromStroops } from '../money/amounts';
import { sponsorFee } from '../transactions/feeBump';
import { headlineResultCode } from '../transactions/finalize';
import { insertTransaction, registerOwnSubmission } from '../transactions/store';
import { withWalletKeypair } from '../wallets/custody';
import type { WalletRecord } from '../wallets/store';
import type { TreasuryDuty } from '../wallets/treasuryWallets';
import { gatewayFor } from '../chain/gateways';
import { AppError } from '../errors';
import { signTransaction, transactionHashHex } from '../../infra/stellar/transactionHash';

export type PayoutDeps = Pick<Deps, 'db' | 'kms' | 'clock' | 'log' | 'secrets' | 'funding'>;

/** How long a new batch waits for company: a burst of claims lands in one transaction. */
const GATHER_MS = 20;
/**
 * Operations per payout transaction: one fewer than a transaction may hold. A ledger's limit (1,000 operations on
 * localnet and the network) counts a fee-bump as its inner operations + 1, so ten transactions of 99 fill a ledger
 * exactly (990 payments) where only nine of 100 fit (900).
 */
export const PAYOUT_OPERATIONS_PER_TRANSACTION = MAX_OPERATIONS_PER_TRANSACTION - 1;
/** At most 20 signatures: the channel's, the distribution and funding wallets', one per new trustline's wallet. */
const MAX_SIGNATURES = 20;

export interface Payout {
  /** What is paid (a claim id), for logs. */
  id: string;
  /** The recipient: a custodial user wallet (it signs its new trustline, when one is needed). */
  wallet: WalletRecord;
  /** 'native' or CODE:ISSUER. */
  asset: string;
  amountStroops: bigint;
  /** Who the key decryptions are recorded for. */
  actor: AuditActor;
  /**
   * Whether the recipient lacks a trustline for the asset, when the caller read it already (a push reads a whole chunk
   * of recipients in one call); otherwise it is read from the chain for this payout.
   */
  needsTrustline?: boolean;
  /**
   * Records that this payout goes in `sent`, in the database transaction that registers the batch before it is sent:
   * the payouts of a batch with the same `group` are recorded by one `record` call with all their keys (one statement
   * for a hundred recipients of a push). It throws when one of them can no longer be sent (settled meanwhile): then
   * nothing of the batch is recorded or sent.
   */
  intent: PayoutIntent;
}

export interface PayoutIntent {
  group: string;
  key: string;
  record(trx: Knex.Transaction, sent: PayoutTransaction, keys: string[]): Promise<void>;
}

/** The wallets of the app that take part: the distribution wallet pays, the funding wallet sponsors, gas pays fees. */
export interface PayoutWallets {
  distribution: WalletRecord;
  funding: WalletRecord;
  gas: WalletRecord;
  gw: StellarGateway;
}

/** The fee-bump envelope a payout went in, as recorded before sending. */
export interface PayoutTransaction {
  hash: string;
  innerHash: string;
  envelopeXdr: string;
  sourceAccount: string;
  feeSource: string;
  feeStroops: bigint;
  opsCount: number;
  validUntil: Date;
}

export interface PayoutApplied {
  transaction: PayoutTransaction;
  ledger: number;
  /** A trustline was created (sponsored) for the payout. */
  trustlineCreated: boolean;
}

/**
 * Why a payout did not (or not yet) happen. `sent` is the envelope it was recorded in, when it got that far: then the
 * outcome may still be unknown (`cause` is not a rejection) and only the chain can tell.
 */
export class PayoutFailed extends Error {
  constructor(
    readonly reason:
      | 'no_distribution_account' // the distribution wallet has no account, or no trustline for the asset
      | 'distribution_balance' // op_underfunded: not enough of the asset
      | 'trustline_reserve' // the funding wallet cannot sponsor the new trustline's reserve
      | 'gas' // the gas wallet cannot pay the fee
      | 'rejected' // the ledger refused it (resultCode)
      | 'unknown', // sent, outcome not known yet (or an error before sending: then `sent` is undefined)
    message: string,
    readonly resultCode?: string,
    readonly sent?: PayoutTransaction,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'PayoutFailed';
  }
}

interface Planned extends Payout {
  trustline: boolean;
  /** Times its batch was built again after a bad sequence (another transaction took the source's number). */
  rebuilds: number;
}

/** A batch refused for a bad sequence is built again (with the source's new number) this many times at most. */
const MAX_REBUILDS = 3;

const opsOf = (p: Planned): number => (p.trustline ? 4 : 1);

function signaturesOf(batch: Planned[], wallets: PayoutWallets): number {
  const trustlines = batch.filter((p) => p.trustline).length;
  const fundingSigns = trustlines > 0 && wallets.funding.publicKey !== wallets.distribution.publicKey ? 1 : 0;
  return 2 + fundingSigns + trustlines;
}

const assetObject = (asset: string): Asset => (asset === 'native' ? Asset.native() : parseAsset(asset));

function payoutOperations(p: Planned, wallets: PayoutWallets): xdr.Operation[] {
  const wallet = p.wallet.publicKey;
  const ops: xdr.Operation[] = [];
  if (p.trustline) {
    ops.push(
      Operation.beginSponsoringFutureReserves({ sponsoredId: wallet, source: wallets.funding.publicKey }),
      Operation.changeTrust({ asset: assetObject(p.asset), source: wallet }),
      Operation.endSponsoringFutureReserves({ source: wallet }),
    );
  }
  ops.push(
    Operation.payment({
      destination: wallet,
      asset: assetObject(p.asset),
      amount: fromStroops(p.amountStroops),
      source: wallets.distribution.publicKey,
    }),
  );
  return ops;
}

type Entry = BatchEntry<Planned, PayoutApplied>;

export class PayoutQueue {
  private readonly batches: BatchQueue<PayoutWallets & ChannelHolder, Planned, PayoutApplied>;

  /**
   * `channels`: channel accounts per distribution wallet, at least one. Payouts never use the distribution wallet
   * itself as the transaction source: in the single layout it is also the funding wallet, which the activation queue
   * uses as its source when it has no channels, and two queues building on one account's sequence number would refuse
   * each other's transactions (tx_bad_seq).
   */
  private readonly channels: number;

  constructor(
    private readonly deps: PayoutDeps,
    channels: number,
  ) {
    this.channels = Math.max(1, channels);
    this.batches = new BatchQueue(
      {
        gatherMs: GATHER_MS,
        concurrency: this.channels,
        maxItems: PAYOUT_OPERATIONS_PER_TRANSACTION,
        // `fits` cannot see the wallets: the signature count is checked with the worst case (a separate funding wallet).
        // One payout per recipient per transaction: a wallet's history shows each transaction once, with its amount.
        fits: (batch, next) =>
          !batch.some((p) => p.wallet.id === next.wallet.id) &&
          batch.reduce((n, p) => n + opsOf(p), 0) + opsOf(next) <= PAYOUT_OPERATIONS_PER_TRANSACTION &&
          3 + [...batch, next].filter((p) => p.trustline).length <= MAX_SIGNATURES,
      },
      (wallets, turn) => this.run(wallets, turn),
    );
  }

  /**
   * Pays `payout` from the app's distribution wallet; resolves once applied, rejects with PayoutFailed. Whether the
   * recipient needs a trustline is read from the chain first.
   */
  async pay(wallets: PayoutWallets, payout: Payout): Promise<PayoutApplied> {
    let trustline = payout.needsTrustline ?? false;
    if (payout.asset !== 'native' && payout.needsTrustline === undefined) {
      const lines = await wallets.gw.trustlines(payout.wallet.publicKey, [payout.asset]);
      trustline = lines.length === 0;
    }
    const key = `${wallets.distribution.id}/${wallets.funding.id}/${wallets.gas.id}`;
    return this.batches.add(key, { ...wallets }, { ...payout, trustline, rebuilds: 0 });
  }

  /** Keeps, in order, the payouts the app's wallets can still cover now; the others are rejected with why. */
  private async affordable(
    wallets: PayoutWallets,
    batch: Entry[],
    figures: { baseReserveStroops: bigint; baseFeeStroops: number },
  ): Promise<Entry[]> {
    const { gw, distribution, funding, gas } = wallets;
    const [accounts, lines] = await Promise.all([
      gw.loadAccounts([...new Set([distribution.publicKey, funding.publicKey, gas.publicKey])]),
      // A batch may mix assets: each line is read.
      gw.trustlines(distribution.publicKey, [...new Set(batch.map((e) => e.item.asset).filter((a) => a !== 'native'))]),
    ]);
    const balances = new Map<string, bigint>();
    const dist = accounts.get(distribution.publicKey);
    // What each wallet has left; one wallet in several roles spends from one balance.
    const xlm = new Map<string, bigint>();
    for (const [address, state] of accounts) xlm.set(address, availableStroops(state, figures.baseReserveStroops));
    for (const line of lines) balances.set(line.asset, line.balanceStroops - line.sellingLiabilitiesStroops);
    const kept: Entry[] = [];
    for (const entry of batch) {
      const p = entry.item;
      const fail = (reason: PayoutFailed['reason'], message: string, resultCode?: string) =>
        entry.reject(new PayoutFailed(reason, message, resultCode));
      if (!dist || (p.asset !== 'native' && !balances.has(p.asset))) {
        fail(
          'no_distribution_account',
          `The distribution wallet ${distribution.publicKey} ${dist ? `holds no ${p.asset.split(':')[0]}` : 'has no account on the network'}`,
        );
        continue;
      }
      const fee = BigInt(figures.baseFeeStroops) * BigInt(opsOf(p) + (kept.length === 0 ? 1 : 0));
      const reserve = p.trustline ? figures.baseReserveStroops : 0n;
      const spend = new Map<string, bigint>();
      const add = (address: string, n: bigint) => spend.set(address, (spend.get(address) ?? 0n) + n);
      add(gas.publicKey, fee);
      add(funding.publicKey, reserve);
      if (p.asset === 'native') add(distribution.publicKey, p.amountStroops);
      const assetLeft = p.asset === 'native' ? undefined : balances.get(p.asset)!;
      if (assetLeft !== undefined && assetLeft < p.amountStroops) {
        fail(
          'distribution_balance',
          `The distribution wallet holds too little ${p.asset.split(':')[0]}`,
          'op_underfunded',
        );
        continue;
      }
      if (p.asset === 'native' && (xlm.get(distribution.publicKey) ?? 0n) < (spend.get(distribution.publicKey) ?? 0n)) {
        fail('distribution_balance', 'The distribution wallet holds too little XLM', 'op_underfunded');
        continue;
      }
      if (reserve > 0n && (xlm.get(funding.publicKey) ?? 0n) < (spend.get(funding.publicKey) ?? 0n)) {
        fail('trustline_reserve', `The funding wallet cannot sponsor the ${p.asset.split(':')[0]} trustline reserve`);
        continue;
      }
      if (!accounts.has(gas.publicKey) || (xlm.get(gas.publicKey) ?? 0n) < (spend.get(gas.publicKey) ?? 0n)) {
        fail('gas', `The gas wallet ${gas.publicKey} cannot pay the fee`);
        continue;
      }
      for (const [address, n] of spend) xlm.set(address, (xlm.get(address) ?? 0n) - n);
      if (assetLeft !== undefined) balances.set(p.asset, assetLeft - p.amountStroops);
      kept.push(entry);
    }
    return kept;
  }

  /** One batch: a channel leased, the batch taken, checked, built, signed, fee-bumped, recorded, sent, confirmed. */
  private async run(wallets: PayoutWallets & ChannelHolder, turn: BatchTurn<Planned, PayoutApplied>) {
    const { deps } = this;
    const { distribution, funding, gas, gw } = wallets;
    const timeoutSeconds = (deps.funding ?? DEFAULT_FUNDING_SETTINGS).activationTimeoutSeconds;
    let channel: Awaited<ReturnType<typeof leaseBatchChannel>>;
    let batch: Entry[] = [];
    let sent: PayoutTransaction | undefined;
    try {
      const now = deps.clock.now();
      // Undefined only when none was free for CHANNEL_WAIT_MS: then the distribution wallet is the source after all.
      channel = await leaseBatchChannel(deps, wallets, {
        owner: distribution,
        gas,
        gw,
        count: this.channels,
        leaseUntil: new Date(now.getTime() + timeoutSeconds * 1000 + LEASE_MARGIN_MS),
        sign: (tx) => this.signWith([distribution], tx, SYSTEM_ACTOR),
      });
      batch = turn.take();
      if (batch.length === 0) return;
      const sourceKey = channel?.keypair.publicKey() ?? distribution.publicKey;
      const [figures, source] = await Promise.all([gw.ledgerFigures(), gw.loadAccount(sourceKey)]);
      batch = await this.affordable(wallets, batch, figures);
      if (batch.length === 0) return;
      if (!source) throw new Error(`the transaction source ${sourceKey} does not exist on-chain`);
      const validUntilSeconds =
        Math.max(Math.floor(deps.clock.now().getTime() / 1000), figures.closeTime) + timeoutSeconds;
      const builder = new TransactionBuilder(new Account(sourceKey, source.sequence), {
        fee: String(figures.baseFeeStroops),
        networkPassphrase: gw.networkPassphrase,
        timebounds: { minTime: 0, maxTime: validUntilSeconds },
      });
      for (const entry of batch) for (const op of payoutOperations(entry.item, wallets)) builder.addOperation(op);
      const tx = builder.build();
      if (channel) signTransaction(tx, channel.keypair);
      const alone = batch.length === 1 ? batch[0]!.item : undefined;
      const batchActor = alone?.actor ?? SYSTEM_ACTOR;
      const signers = [distribution];
      if (batch.some((e) => e.item.trustline) && funding.publicKey !== distribution.publicKey) signers.push(funding);
      await this.signWith(signers, tx, batchActor);
      for (const entry of batch)
        if (entry.item.trustline) await this.signWith([entry.item.wallet], tx, entry.item.actor);
      if (
        signaturesOf(
          batch.map((e) => e.item),
          wallets,
        ) > MAX_SIGNATURES
      )
        throw new Error('too many signatures');
      const bump = await sponsorFee(deps, {
        gasWallet: gas,
        inner: tx,
        networkPassphrase: gw.networkPassphrase,
        actor: batchActor,
        purpose: 'distribution.payout',
      });
      const thisBatch = transactionOf(bump, new Date(validUntilSeconds * 1000));
      await deps.db.transaction(async (trx) => {
        await registerOwnSubmission(trx, {
          network: gw.network,
          hashes: [thisBatch.hash, thisBatch.innerHash],
          at: deps.clock.now(),
        });
        const groups = new Map<string, Payout[]>();
        for (const { item } of batch) groups.set(item.intent.group, [...(groups.get(item.intent.group) ?? []), item]);
        for (const group of groups.values())
          await group[0]!.intent.record(
            trx,
            thisBatch,
            group.map((p) => p.intent.key),
          );
      });
      sent = thisBatch;
      await gw.submit(bump);
      const { ledger } = await gw.confirm(sent.hash, {
        timeoutMs: sent.validUntil.getTime() - Date.now() + 2000,
      });
      for (const entry of batch) entry.resolve({ transaction: sent, ledger, trustlineCreated: entry.item.trustline });
    } catch (err) {
      const rejected = err instanceof TransactionRejectedError ? err : undefined;
      const gasShort = rejected?.stage === 'submission' && rejected.codes.transaction === 'tx_insufficient_balance';
      const badSeq = rejected?.stage === 'submission' && rejected.codes.transaction === 'tx_bad_seq';
      if (rejected?.stage === 'ledger' && sent) {
        // Failed in its ledger: nothing moved but the fee, which the gas wallet paid. That is recorded too.
        const failed = sent;
        await wallets.gw
          .transactionDetails(failed.hash)
          .then((details) =>
            recordFailedPayout(deps, {
              distribution,
              network: gw.network,
              sent: failed,
              details,
              resultCode: headlineResultCode(rejected.codes),
            }),
          )
          .catch((e: unknown) =>
            deps.log.error({ err: e, hash: failed.hash }, 'could not record a failed distribution payment'),
          );
      }
      if (badSeq && batch.every((e) => e.item.rebuilds < MAX_REBUILDS)) {
        // Never applied: the same batch again with the source's current number (each records its new envelope).
        for (const e of batch) e.item.rebuilds += 1;
        turn.retry(batch);
        return;
      }
      if (rejected && sent && batch.length > 1 && !gasShort) {
        // Refused as a whole (one recipient's trustline, a sequence another batch took): each goes again alone. Their
        // intent rows name this envelope, which can never apply now: a later attempt records its own.
        turn.retryAlone(batch);
        return;
      }
      const failure = gasShort
        ? new PayoutFailed('gas', `The gas wallet ${gas.publicKey} cannot pay the fee`, 'tx_insufficient_balance', sent)
        : rejected
          ? new PayoutFailed('rejected', 'Stellar rejected the payout', headlineResultCode(rejected.codes), sent, {
              cause: err,
            })
          : new PayoutFailed('unknown', err instanceof Error ? err.message : String(err), undefined, sent, {
              cause: err,
            });
      for (const entry of batch) entry.reject(failure);
    } finally {
      if (channel)
        await releaseChannel(deps.db, distribution.publicKey, channel.position).catch((e: unknown) =>
          deps.log.warn({ err: e }, 'could not release a channel account'),
        );
    }
  }

  /** Signs with each wallet's key in turn, every decryption audited. */
  private async signWith(wallets: WalletRecord[], tx: Transaction, actor: AuditActor): Promise<void> {
    for (const wallet of wallets) {
      await withWalletKeypair(this.deps, { walletId: wallet.id, purpose: 'distribution.payout', actor }, (kp) => {
        signTransaction(tx, kp);
      });
    }
  }
}

/** The app's wallets a payout needs; 409 DISTRIBUTION_NO_DISTRIBUTION_WALLET when one is missing. */
export function payoutWalletsOf(
  deps: Pick<Deps, 'stellar'>,
  duties: Record<TreasuryDuty, WalletRecord | undefined>,
  network: NetworkName,
): PayoutWallets {
  const { distribution, funding, gas } = duties;
  if (!distribution || !funding || !gas) {
    throw new AppError('DISTRIBUTION_NO_DISTRIBUTION_WALLET', {
      message: 'The app has no distribution wallet on this network',
    });
  }
  return { distribution, funding, gas, gw: gatewayFor(deps, network) };
}

/**
 * A payout transaction that failed in its ledger (nothing moved but the fee), in the app's transactions with the fee
 * the gas wallet was charged and in the distribution wallet's history; nothing when its hash is recorded already.
 * Written by the batch that sent it, or by the claim recovery pass when that batch's process died.
 */
export async function recordFailedPayout(
  deps: Pick<Deps, 'db' | 'clock'>,
  input: {
    distribution: WalletRecord;
    network: NetworkName;
    sent: PayoutTransaction;
    details: TransactionDetails | undefined;
    resultCode: string;
  },
): Promise<void> {
  const { sent, details, distribution } = input;
  const at = deps.clock.now();
  await deps.db.transaction((trx) =>
    insertTransaction(
      trx,
      {
        appId: distribution.appId,
        network: input.network,
        walletId: distribution.id,
        userId: null,
        origin: 'distribution',
        status: 'FAILED',
        stage: 'failed',
        operation: 'payment',
        opsCount: sent.opsCount,
        summary: 'Distribution payment failed',
        sourceAccount: sent.sourceAccount,
        destination: null,
        asset: null,
        amount: null,
        hash: sent.hash,
        innerHash: sent.innerHash,
        envelopeXdr: sent.envelopeXdr,
        feeStroops: details?.feeChargedStroops ?? sent.feeStroops,
        feeSource: sent.feeSource,
        resultCode: input.resultCode,
        ...(details ? { ledger: details.ledger } : {}),
        validUntil: sent.validUntil,
        submittedAt: at,
        confirmedAt: at,
        at,
      },
      [{ walletId: distribution.id, direction: 'sent', summary: 'Distribution payment failed' }],
    ),
  );
}

function transactionOf(bump: FeeBumpTransaction, validUntil: Date): PayoutTransaction {
  const inner = bump.innerTransaction;
  return {
    hash: transactionHashHex(bump),
    innerHash: transactionHashHex(inner),
    envelopeXdr: bump.toXDR(),
    sourceAccount: inner.source,
    feeSource: bump.feeSource,
    feeStroops: BigInt(bump.fee),
    opsCount: inner.operations.length,
    validUntil,
  };
}
