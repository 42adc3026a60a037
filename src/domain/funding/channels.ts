// Channel accounts: transaction sources for activation batches, so that one funding wallet is not limited to one
// transaction per ledger (stellar-core queues one per source account). The funding wallet stays the sponsor and the
// payer of reserves and starting balances (operation source); a channel only provides the sequence number. The fee is
// the gas wallet's (every batch is wrapped in its fee-bump, and a fee-bump's inner source needs no balance), so a
// channel holds no XLM at all: each funding wallet gets ACTIVATION_CHANNELS of them, created together on first use
// with 0 XLM and their reserves sponsored by the funding wallet. An instance leases a channel (one conditional
// UPDATE ... SKIP LOCKED) for the time of one batch, so no two batches ever share a sequence number. Channel keys are
// derived from the service secret (HKDF, a purpose per funding wallet and position): nothing to store, the same on
// every instance of a deployment.
import {
  Account,
  Keypair,
  Operation,
  TransactionBuilder,
  type FeeBumpTransaction,
  type Transaction,
} from '@stellar/stellar-sdk';
import type { Knex } from 'knex';
import type { ServiceSecrets } from '../../infra/secrets/serviceSecret';
import { SYSTEM_ACTOR } from '../audit/auditLog';
import type { Deps } from '../deps';
import { sponsorFee } from '../transactions/feeBump';
import type { WalletRecord } from '../wallets/store';
import { TransactionRejectedError } from '../../infra/stellar/errors';
import type { StellarGateway } from '../../infra/stellar/gateway';
import { NativeKeypair } from '../../infra/stellar/nativeKeypair';

export function channelKeypair(secrets: ServiceSecrets, sponsorPublicKey: string, position: number): Keypair {
  // derive() keeps its keys (they are the service secret's), so the seed is not zeroed here.
  return NativeKeypair.fromSeed(secrets.derive(`funding-channel:${sponsorPublicKey}:${position}`));
}

/** Leases a free channel of the funding wallet until `leaseUntil`; undefined when all are busy. */
export async function leaseChannel(
  db: Knex,
  secrets: ServiceSecrets,
  input: { sponsorPublicKey: string; count: number; now: Date; leaseUntil: Date },
): Promise<{ position: number; keypair: Keypair } | undefined> {
  const rows = Array.from({ length: input.count }, (_, position) => ({
    sponsor_public_key: input.sponsorPublicKey,
    position,
    public_key: channelKeypair(secrets, input.sponsorPublicKey, position).publicKey(),
  }));
  await db('funding_channels').insert(rows).onConflict(['sponsor_public_key', 'position']).ignore();
  const leased = await db.transaction(async (trx) => {
    const free = await trx<{ sponsor_public_key: string; position: number; lease_until: Date | null }>(
      'funding_channels',
    )
      .where({ sponsor_public_key: input.sponsorPublicKey })
      .where('position', '<', input.count)
      .where((q) => q.whereNull('lease_until').orWhere('lease_until', '<=', input.now))
      .orderBy('position')
      .first('position')
      .forUpdate()
      .skipLocked();
    if (!free) return undefined;
    await trx('funding_channels')
      .where({ sponsor_public_key: input.sponsorPublicKey, position: free.position })
      .update({ lease_until: input.leaseUntil });
    return free.position;
  });
  return leased === undefined
    ? undefined
    : { position: leased, keypair: channelKeypair(secrets, input.sponsorPublicKey, leased) };
}

export async function releaseChannel(db: Knex, sponsorPublicKey: string, position: number): Promise<void> {
  await db('funding_channels').where({ sponsor_public_key: sponsorPublicKey, position }).update({ lease_until: null });
}

/** A transaction carries at most 20 signatures: the sponsor's and one per channel account it creates. */
const CHANNELS_PER_CREATION = 19;

/**
 * Creates the funding wallet's channel accounts that do not exist yet, from the funding wallet, up to 19 a
 * transaction (the 20-signature limit: each new account signs the end of its sponsorship): each with 0 XLM, its
 * reserve sponsored (1 XLM locked in the funding wallet). `seal` adds the funding wallet's signature and wraps the
 * transaction in the gas wallet's fee-bump. A concurrent creation by another instance is not an error: the accounts
 * are then there.
 */
export async function ensureChannelAccounts(
  gw: StellarGateway,
  secrets: ServiceSecrets,
  input: { sponsorPublicKey: string; count: number; seal: (tx: Transaction) => Promise<FeeBumpTransaction> },
): Promise<void> {
  const channels = Array.from({ length: input.count }, (_, i) => channelKeypair(secrets, input.sponsorPublicKey, i));
  const existing = await gw.loadAccounts(channels.map((c) => c.publicKey()));
  const missing = channels.filter((c) => !existing.has(c.publicKey()));
  for (let i = 0; i < missing.length; i += CHANNELS_PER_CREATION)
    await createChannelAccounts(gw, input, missing.slice(i, i + CHANNELS_PER_CREATION));
}

