// Surge pricing, as stellar-core's transaction queue and tx set builder do it: a full queue refuses a bid that does
// not beat its lowest rates (txINSUFFICIENT_FEE with the fee that would), a better bid evicts them (banned for a
// while), sets are built by fee rate and, when surge priced, charge every transaction the lowest bid they hold.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Asset, type FeeBumpTransaction, type Keypair, Operation, type Transaction, xdr } from '@stellar/stellar-sdk';
import { TX } from './codes';
import { Harness, decodeResult } from './testkit';
import { BAN_LEDGERS, PENDING_DEPTH } from './txQueue';

const native = Asset.native();

/** A one-operation payment to root at `fee` stroops per operation, `ops` operations. */
function pay(h: Harness, from: Keypair, fee = 100, ops = 1, seq?: bigint): Transaction {
  const op = Operation.payment({ destination: h.root.publicKey(), asset: native, amount: '1' });
  return h.build(
    from,
    Array.from({ length: ops }, () => op),
    { fee, ...(seq !== undefined ? { seq } : {}) },
  );
}

function refusal(h: Harness, tx: Transaction | FeeBumpTransaction): { code: number; feeCharged: bigint } {
  const sub = h.submit(tx);
  assert.equal(sub.status, 'ERROR', JSON.stringify(sub));
  const r = decodeResult(sub.errorResultXdr!);
  // Core's refusal is a bare txINSUFFICIENT_FEE result: no operation results, no inner pair.
  assert.deepEqual(r.ops, []);
  assert.equal(r.inner, undefined);
  return { code: r.tx, feeCharged: r.feeCharged };
}

const hashOf = (tx: Transaction | FeeBumpTransaction) => Buffer.from(tx.hash()).toString('hex');

/** A harness whose ledgers hold `maxTxSetSize` operations, with `n` funded accounts. */
function setUp(maxTxSetSize: number, n: number): { h: Harness; accounts: Keypair[] } {
  const h = new Harness({ maxTxSetSize });
  const accounts = Array.from({ length: n }, () => h.fund());
  return { h, accounts };
}

