// sendTransaction semantics: queue rules and validation in stellar-core's order, answered with real XDR.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { Asset, Keypair, Operation, TransactionBuilder, xdr } from '@stellar/stellar-sdk';
import { OP, PAYMENT, TX } from './codes';
import { EngineInputError } from './errors';
import { Harness, PASSPHRASE, XLM, decodeResult, inner, opLevel } from './testkit';

const pay = (to: Keypair, amount = '1', source?: string) =>
  Operation.payment({ destination: to.publicKey(), asset: Asset.native(), amount, ...(source ? { source } : {}) });

function errorOf(sub: ReturnType<Harness['submit']>) {
  assert.equal(sub.status, 'ERROR', JSON.stringify(sub));
  assert.ok(sub.errorResultXdr);
  return decodeResult(sub.errorResultXdr);
}

describe('queue rules', () => {
  test('the same transaction twice is DUPLICATE', () => {
    const h = new Harness();
    const tx = h.build(h.root, [pay(h.root)]);
    assert.equal(h.submit(tx).status, 'PENDING');
    const again = h.submit(tx);
    assert.equal(again.status, 'DUPLICATE');
    assert.equal(again.hash, Buffer.from(tx.hash()).toString('hex'));
    assert.equal(again.errorResultXdr, undefined);
  });

  test('a second transaction from a queued source gets TRY_AGAIN_LATER', () => {
    const h = new Harness();
    const a = h.fund();
    const first = h.build(a, [pay(h.root)]);
    assert.equal(h.submit(first).status, 'PENDING');
    const next = h.build(a, [pay(h.root)], { seq: h.seq(a.publicKey()) + 2n });
    assert.equal(h.submit(next).status, 'TRY_AGAIN_LATER');
    const sameSeqOther = h.build(a, [pay(h.root, '2')]);
    assert.equal(h.submit(sameSeqOther).status, 'TRY_AGAIN_LATER');
    // A different source is not affected.
    assert.equal(h.submit(h.build(h.root, [pay(a)])).status, 'PENDING');
    assert.equal(h.engine.pendingCount(), 2);
    const ledger = h.close();
    assert.equal(ledger.transactions.length, 2);
    assert.equal(h.engine.pendingCount(), 0);
  });

  test('a lower sequence number than the queued one is ERROR txBAD_SEQ (queue error: no fee)', () => {
    const h = new Harness();
    const a = h.fund();
    const current = h.seq(a.publicKey());
    assert.equal(h.submit(h.build(a, [pay(h.root)], { seq: current + 1n })).status, 'PENDING');
    const lower = errorOf(h.submit(h.build(a, [pay(h.root)], { seq: current })));
    assert.equal(lower.tx, TX.BAD_SEQ);
    assert.equal(lower.feeCharged, 0n);
  });

  test('an undecodable envelope is an EngineInputError', () => {
    const h = new Harness();
    assert.throws(() => h.engine.submit('not xdr'), EngineInputError);
    assert.throws(() => h.engine.submit(Buffer.from([0, 0, 0, 9]).toString('base64')), EngineInputError);
  });
});

