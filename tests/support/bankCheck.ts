// The bank check of the fault tests (issue 22): after a crash, a restart or an outage, and once everything has
// settled, the service's records and the chain agree for one app, entry by entry:
//   - every user wallet is funded once: a funded wallet's account exists, sponsored by the funding wallet its
//     activation names, and it was created in the ledger the activation records; a wallet not funded has no account;
//   - the reserves the funding wallet locks are the entries it sponsors: its numSponsoring equals the sum of the
//     app's wallets' numSponsored and its channel accounts', and each activation's recorded reserve is what its
//     entries lock;
//   - every recorded fee is what the chain charged its fee source: each applied record's fee and fee payer match the
//     ledger's; a record refused before any ledger is in none;
//   - nothing was submitted behind the service's back: every transaction the chain applied from a wallet's account
//     (read back with getTransactions) is one of its applied records, and the account's sequence number is the last
//     one's (its creation ledger << 32 when none: a built transaction may step over a number that never landed);
//   - no event was lost: one wallet.activated per funded wallet, one stellar.tx per applied record (a distribution
//     payout's event is wallet.funded, one per user it paid);
//   - nothing is left in between: no activation or transaction still pending.
import assert from 'node:assert/strict';
import { FeeBumpTransaction, Keypair, TransactionBuilder } from '@stellar/stellar-sdk';
import type { Db } from '../../src/infra/db/database';
import type { StellarGateway } from '../../src/infra/stellar/gateway';
import { appWithWallet, createAccountWith, eventually, untilFunded } from './funding';
import type { TestService } from './service';
import { signInUser, type UserClient } from './users';

export interface BankCheckReport {
  walletsFunded: number;
  walletsUnfunded: number;
  transactionsApplied: number;
  transactionsRefused: number;
  feesStroops: bigint;
}

interface WalletRow {
  id: string;
  public_key: string;
  funding_state: string;
  custody: string;
}