describe('a full queue', () => {
  test('refuses a bid that does not beat the lowest rate: txINSUFFICIENT_FEE naming the full fee that would', () => {
    const { h, accounts } = setUp(3, 8);
    const [e, f, ...full] = accounts;
    for (const k of full) assert.equal(h.submit(pay(h, k)).status, 'PENDING');
    // 6 operations queued = 2 ledgers' worth: full. An equal bid does not evict.
    assert.deepEqual(refusal(h, pay(h, e!)), { code: TX.INSUFFICIENT_FEE, feeCharged: 101n });
    // A 3-operation transaction must beat 100 per operation too: floor(100 x 3 / 1) + 1.
    assert.deepEqual(refusal(h, pay(h, f!, 100, 3)), { code: TX.INSUFFICIENT_FEE, feeCharged: 301n });
    // A fee-bump counts its inner operations + 1: 2 here, so 201 is the least outer fee that beats 100.
    const bump = h.feeBump(f!, pay(h, e!, 100, 1, h.seq(e!.publicKey()) + 1n), 100);
    assert.equal(bump.fee, '200');
    assert.deepEqual(refusal(h, bump), { code: TX.INSUFFICIENT_FEE, feeCharged: 201n });
    assert.equal(h.engine.pendingCount(), 6);
  });

  test('the refused envelope is banned (TRY_AGAIN_LATER); the fee it named gets a new one in, evicting the lowest', () => {
    const { h, accounts } = setUp(2, 6);
    const [a, b, c, d, e] = accounts as [Keypair, Keypair, Keypair, Keypair, Keypair];
    const queued = [a, b, c, d].map((k) => pay(h, k));
    for (const tx of queued) assert.equal(h.submit(tx).status, 'PENDING');
    const low = pay(h, e);
    const { feeCharged } = refusal(h, low);
    assert.equal(h.submit(low).status, 'TRY_AGAIN_LATER');
    // Same account, same sequence number, the named fee: a different envelope, accepted.
    const better = pay(h, e, Number(feeCharged));
    assert.equal(h.submit(better).status, 'PENDING');
    assert.equal(h.engine.pendingCount(), 4);
    // The lowest rate is 100 (a, b, c, d): the latest of them to arrive (d) is the one evicted, and banned.
    assert.equal(h.submit(queued[3]!).status, 'TRY_AGAIN_LATER');
    // Until the next close a newcomer must beat the evicted rate too; 101 does.
    const [, , , , , f] = accounts;
    assert.deepEqual(refusal(h, pay(h, f!)), { code: TX.INSUFFICIENT_FEE, feeCharged: 101n });

    // The evicted transaction never reaches a ledger; the others do.
    const applied: string[] = [];
    while (h.engine.pendingCount() > 0) applied.push(...h.close().transactions.map((t) => t.hash));
    assert.ok(!applied.includes(hashOf(queued[3]!)));
    assert.deepEqual(new Set(applied), new Set([...queued.slice(0, 3), better].map(hashOf)));
  });

  test('a bid evicts as many of the lowest rates as it needs operations', () => {
    const { h, accounts } = setUp(2, 5);
    const [a, b, c, d, e] = accounts as [Keypair, Keypair, Keypair, Keypair, Keypair];
    const queued = [pay(h, a, 150), pay(h, b), pay(h, c), pay(h, d)];
    for (const tx of queued) assert.equal(h.submit(tx).status, 'PENDING');
    // 2 operations at 200: room for 2 means evicting two 100s, the latest arrivals first (d, then c).
    assert.equal(h.submit(pay(h, e, 200, 2)).status, 'PENDING');
    assert.equal(h.engine.pendingCount(), 3);
    assert.equal(h.submit(queued[3]!).status, 'TRY_AGAIN_LATER');
    assert.equal(h.submit(queued[2]!).status, 'TRY_AGAIN_LATER');
    assert.equal(h.submit(queued[1]!).status, 'DUPLICATE');
  });

  test('an evicted transaction stays banned for BAN_LEDGERS closes, then may come back', () => {
    const { h, accounts } = setUp(1, 3);
    const [a, b, c] = accounts as [Keypair, Keypair, Keypair];
    // Of equal rates the latest arrival is evicted first: the victim comes second.
    assert.equal(h.submit(pay(h, b)).status, 'PENDING');
    const victim = pay(h, a);
    assert.equal(h.submit(victim).status, 'PENDING');
    assert.equal(h.submit(pay(h, c, 500)).status, 'PENDING');
    for (let i = 0; i < BAN_LEDGERS - 1; i++) {
      h.close();
      assert.equal(h.submit(victim).status, 'TRY_AGAIN_LATER', `still banned after ${i + 1} closes`);
    }
    h.close();
    assert.equal(h.submit(victim).status, 'PENDING');
  });

  test(`a transaction left out of ${PENDING_DEPTH} sets in a row is dropped and banned`, () => {
    const { h, accounts } = setUp(1, 1 + PENDING_DEPTH);
    const [low, ...high] = accounts;
    const waiting = pay(h, low!);
    assert.equal(h.submit(waiting).status, 'PENDING');
    for (const k of high) {
      assert.equal(h.submit(pay(h, k, 300)).status, 'PENDING');
      const ledger = h.close();
      assert.deepEqual(
        ledger.transactions.map((t) => t.sourceAccount),
        [k.publicKey()],
      );
    }
    assert.equal(h.engine.pendingCount(), 0);
    assert.equal(h.submit(waiting).status, 'TRY_AGAIN_LATER');
  });
});