describe('validation order and codes', () => {
  test('txBAD_SEQ when the sequence number is not account seq + 1; feeCharged = baseFee x ops', () => {
    const h = new Harness();
    const a = h.fund();
    const r = errorOf(h.submit(h.build(a, [pay(h.root), pay(h.root)], { seq: h.seq(a.publicKey()) + 2n })));
    assert.equal(r.tx, TX.BAD_SEQ);
    assert.equal(r.feeCharged, 200n);
    assert.deepEqual(r.ops, []);
  });

  test('a new account starts at ledgerSeq << 32', () => {
    const h = new Harness();
    const a = h.fund();
    assert.equal(h.seq(a.publicKey()), BigInt(h.engine.latestLedger().sequence) << 32n);
  });

  test('txBAD_AUTH when not signed by the source', () => {
    const h = new Harness();
    const a = h.fund();
    const r = errorOf(h.submit(h.build(a, [pay(h.root)], { signers: [Keypair.random()] })));
    assert.equal(r.tx, TX.BAD_AUTH);
  });

  test('txBAD_AUTH_EXTRA when an unneeded signature is attached', () => {
    const h = new Harness();
    const a = h.fund();
    const r = errorOf(h.submit(h.build(a, [pay(h.root)], { signers: [a, Keypair.random()] })));
    assert.equal(r.tx, TX.BAD_AUTH_EXTRA);
  });

  test('txINSUFFICIENT_FEE below baseFee x ops', () => {
    const h = new Harness();
    const r = errorOf(h.submit(h.build(h.root, [pay(h.root), pay(h.root)], { fee: 99 })));
    assert.equal(r.tx, TX.INSUFFICIENT_FEE);
    assert.equal(r.feeCharged, 200n);
  });

  test('txTOO_LATE for an expired transaction, or one that expires before the next close', () => {
    const h = new Harness();
    const expired = errorOf(
      h.submit(h.build(h.root, [pay(h.root)], { timeBounds: { minTime: 0, maxTime: h.now - 1 } })),
    );
    assert.equal(expired.tx, TX.TOO_LATE);
    const tooSoon = errorOf(
      h.submit(h.build(h.root, [pay(h.root)], { timeBounds: { minTime: 0, maxTime: h.now + 3 } })),
    );
    assert.equal(tooSoon.tx, TX.TOO_LATE);
    assert.equal(
      h.submit(h.build(h.root, [pay(h.root)], { timeBounds: { minTime: 0, maxTime: h.now + 60 } })).status,
      'PENDING',
    );
  });

  test('txTOO_EARLY when minTime is after the last close', () => {
    const h = new Harness();
    const r = errorOf(h.submit(h.build(h.root, [pay(h.root)], { timeBounds: { minTime: h.now + 100, maxTime: 0 } })));
    assert.equal(r.tx, TX.TOO_EARLY);
  });

  test('txNO_ACCOUNT for an unknown source', () => {
    const h = new Harness();
    const ghost = Keypair.random();
    const r = errorOf(h.submit(h.build(ghost, [pay(h.root)], { seq: 1n })));
    assert.equal(r.tx, TX.NO_ACCOUNT);
  });

  test('txINSUFFICIENT_BALANCE when the fee would dip into the reserve', () => {
    const h = new Harness();
    const a = h.fund(1n); // exactly the 2 x 0.5 XLM minimum
    const r = errorOf(h.submit(h.build(a, [pay(h.root)])));
    assert.equal(r.tx, TX.INSUFFICIENT_BALANCE);
  });

  test('txMISSING_OPERATION for an envelope without operations', () => {
    const h = new Harness();
    const tx = h.build(h.root, [pay(h.root)]);
    const wire = xdr.TransactionEnvelope.schema.decode(new Uint8Array(Buffer.from(tx.toXDR(), 'base64')));
    assert.equal(wire.type, 2);
    if (wire.type !== 2) return;
    wire.v1.tx.operations = [];
    wire.v1.signatures = [];
    const unsigned = TransactionBuilder.fromXDR(
      Buffer.from(xdr.TransactionEnvelope.schema.encode(wire)).toString('base64'),
      PASSPHRASE,
    );
    unsigned.sign(h.root);
    const r = errorOf(h.submit(unsigned));
    assert.equal(r.tx, TX.MISSING_OPERATION);
  });

  test('unmodelled operations are opNOT_SUPPORTED inside txFAILED, at submission', () => {
    const h = new Harness();
    const issuer = h.fund();
    const offer = Operation.manageSellOffer({
      selling: Asset.native(),
      buying: new Asset('USD', issuer.publicKey()),
      amount: '1',
      price: '1',
    });
    const r = errorOf(h.submit(h.build(h.root, [pay(issuer), offer])));
    assert.equal(r.tx, TX.FAILED);
    assert.deepEqual(r.ops, [inner(PAYMENT.SUCCESS), opLevel(OP.NOT_SUPPORTED)]);
  });

  test('a malformed operation fails the transaction at submission; later operations keep default results', () => {
    const h = new Harness();
    const zeroPayment = xdr.Operation.fromXdrObject({
      sourceAccount: null,
      body: {
        type: 1,
        paymentOp: { destination: { type: 0, ed25519: h.root.rawPublicKey() }, asset: { type: 0 }, amount: 0n },
      },
    });
    const r = errorOf(h.submit(h.build(h.root, [zeroPayment, pay(h.root)])));
    assert.equal(r.tx, TX.FAILED);
    assert.deepEqual(r.ops, [inner(PAYMENT.MALFORMED), inner(PAYMENT.SUCCESS)]);
  });

  test('an operation whose source did not sign is opBAD_AUTH', () => {
    const h = new Harness();
    const a = h.fund();
    const r = errorOf(h.submit(h.build(h.root, [pay(h.root, '1', a.publicKey())])));
    assert.equal(r.tx, TX.FAILED);
    assert.deepEqual(r.ops, [opLevel(OP.BAD_AUTH)]);
  });

  test('check order: txBAD_SEQ is reported before txBAD_AUTH', () => {
    const h = new Harness();
    const a = h.fund();
    const r = errorOf(h.submit(h.build(a, [pay(h.root)], { seq: 5n, signers: [Keypair.random()] })));
    assert.equal(r.tx, TX.BAD_SEQ);
  });

  test('multisig: the LOW threshold decides the transaction, MEDIUM the payment', () => {
    const h = new Harness();
    const a = h.fund();
    const cosigner = Keypair.random();
    const setup = h.run(a, [
      Operation.setOptions({
        signer: { ed25519PublicKey: cosigner.publicKey(), weight: 1 },
        lowThreshold: 1,
        medThreshold: 2,
        highThreshold: 2,
      }),
    ]);
    assert.equal(setup.successful, true);
    const alone = errorOf(h.submit(h.build(a, [pay(h.root)])));
    assert.equal(alone.tx, TX.FAILED);
    assert.deepEqual(alone.ops, [opLevel(OP.BAD_AUTH)]);
    const both = h.run(a, [pay(h.root)], { signers: [a, cosigner] });
    assert.equal(both.successful, true);
  });
});