export async function bankCheck(db: Db, chain: StellarGateway, appId: string): Promise<BankCheckReport> {
  const figures = await chain.ledgerFigures();
  const passphrase = chain.networkPassphrase;
  const wallets = await db('wallets')
    .where({ app_id: appId, network: 'testnet' })
    .whereNull('role')
    .select<WalletRow[]>('id', 'public_key', 'funding_state', 'custody');
  const activations = new Map(
    (await db('wallet_activations').where({ app_id: appId })).map((a: Record<string, unknown>) => [a.wallet_id, a]),
  );
  const accounts = new Map<string, Awaited<ReturnType<StellarGateway['loadAccount']>>>();
  for (let i = 0; i < wallets.length; i += 100) {
    const found = await chain.loadAccounts(wallets.slice(i, i + 100).map((w) => w.public_key));
    for (const w of wallets.slice(i, i + 100)) accounts.set(w.id, found.get(w.public_key));
  }
  const events = await db('outbox_events').where({ app_id: appId }).select('type', 'data');
  const activatedEvents = new Map<string, number>();
  const txEvents = new Map<string, number>();
  const fundedEvents = new Map<string, number>();
  const count = (m: Map<string, number>, key: string) => m.set(key, (m.get(key) ?? 0) + 1);
  for (const e of events as { type: string; data: { walletId?: string; hash?: string; txHash?: string } }[]) {
    if (e.type === 'wallet.activated') count(activatedEvents, e.data.walletId!);
    if (e.type === 'stellar.tx') count(txEvents, e.data.hash!);
    if (e.type === 'wallet.funded' && e.data.txHash) count(fundedEvents, e.data.txHash);
  }

  // 1. funded once, and the reserves
  let funded = 0;
  let sponsoredEntries = 0;
  const sponsors = new Set<string>();
  for (const w of wallets.filter((w) => w.custody !== 'external')) {
    const account = accounts.get(w.id);
    const activation = activations.get(w.id) as
      { ledger: number | null; sponsor_public_key: string | null; reserve_stroops: string | null } | undefined;
    if (w.funding_state !== 'funded') {
      assert.equal(account, undefined, `wallet ${w.id} is ${w.funding_state} but has an account on the chain`);
      continue;
    }
    funded++;
    assert.ok(account, `wallet ${w.id} is funded but has no account on the chain`);
    assert.ok(activation?.ledger, `wallet ${w.id} is funded without an applied activation`);
    assert.equal(account.sponsor, activation.sponsor_public_key, `wallet ${w.id}: the account's sponsor`);
    sponsors.add(activation.sponsor_public_key!);
    assert.ok(
      BigInt(activation.reserve_stroops!) <= BigInt(account.numSponsored) * figures.baseReserveStroops,
      `wallet ${w.id}: the recorded reserve ${activation.reserve_stroops} is more than its ${account.numSponsored} sponsored entries lock`,
    );
    sponsoredEntries += account.numSponsored;
    assert.equal(activatedEvents.get(w.id), 1, `wallet ${w.id}: one wallet.activated event`);
  }
  if (sponsors.size === 1) {
    const sponsorKey = [...sponsors][0]!;
    // The funding wallet also sponsors its channel accounts (transaction sources of its batches, 0 XLM of their own).
    const channels = (await db('funding_channels').where({ sponsor_public_key: sponsorKey }).select('public_key')).map(
      (c: { public_key: string }) => c.public_key,
    );
    for (const channel of (await chain.loadAccounts(channels)).values())
      if (channel?.sponsor === sponsorKey) sponsoredEntries += channel.numSponsored;
    const sponsor = (await chain.loadAccount(sponsorKey))!;
    assert.equal(
      sponsor.numSponsoring,
      sponsoredEntries,
      'the funding wallet sponsors exactly the wallets’ entries and its channel accounts’',
    );
  }

  // 2. fees, refusals, nothing in between
  const records = await db('transactions')
    .where({ app_id: appId, network: 'testnet' })
    .whereNot({ origin: 'activation' })
    .select(
      'id',
      'origin',
      'hash',
      'status',
      'stage',
      'ledger',
      'fee_stroops',
      'fee_source',
      'source_account',
      'wallet_id',
    );
  const pending = records.filter((r: { stage: string }) => r.stage === 'submitted');
  assert.deepEqual(
    pending.map((r: { id: string }) => r.id),
    [],
    'no transaction is still submitted',
  );
  let applied = 0;
  let refused = 0;
  let fees = 0n;
  for (const r of records as {
    id: string;
    origin: string;
    hash: string;
    status: string;
    stage: string;
    ledger: number | null;
    fee_stroops: string | null;
    fee_source: string | null;
    source_account: string;
  }[]) {
    if (r.stage !== 'confirmed' && r.stage !== 'failed') continue;
    const details = await chain.transactionDetails(r.hash);
    if (r.ledger === null) {
      refused++;
      assert.equal(details, undefined, `record ${r.id} was refused but its envelope is in a ledger`);
      continue;
    }
    applied++;
    assert.ok(details, `record ${r.id} says ledger ${r.ledger}; the chain has no such transaction`);
    assert.equal(details.ledger, r.ledger, `record ${r.id}: its ledger`);
    assert.equal(details.status, r.status, `record ${r.id}: its outcome`);
    assert.equal(
      details.feeChargedStroops,
      BigInt(r.fee_stroops!),
      `record ${r.id}: the fee recorded is the fee charged`,
    );
    const envelope = TransactionBuilder.fromXDR(details.envelopeXdr, passphrase);
    const payer = envelope instanceof FeeBumpTransaction ? envelope.feeSource : envelope.source;
    if (r.fee_source) assert.equal(payer, r.fee_source, `record ${r.id}: who paid the fee`);
    fees += details.feeChargedStroops;
    if (r.origin === 'distribution') {
      // A payout's event is wallet.funded, one per user paid in it (a batch pays several in one transaction).
      const received = await db('tx_history').where({ transaction_id: r.id, direction: 'received' }).count();
      assert.equal(fundedEvents.get(details.hash) ?? 0, Number(received[0]!.count), `payout ${r.id}: wallet.funded`);
    } else assert.equal(txEvents.get(details.hash), 1, `record ${r.id}: one stellar.tx event`);
  }

  // 3. nothing behind the service's back: every transaction the chain applied from a wallet's account, read back with
  // getTransactions from the first activation's ledger on, is one of the app's applied records; and the account's
  // sequence number is the last one's (a built transaction may step over a number that never landed: sequences.ts).
  const appliedHashes = new Set(
    (records as { hash: string; stage: string; ledger: number | null }[])
      .filter((r) => (r.stage === 'confirmed' || r.stage === 'failed') && r.ledger !== null)
      .map((r) => r.hash),
  );
  const walletByKey = new Map(wallets.map((w) => [w.public_key, w]));
  const lastSequence = new Map<string, bigint>();
  const activationLedgers = [...activations.values()]
    .map((a) => (a as { ledger: number | null }).ledger)
    .filter((l): l is number => l !== null);
  if (activationLedgers.length > 0) {
    const limit = 200;
    let page = await chain.transactionsFrom({ startLedger: Math.min(...activationLedgers), limit });
    for (;;) {
      for (const t of page.transactions) {
        const envelope = TransactionBuilder.fromXDR(t.envelopeXdr, passphrase);
        const inner = envelope instanceof FeeBumpTransaction ? envelope.innerTransaction : envelope;
        const w = walletByKey.get(inner.source);
        if (!w) continue;
        assert.ok(
          appliedHashes.has(t.hash),
          `wallet ${w.id}: transaction ${t.hash}, applied from its account in ledger ${t.ledger}, is not one of its applied records`,
        );
        lastSequence.set(w.id, BigInt(inner.sequence));
      }
      if (page.transactions.length < limit) break;
      page = await chain.transactionsFrom({ cursor: page.cursor, limit });
    }
  }
  for (const w of wallets) {
    const account = accounts.get(w.id);
    const activation = activations.get(w.id) as { ledger: number | null } | undefined;
    if (!account || !activation?.ledger) continue;
    const expected = lastSequence.get(w.id) ?? BigInt(activation.ledger) << 32n;
    assert.equal(
      BigInt(account.sequence),
      expected,
      `wallet ${w.id}: its sequence number is not its last applied transaction's`,
    );
  }
  return {
    walletsFunded: funded,
    walletsUnfunded: wallets.length - funded,
    transactionsApplied: applied,
    transactionsRefused: refused,
    feesStroops: fees,
  };
}