describe('transaction sets', () => {
  test('surge: the best rates first (ties by arrival), all charged the lowest rate included; the header keeps the base fee', () => {
    const { h, accounts } = setUp(3, 5);
    const [a, b, c, d, e] = accounts as [Keypair, Keypair, Keypair, Keypair, Keypair];
    const bids: [Keypair, number][] = [
      [a, 100],
      [b, 300],
      [c, 200],
      [d, 500],
      [e, 200],
    ];
    const txs = bids.map(([k, fee]) => pay(h, k, fee));
    for (const tx of txs) assert.equal(h.submit(tx).status, 'PENDING');
    const balances = accounts.map((k) => h.balance(k.publicKey()));

    const surged = h.close();
    assert.deepEqual(
      surged.transactions.map((t) => t.sourceAccount),
      [d, b, c].map((k) => k.publicKey()),
    );
    // Every one pays 200 (c's bid, the lowest that made it in), never more than its own bid.
    assert.deepEqual(
      surged.transactions.map((t) => t.feeCharged),
      [200n, 200n, 200n],
    );
    assert.equal(h.balance(d.publicKey()), balances[3]! - 10_000_000n - 200n);
    const meta = xdr.LedgerCloseMeta.fromXdr(surged.metadataXdr, 'base64');
    assert.ok(meta.type === 'v2');
    assert.equal(meta.v2.ledgerHeader.header.baseFee, 100);
    const phase = meta.v2.txSet.v1TxSet.phases[0]!;
    assert.ok(phase.type === 'v0Components');
    assert.equal(phase.v0Components.length, 1);
    assert.equal(phase.v0Components[0]!.txsMaybeDiscountedFee.baseFee, 200n);
    assert.equal(phase.v0Components[0]!.txsMaybeDiscountedFee.txs.length, 3);

    // What was left fits the next ledger: no surge, arrival order, the base fee.
    const calm = h.close();
    assert.deepEqual(
      calm.transactions.map((t) => [t.sourceAccount, t.feeCharged]),
      [
        [a.publicKey(), 100n],
        [e.publicKey(), 100n],
      ],
    );
    const calmMeta = xdr.LedgerCloseMeta.fromXdr(calm.metadataXdr, 'base64');
    assert.ok(calmMeta.type === 'v2');
    const calmPhase = calmMeta.v2.txSet.v1TxSet.phases[0]!;
    assert.ok(calmPhase.type === 'v0Components');
    assert.equal(calmPhase.v0Components[0]!.txsMaybeDiscountedFee.baseFee, 100n);
  });

  test('surge: a cheaper transaction fills the gap a bigger one leaves; a fee-bump pays the rate x (inner ops + 1)', () => {
    const { h, accounts } = setUp(4, 4);
    const [a, b, c, payer] = accounts as [Keypair, Keypair, Keypair, Keypair];
    // a: 2 operations at 400; b: 3 at 300; c fee-bumped by payer: 1 inner operation, outer fee 2 x 250.
    assert.equal(h.submit(pay(h, a, 400, 2)).status, 'PENDING');
    assert.equal(h.submit(pay(h, b, 300, 3)).status, 'PENDING');
    const bumped = h.feeBump(payer, pay(h, c), 250);
    assert.equal(h.submit(bumped).status, 'PENDING');
    const payerBefore = h.balance(payer.publicKey());
    // 7 operations for a ledger of 4: a (2) goes in, b (3) does not fit what is left, the fee-bump (2) does.
    const ledger = h.close();
    assert.deepEqual(
      ledger.transactions.map((t) => [t.hash, t.feeCharged]),
      [
        [ledger.transactions[0]!.hash, 500n],
        [hashOf(bumped), 500n],
      ],
    );
    assert.equal(ledger.transactions[0]!.sourceAccount, a.publicKey());
    assert.equal(h.balance(payer.publicKey()), payerBefore - 500n);
    // b alone fits the next ledger: no surge, the base fee.
    assert.deepEqual(
      h.close().transactions.map((t) => [t.sourceAccount, t.feeCharged]),
      [[b.publicKey(), 300n]],
    );
  });

  test('one account never gets a later sequence number in ahead of its queued one, whatever it bids', () => {
    const { h, accounts } = setUp(1, 2);
    const [a, b] = accounts as [Keypair, Keypair];
    const seq = h.seq(a.publicKey());
    const first = pay(h, a, 100, 1, seq + 1n);
    assert.equal(h.submit(first).status, 'PENDING');
    assert.equal(h.submit(pay(h, b, 300)).status, 'PENDING');
    // b outbids a: a's first transaction waits.
    assert.deepEqual(
      h.close().transactions.map((t) => t.sourceAccount),
      [b.publicKey()],
    );
    // a's next sequence number, however well paid, is refused while its first waits.
    assert.equal(h.submit(pay(h, a, 10_000, 1, seq + 2n)).status, 'TRY_AGAIN_LATER');
    assert.deepEqual(
      h.close().transactions.map((t) => t.hash),
      [hashOf(first)],
    );
    assert.equal(h.submit(pay(h, a, 100, 1, seq + 2n)).status, 'PENDING');
    assert.equal(h.close().transactions.length, 1);
    assert.equal(h.seq(a.publicKey()), seq + 2n);
  });

  test('without surge, mixed bids keep arrival order and pay the base fee', () => {
    const { h, accounts } = setUp(1000, 3);
    const [a, b, c] = accounts as [Keypair, Keypair, Keypair];
    for (const [k, fee] of [
      [a, 100],
      [b, 5000],
      [c, 300],
    ] as const)
      assert.equal(h.submit(pay(h, k, fee)).status, 'PENDING');
    assert.deepEqual(
      h.close().transactions.map((t) => [t.sourceAccount, t.feeCharged]),
      [a, b, c].map((k) => [k.publicKey(), 100n]),
    );
  });
});