async function createChannelAccounts(
  gw: StellarGateway,
  input: { sponsorPublicKey: string; seal: (tx: Transaction) => Promise<FeeBumpTransaction> },
  missing: Keypair[],
): Promise<void> {
  const [figures, sponsor] = await Promise.all([gw.ledgerFigures(), gw.loadAccount(input.sponsorPublicKey)]);
  if (!sponsor) throw new Error(`the funding wallet ${input.sponsorPublicKey} does not exist on-chain`);
  const builder = new TransactionBuilder(new Account(input.sponsorPublicKey, sponsor.sequence), {
    fee: String(figures.baseFeeStroops),
    networkPassphrase: gw.networkPassphrase,
  });
  for (const channel of missing) {
    builder
      .addOperation(Operation.beginSponsoringFutureReserves({ sponsoredId: channel.publicKey() }))
      .addOperation(Operation.createAccount({ destination: channel.publicKey(), startingBalance: '0' }))
      .addOperation(Operation.endSponsoringFutureReserves({ source: channel.publicKey() }));
  }
  const tx = builder.setTimeout(60).build();
  tx.sign(...missing);
  const bump = await input.seal(tx);
  try {
    await gw.submitAndConfirm(bump);
  } catch (err) {
    if (!(err instanceof TransactionRejectedError)) throw err;
    // Another instance creating the same accounts from the same sponsor took its sequence number (tx_bad_seq) or got
    // there first (op_already_exists): its transaction may still wait for its ledger, so the accounts are given until
    // CHANNEL_CREATION_WAIT_MS to appear before this counts as a failure.
    const deadline = Date.now() + CHANNEL_CREATION_WAIT_MS;
    for (;;) {
      const now = await gw.loadAccounts(missing.map((c) => c.publicKey()));
      if (now.size === missing.length) return;
      if (Date.now() >= deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, CHANNEL_RETRY_MS * 5));
    }
  }
}

/** How long a creation refused because another instance's was first waits for that one's accounts to appear. */
const CHANNEL_CREATION_WAIT_MS = 15_000;

/** What a batch queue keeps per sending wallet: the creation of its channel accounts, started once. */
export interface ChannelHolder {
  channelsReady?: Promise<void>;
}

/**
 * A channel account of `owner` leased for one batch until `leaseUntil`, its channel accounts created first (once per
 * holder; `sign` adds the owner's signature to the creating transaction, which the gas wallet's fee-bump pays),
 * waiting up to CHANNEL_WAIT_MS for one to be free; undefined when none was: the owner itself is then the source.
 */
export async function leaseBatchChannel(
  deps: Pick<Deps, 'db' | 'kms' | 'clock' | 'secrets'>,
  holder: ChannelHolder,
  input: {
    owner: WalletRecord;
    gas: WalletRecord;
    gw: StellarGateway;
    count: number;
    leaseUntil: Date;
    sign: (tx: Transaction) => Promise<void>;
  },
): Promise<{ position: number; keypair: Keypair } | undefined> {
  const { owner, gas, gw, count } = input;
  holder.channelsReady ??= ensureChannelAccounts(gw, deps.secrets, {
    sponsorPublicKey: owner.publicKey,
    count,
    seal: async (tx) => {
      await input.sign(tx);
      return sponsorFee(deps, {
        gasWallet: gas,
        inner: tx,
        networkPassphrase: gw.networkPassphrase,
        actor: SYSTEM_ACTOR,
      });
    },
  }).catch((err: unknown) => {
    holder.channelsReady = undefined;
    throw err;
  });
  await holder.channelsReady;
  // All busy (batches of this or other instances): wait for one rather than use the owner as the source, which two
  // batches at once would both use with the same sequence number (tx_bad_seq for all but one).
  const deadline = Date.now() + CHANNEL_WAIT_MS;
  for (;;) {
    const leased = await leaseChannel(deps.db, deps.secrets, {
      sponsorPublicKey: owner.publicKey,
      count,
      now: deps.clock.now(),
      leaseUntil: input.leaseUntil,
    });
    if (leased || Date.now() >= deadline) return leased;
    await new Promise((resolve) => setTimeout(resolve, CHANNEL_RETRY_MS));
  }
}

/** How long a batch waits for a free channel account before its owner is the source after all. */
const CHANNEL_WAIT_MS = 10_000;
const CHANNEL_RETRY_MS = 100;