describe('signer kinds', () => {
  test('hash(x) signer: revealing x authorises the transaction', () => {
    const h = new Harness();
    const a = h.fund();
    const x = Buffer.from('correct horse battery staple');
    const hashX = createHash('sha256').update(x).digest();
    assert.equal(h.run(a, [Operation.setOptions({ signer: { sha256Hash: hashX, weight: 1 } })]).successful, true);
    const tx = h.build(a, [pay(h.root)], { signers: [] });
    tx.signHashX(x);
    assert.equal(h.apply(tx).successful, true);
    const wrong = h.build(a, [pay(h.root)], { signers: [] });
    wrong.signHashX(Buffer.from('nope'));
    assert.equal(errorOf(h.submit(wrong)).tx, TX.BAD_AUTH);
  });

  test('pre-authorised transaction: needs no signature, and its signer is removed once used', () => {
    const h = new Harness();
    const a = h.fund();
    const later = h.build(a, [pay(h.root)], { seq: h.seq(a.publicKey()) + 2n, signers: [] });
    assert.equal(h.run(a, [Operation.setOptions({ signer: { preAuthTx: later.hash(), weight: 1 } })]).successful, true);
    assert.equal(h.account(a.publicKey())?.numSubEntries, 1);
    assert.equal(h.apply(later).successful, true);
    const acc = h.account(a.publicKey());
    assert.equal(acc?.signers.length, 0);
    assert.equal(acc?.numSubEntries, 0);
  });

  test('an operation source merged away earlier in the transaction is opNO_ACCOUNT at apply', () => {
    const h = new Harness();
    const a = h.fund();
    h.close();
    const r = h.run(
      h.root,
      [
        Operation.accountMerge({ destination: h.root.publicKey(), source: a.publicKey() }),
        pay(h.root, '1', a.publicKey()),
      ],
      {
        signers: [h.root, a],
      },
    );
    assert.equal(r.decoded.tx, TX.FAILED);
    assert.deepEqual(r.decoded.ops, [inner(0), opLevel(OP.NO_ACCOUNT)]);
    assert.ok(h.account(a.publicKey()), 'the merge was rolled back');
  });
});