/** Waits until no transaction of the app is left submitted (the worker settles them), as the bank check requires. */
export async function untilSettled(db: Db, appId: string, timeoutMs = 30_000): Promise<void> {
  await eventually(
    'every transaction is settled',
    async () => Number((await db('transactions').where({ app_id: appId, stage: 'submitted' }).count())[0]!.count) === 0,
    timeoutMs,
  );
}

/** A runTransaction body paying `stroops` of XLM to `destination` (distinct amounts make distinct transactions). */
export function xlmPayment(destination: string, stroops: number) {
  return {
    operation: { type: 'payment', destination, asset: 'native', amount: `0.${String(stroops).padStart(7, '0')}` },
  };
}

/**
 * What the fault tests start from: an app that funds its users at sign-in with 5 XLM, `n` users signed in and funded,
 * and an account outside the service for them to pay. The chain's ledgers must be closing meanwhile.
 */
export async function payingUsers(
  svc: TestService,
  n: number,
): Promise<{ appId: string; users: UserClient[]; destination: string }> {
  const setup = await appWithWallet(svc, { settings: { fundingMode: 'immediate', startingBalanceXlm: '5' } });
  const users = await Promise.all(Array.from({ length: n }, () => signInUser(svc, setup.creds)));
  for (const u of users) await untilFunded(svc, u.signIn.wallet.walletId);
  const destination = Keypair.random().publicKey();
  await createAccountWith(svc, destination, '10');
  return { appId: setup.app.id, users, destination };
}
