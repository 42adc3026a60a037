// What the custodial signer signs: only the wallet's own transactions, never one that hands over the wallet; parsing
// a client's XDR; checking a signature.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  Account,
  Asset,
  Keypair,
  MuxedAccount,
  Networks,
  Operation,
  TransactionBuilder,
  xdr,
  type Transaction,
} from '@stellar/stellar-sdk';
import { AppError } from '../errors';
import { assertUserTransaction, isSignedBy, parseInnerTransaction } from './signable';

const walletKp = Keypair.random();
const wallet = walletKp.publicKey();
const other = Keypair.random().publicKey();
const funding = Keypair.random().publicKey();
const USDC = new Asset('USDC', Keypair.random().publicKey());

function txOf(ops: xdr.Operation[], source = wallet): Transaction {
  const builder = new TransactionBuilder(new Account(source, '100'), {
    fee: '100',
    networkPassphrase: Networks.TESTNET,
  }).setTimeout(60);
  for (const op of ops) builder.addOperation(op);
  return builder.build();
}

function rejects(fn: () => void, code: string, message: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof AppError, String(err));
    assert.equal(err.code, code);
    assert.match(err.message, message);
    return true;
  });
}

const pay = (opts: { source?: string } = {}) =>
  Operation.payment({ destination: other, asset: USDC, amount: '1', ...opts });

describe('assertUserTransaction: sources', () => {
  test("the wallet's own payment passes, with or without an explicit operation source", () => {
    assertUserTransaction(txOf([pay(), pay({ source: wallet })]), wallet);
  });

  test("another account as the transaction's source: 400 TX_INVALID_SIGNED_XDR", () => {
    rejects(
      () => assertUserTransaction(txOf([pay({ source: wallet })], other), wallet),
      'TX_INVALID_SIGNED_XDR',
      /source is not the session user's wallet/,
    );
  });

  test('another account as an operation source: 400, naming the operation', () => {
    rejects(
      () => assertUserTransaction(txOf([pay(), pay({ source: other })]), wallet),
      'TX_INVALID_SIGNED_XDR',
      /Operation 2 \(payment\) has the source/,
    );
  });

  test('a muxed address of the wallet is the wallet', () => {
    const muxed = new MuxedAccount(new Account(wallet, '100'), '5');
    const tx = new TransactionBuilder(muxed, { fee: '100', networkPassphrase: Networks.TESTNET })
      .addOperation(pay({ source: muxed.accountId() }))
      .setTimeout(60)
      .build();
    assertUserTransaction(TransactionBuilder.fromXDR(tx.toXDR(), Networks.TESTNET) as Transaction, wallet);
  });

  const sandwich = (sponsorOps: xdr.Operation[] = []) =>
    txOf([
      Operation.beginSponsoringFutureReserves({ sponsoredId: wallet, source: funding }),
      Operation.changeTrust({ asset: USDC }),
      Operation.endSponsoringFutureReserves({}),
      ...sponsorOps,
    ]);

  test("a sponsored trustline: the funding wallet's begin passes only when the funding wallet is an allowed cosigner", () => {
    assertUserTransaction(sandwich(), wallet, { allowedCosigners: [funding] });
    rejects(
      () => assertUserTransaction(sandwich(), wallet),
      'TX_INVALID_SIGNED_XDR',
      /Operation 1 \(beginSponsoringFutureReserves\) has the source/,
    );
  });

  test('an allowed cosigner may not be the source of anything but sponsoring the wallet', () => {
    rejects(
      () => assertUserTransaction(sandwich([pay({ source: funding })]), wallet, { allowedCosigners: [funding] }),
      'TX_INVALID_SIGNED_XDR',
      /Operation 4 \(payment\): the sponsoring account may only sponsor/,
    );
    const sponsorsAnother = txOf([
      Operation.beginSponsoringFutureReserves({ sponsoredId: other, source: funding }),
      Operation.endSponsoringFutureReserves({ source: other }),
    ]);
    rejects(
      () => assertUserTransaction(sponsorsAnother, wallet, { allowedCosigners: [funding, other] }),
      'TX_INVALID_SIGNED_XDR',
      /may only sponsor/,
    );
  });
});