describe('fee-bumps', () => {
  test('success: the fee source pays, the inner source consumes its sequence number', () => {
    const h = new Harness();
    const payer = h.fund();
    const user = h.fund(1n); // cannot pay any fee itself
    const innerTx = h.build(user, [Operation.bumpSequence({ bumpTo: '0' })]);
    const fb = h.feeBump(payer, innerTx);
    const payerBefore = h.balance(payer.publicKey());
    const seqBefore = h.seq(user.publicKey());
    const applied = h.apply(fb);
    assert.equal(applied.feeBump, true);
    assert.equal(applied.innerHash, Buffer.from(innerTx.hash()).toString('hex'));
    assert.equal(applied.hash, Buffer.from(fb.hash()).toString('hex'));
    assert.equal(applied.decoded.tx, TX.FEE_BUMP_INNER_SUCCESS);
    assert.equal(applied.decoded.inner, TX.SUCCESS);
    assert.equal(applied.decoded.feeCharged, 200n); // baseFee x (1 op + 1)
    assert.equal(applied.feeCharged, 200n);
    assert.equal(h.balance(payer.publicKey()), payerBefore - 200n);
    assert.equal(h.balance(user.publicKey()), XLM);
    assert.equal(h.seq(user.publicKey()), seqBefore + 1n);
  });

  test('inner failure at apply: txFEE_BUMP_INNER_FAILED with the inner txFAILED and op codes', () => {
    const h = new Harness();
    const payer = h.fund();
    const user = h.fund(2n);
    const fb = h.feeBump(payer, h.build(user, [pay(h.root, '5')]));
    const applied = h.apply(fb);
    assert.equal(applied.successful, false);
    assert.equal(applied.decoded.tx, TX.FEE_BUMP_INNER_FAILED);
    assert.equal(applied.decoded.inner, TX.FAILED);
    assert.deepEqual(applied.decoded.ops, [inner(PAYMENT.UNDERFUNDED)]);
    assert.equal(applied.decoded.feeCharged, 200n);
  });

  test('inner errors at submission come back as txFEE_BUMP_INNER_FAILED', () => {
    const h = new Harness();
    const payer = h.fund();
    const user = h.fund();
    const badSeq = h.build(user, [pay(h.root)], { seq: 3n });
    const r = errorOf(h.submit(h.feeBump(payer, badSeq)));
    assert.equal(r.tx, TX.FEE_BUMP_INNER_FAILED);
    assert.equal(r.inner, TX.BAD_SEQ);
    assert.equal(r.feeCharged, 200n);
  });

  test('outer errors: fee too low, bad fee-source signature, unknown fee source', () => {
    const h = new Harness();
    const payer = h.fund();
    const user = h.fund();
    const innerTx = h.build(user, [pay(h.root)], { fee: 300 });
    // An outer fee of 400 covers 2 x baseFee but does not raise the inner rate of 300 per operation (the SDK
    // refuses to build this, so the envelope is assembled by hand).
    const wire: xdr.TransactionEnvelopeWire = {
      type: 5,
      feeBump: {
        tx: {
          feeSource: { type: 0, ed25519: payer.rawPublicKey() },
          fee: 400n,
          innerTx: {
            type: 2,
            v1: (
              xdr.TransactionEnvelope.schema.decode(new Uint8Array(innerTx.toEnvelope().toXdr())) as {
                v1: xdr.TransactionV1EnvelopeWire;
              }
            ).v1,
          },
          ext: { v: 0 },
        },
        signatures: [],
      },
    };
    const lowFb = TransactionBuilder.fromXDR(
      Buffer.from(xdr.TransactionEnvelope.schema.encode(wire)).toString('base64'),
      PASSPHRASE,
    );
    lowFb.sign(payer);
    const low = errorOf(h.submit(lowFb));
    assert.equal(low.tx, TX.INSUFFICIENT_FEE);
    assert.equal(low.feeCharged, 600n);
    const badAuth = errorOf(h.submit(h.feeBump(payer, innerTx, 400, [Keypair.random()])));
    assert.equal(badAuth.tx, TX.BAD_AUTH);
    assert.equal(badAuth.inner, undefined);
    const ghost = Keypair.random();
    const noAccount = errorOf(h.submit(h.feeBump(ghost, innerTx, 400)));
    assert.equal(noAccount.tx, TX.NO_ACCOUNT);
  });

  test('a fee-bump may replace a queued transaction when it pays 10x; otherwise txINSUFFICIENT_FEE', () => {
    const h = new Harness();
    const payer = h.fund();
    const user = h.fund();
    const innerTx = h.build(user, [pay(h.root)]);
    assert.equal(h.submit(innerTx).status, 'PENDING');
    const cheap = errorOf(h.submit(h.feeBump(payer, innerTx, 200)));
    assert.equal(cheap.tx, TX.INSUFFICIENT_FEE);
    assert.equal(cheap.feeCharged, 2000n); // 10 x 100 per op, x 2 ops
    const rich = h.feeBump(payer, innerTx, 1000);
    const sub = h.submit(rich);
    assert.equal(sub.status, 'PENDING');
    // The bare inner transaction is now a duplicate of the queued fee-bump.
    assert.equal(h.submit(innerTx).status, 'DUPLICATE');
    const ledger = h.close();
    assert.deepEqual(
      ledger.transactions.map((t) => t.hash),
      [sub.hash],
    );
  });

  test('one fee account can pay for many fee-bumps in the same ledger', () => {
    const h = new Harness();
    const payer = h.fund();
    const users = [h.fund(), h.fund(), h.fund()];
    for (const u of users) assert.equal(h.submit(h.feeBump(payer, h.build(u, [pay(h.root)]))).status, 'PENDING');
    const ledger = h.close();
    assert.equal(ledger.transactions.length, 3);
    assert.ok(ledger.transactions.every((t) => t.successful));
  });
});