describe('assertUserTransaction: operations', () => {
  test('setOptions changing signers, master weight or thresholds: 422 TX_UNSUPPORTED_OPERATION', () => {
    const cases: [xdr.Operation, RegExp][] = [
      [Operation.setOptions({ signer: { ed25519PublicKey: other, weight: 1 } }), /changing signers/],
      [Operation.setOptions({ signer: { ed25519PublicKey: other, weight: 0 } }), /changing signers/],
      [Operation.setOptions({ masterWeight: 0 }), /master key weight/],
      [Operation.setOptions({ lowThreshold: 1 }), /thresholds/],
      [Operation.setOptions({ medThreshold: 2 }), /thresholds/],
      [Operation.setOptions({ highThreshold: 3 }), /thresholds/],
    ];
    for (const [op, message] of cases)
      rejects(() => assertUserTransaction(txOf([pay(), op]), wallet), 'TX_UNSUPPORTED_OPERATION', message);
  });

  test('setOptions that leaves control alone passes (home domain)', () => {
    assertUserTransaction(txOf([Operation.setOptions({ homeDomain: 'example.com' })]), wallet);
  });

  test('bumpSequence and Soroban operations are never signed; accountMerge is left to the fee policy', () => {
    rejects(
      () => assertUserTransaction(txOf([Operation.bumpSequence({ bumpTo: '9223372036854775807' })]), wallet),
      'TX_UNSUPPORTED_OPERATION',
      /bumpSequence/,
    );
    rejects(
      () => assertUserTransaction(txOf([Operation.restoreFootprint({})]), wallet),
      'TX_UNSUPPORTED_OPERATION',
      /Soroban/,
    );
    assertUserTransaction(txOf([Operation.accountMerge({ destination: other })]), wallet);
  });

  test('a source problem is answered before an operation problem', () => {
    rejects(
      () => assertUserTransaction(txOf([Operation.setOptions({ masterWeight: 0, source: other })]), wallet),
      'TX_INVALID_SIGNED_XDR',
      /source/,
    );
  });
});

describe('parseInnerTransaction', () => {
  test('round-trips a transaction envelope', () => {
    const tx = txOf([pay()]);
    const parsed = parseInnerTransaction(tx.toXDR(), Networks.TESTNET);
    assert.equal(Buffer.from(parsed.hash()).toString('hex'), Buffer.from(tx.hash()).toString('hex'));
  });

  test('garbage, a truncated envelope and a fee-bump: 400 TX_INVALID_SIGNED_XDR with a reason', () => {
    rejects(
      () => parseInnerTransaction('not base64 at all!', Networks.TESTNET),
      'TX_INVALID_SIGNED_XDR',
      /not a Stellar transaction envelope/,
    );
    rejects(
      () => parseInnerTransaction(txOf([pay()]).toXDR().slice(0, 40), Networks.TESTNET),
      'TX_INVALID_SIGNED_XDR',
      /not a Stellar transaction envelope/,
    );
    const inner = txOf([pay()]);
    inner.sign(walletKp);
    const bump = TransactionBuilder.buildFeeBumpTransaction(Keypair.random(), '200', inner, Networks.TESTNET);
    rejects(() => parseInnerTransaction(bump.toXDR(), Networks.TESTNET), 'TX_INVALID_SIGNED_XDR', /fee-bump/);
  });

  test('a transaction without operations', () => {
    const tx = txOf([pay()]);
    const envelope = xdr.TransactionEnvelope.fromXdr(tx.toXDR(), 'base64');
    assert.equal(envelope.type, 'envelopeTypeTx');
    // The builder refuses to build one; the network would answer txMISSING_OPERATION.
    (envelope as unknown as { v1: { tx: { operations: unknown[] } } }).v1.tx.operations.length = 0;
    rejects(
      () => parseInnerTransaction(envelope.toXdr('base64'), Networks.TESTNET),
      'TX_INVALID_SIGNED_XDR',
      /no operations/,
    );
  });
});

describe('isSignedBy', () => {
  test("true only for the key's valid signature over this network's hash", () => {
    const tx = txOf([pay()]);
    assert.equal(isSignedBy(tx, wallet), false, 'unsigned');
    tx.sign(Keypair.random());
    assert.equal(isSignedBy(tx, wallet), false, "another key's signature");
    tx.sign(walletKp);
    assert.equal(isSignedBy(tx, wallet), true);
    assert.equal(isSignedBy(parseInnerTransaction(tx.toXDR(), Networks.TESTNET), wallet), true, 'kept through XDR');
    assert.equal(
      isSignedBy(parseInnerTransaction(tx.toXDR(), Networks.PUBLIC), wallet),
      false,
      'signed for another network',
    );
    assert.equal(isSignedBy(tx, 'GNOTAKEY'), false);
  });

  test('a signature with the right hint but over other bytes is not a signature', () => {
    const tx = txOf([pay()]);
    const forged = txOf([pay({ source: wallet })]);
    forged.sign(walletKp);
    tx.signatures.push(forged.signatures[0]!);
    assert.equal(isSignedBy(tx, wallet), false);
  });
});
