// Every modelled operation: success and each failure code, driven by SDK-built transactions.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Asset, Claimant, Keypair, Operation, xdr } from '@stellar/stellar-sdk';
import {
  ACCOUNT_MERGE,
  BUMP_SEQUENCE,
  CHANGE_TRUST,
  CREATE_ACCOUNT,
  INT64_MAX,
  MANAGE_DATA,
  OP,
  PATH_PAYMENT,
  PAYMENT,
  SET_OPTIONS,
  TRUSTLINE_FLAGS,
  TX,
} from './codes';
import { accountMerge } from './operations/accountMerge';
import { newAccountRecord } from './operations/common';
import { opResultInnerCode } from './results';
import { LedgerTxn, RootState, accountKey } from './state';
import { Harness, XLM, decodeResult, entryKey, inner, opLevel, rawEnvelope } from './testkit';
import { OperationEvents } from './unifiedEvents';

const native = Asset.native();

function submissionError(h: Harness, tx: Parameters<Harness['submit']>[0]) {
  const sub = h.submit(tx);
  assert.equal(sub.status, 'ERROR', JSON.stringify(sub));
  return decodeResult(sub.errorResultXdr as string);
}

function trustline(h: Harness, holder: Keypair, asset: Asset): xdr.TrustLineEntry | undefined {
  const key = entryKey({
    type: 1,
    trustLine: {
      accountId: { type: 0, ed25519: holder.rawPublicKey() },
      asset: asset.toTrustLineXdrObject().toXdrObject(),
    },
  });
  const entry = h.engine.getLedgerEntry(key);
  if (!entry) return undefined;
  return (xdr.LedgerEntryData.fromXdr(entry.xdr, 'base64') as xdr.LedgerEntryDataTrustline).trustLine;
}

/** An issuer, an asset, and a holder with a trust line to it. */
function issued(h: Harness, opts: { limit?: string } = {}) {
  const issuer = h.fund();
  const holder = h.fund();
  const asset = new Asset('USD', issuer.publicKey());
  assert.equal(
    h.run(holder, [Operation.changeTrust({ asset, ...(opts.limit ? { limit: opts.limit } : {}) })]).successful,
    true,
  );
  return { issuer, holder, asset };
}

describe('createAccount', () => {
  test('success: starting balance, seq = ledger << 32, thresholds [1,0,0,0]', () => {
    const h = new Harness();
    const a = Keypair.random();
    const r = h.run(h.root, [Operation.createAccount({ destination: a.publicKey(), startingBalance: '10' })]);
    assert.deepEqual(r.decoded.ops, [inner(CREATE_ACCOUNT.SUCCESS)]);
    const acc = h.account(a.publicKey());
    assert.ok(acc);
    assert.equal(acc.balance, 10n * XLM);
    assert.equal(acc.seqNum, BigInt(r.ledger) << 32n);
    assert.deepEqual([...acc.thresholds.toBytes()], [1, 0, 0, 0]);
  });

  test('ALREADY_EXIST, LOW_RESERVE, UNDERFUNDED at apply; MALFORMED at submission', () => {
    const h = new Harness();
    const a = h.fund(5n);
    const exists = h.run(h.root, [Operation.createAccount({ destination: a.publicKey(), startingBalance: '10' })]);
    assert.deepEqual(exists.decoded.ops, [inner(CREATE_ACCOUNT.ALREADY_EXIST)]);
    const low = h.run(h.root, [
      Operation.createAccount({ destination: Keypair.random().publicKey(), startingBalance: '0.9999999' }),
    ]);
    assert.deepEqual(low.decoded.ops, [inner(CREATE_ACCOUNT.LOW_RESERVE)]);
    const poor = h.run(a, [
      Operation.createAccount({ destination: Keypair.random().publicKey(), startingBalance: '4.5' }),
    ]);
    assert.deepEqual(poor.decoded.ops, [inner(CREATE_ACCOUNT.UNDERFUNDED)]);
    const self = submissionError(
      h,
      h.build(a, [Operation.createAccount({ destination: a.publicKey(), startingBalance: '1' })]),
    );
    assert.equal(self.tx, TX.FAILED);
    assert.deepEqual(self.ops, [inner(CREATE_ACCOUNT.MALFORMED)]);
  });
});

describe('payment', () => {
  test('native payment moves the amount; paying yourself XLM is a no-op success', () => {
    const h = new Harness();
    const a = h.fund(10n);
    const b = h.fund(10n);
    const r = h.run(a, [Operation.payment({ destination: b.publicKey(), asset: native, amount: '3' })]);
    assert.deepEqual(r.decoded.ops, [inner(PAYMENT.SUCCESS)]);
    assert.equal(h.balance(b.publicKey()), 13n * XLM);
    assert.equal(h.balance(a.publicKey()), 7n * XLM - 100n);
    const self = h.run(a, [Operation.payment({ destination: a.publicKey(), asset: native, amount: '1' })]);
    assert.equal(self.successful, true);
    assert.equal(h.balance(a.publicKey()), 7n * XLM - 200n);
  });

  test('issuing: the issuer mints by paying, holders pay each other, paying the issuer burns', () => {
    const h = new Harness();
    const { issuer, holder, asset } = issued(h);
    const other = h.fund();
    assert.equal(h.run(other, [Operation.changeTrust({ asset })]).successful, true);
    assert.equal(
      h.run(issuer, [Operation.payment({ destination: holder.publicKey(), asset, amount: '100' })]).successful,
      true,
    );
    assert.equal(trustline(h, holder, asset)?.balance, 100n * XLM);
    assert.equal(
      h.run(holder, [Operation.payment({ destination: other.publicKey(), asset, amount: '40' })]).successful,
      true,
    );
    assert.equal(trustline(h, other, asset)?.balance, 40n * XLM);
    assert.equal(
      h.run(holder, [Operation.payment({ destination: issuer.publicKey(), asset, amount: '60' })]).successful,
      true,
    );
    assert.equal(trustline(h, holder, asset)?.balance, 0n);
  });

  test('NO_DESTINATION is skipped when paying the issuer, even one that no longer exists', () => {
    const h = new Harness();
    const { issuer, holder, asset } = issued(h);
    h.run(issuer, [Operation.payment({ destination: holder.publicKey(), asset, amount: '5' })]);
    assert.equal(h.run(issuer, [Operation.accountMerge({ destination: h.root.publicKey() })]).successful, true);
    const back = h.run(holder, [Operation.payment({ destination: issuer.publicKey(), asset, amount: '5' })]);
    assert.deepEqual(back.decoded.ops, [inner(PAYMENT.SUCCESS)]);
    const nowhere = h.run(holder, [
      Operation.payment({ destination: Keypair.random().publicKey(), asset: native, amount: '1' }),
    ]);
    assert.deepEqual(nowhere.decoded.ops, [inner(PAYMENT.NO_DESTINATION)]);
  });

  test('NO_TRUST, LINE_FULL, UNDERFUNDED, SRC_NO_TRUST', () => {
    const h = new Harness();
    const { issuer, holder, asset } = issued(h, { limit: '10' });
    const stranger = h.fund();
    const noTrust = h.run(issuer, [Operation.payment({ destination: stranger.publicKey(), asset, amount: '1' })]);
    assert.deepEqual(noTrust.decoded.ops, [inner(PAYMENT.NO_TRUST)]);
    const full = h.run(issuer, [Operation.payment({ destination: holder.publicKey(), asset, amount: '11' })]);
    assert.deepEqual(full.decoded.ops, [inner(PAYMENT.LINE_FULL)]);
    const broke = h.run(holder, [Operation.payment({ destination: issuer.publicKey(), asset, amount: '1' })]);
    assert.deepEqual(broke.decoded.ops, [inner(PAYMENT.UNDERFUNDED)]);
    const nativeBroke = h.run(stranger, [
      Operation.payment({ destination: issuer.publicKey(), asset: native, amount: '999.5' }),
    ]);
    assert.deepEqual(nativeBroke.decoded.ops, [inner(PAYMENT.UNDERFUNDED)]);
    const srcNoTrust = h.run(stranger, [Operation.payment({ destination: holder.publicKey(), asset, amount: '1' })]);
    assert.deepEqual(srcNoTrust.decoded.ops, [inner(PAYMENT.SRC_NO_TRUST)]);
  });

  test('AUTH_REQUIRED issuer: new lines are not authorized (NOT_AUTHORIZED, SRC_NOT_AUTHORIZED)', () => {
    const h = new Harness();
    const issuer = h.fund();
    assert.equal(h.run(issuer, [Operation.setOptions({ setFlags: 1 })]).successful, true);
    const asset = new Asset('EUR', issuer.publicKey());
    const holder = h.fund();
    h.run(holder, [Operation.changeTrust({ asset })]);
    assert.equal(trustline(h, holder, asset)?.flags, 0);
    const toHolder = h.run(issuer, [Operation.payment({ destination: holder.publicKey(), asset, amount: '1' })]);
    assert.deepEqual(toHolder.decoded.ops, [inner(PAYMENT.NOT_AUTHORIZED)]);
    const fromHolder = h.run(holder, [Operation.payment({ destination: issuer.publicKey(), asset, amount: '1' })]);
    assert.deepEqual(fromHolder.decoded.ops, [inner(PAYMENT.SRC_NOT_AUTHORIZED)]);
  });

  test('MALFORMED (zero amount, invalid asset code) is rejected at submission', () => {
    const h = new Harness();
    const body = (asset: xdr.AssetWire, amount: bigint): xdr.Operation =>
      xdr.Operation.fromXdrObject({
        sourceAccount: null,
        body: { type: 1, paymentOp: { destination: { type: 0, ed25519: h.root.rawPublicKey() }, asset, amount } },
      });
    const zero = submissionError(h, h.build(h.root, [body({ type: 0 }, 0n)]));
    assert.deepEqual(zero.ops, [inner(PAYMENT.MALFORMED)]);
    // The SDK refuses to build an envelope with an invalid asset code, so this one is assembled by hand.
    const badCode = {
      type: 1 as const,
      alphaNum4: {
        assetCode: new Uint8Array([65, 0, 66, 0]),
        issuer: { type: 0 as const, ed25519: h.root.rawPublicKey() },
      },
    };
    const invalid = submissionError(h, rawEnvelope(h, h.root, [body(badCode, 1n).toXdrObject()]));
    assert.deepEqual(invalid.ops, [inner(PAYMENT.MALFORMED)]);
  });
});

describe('changeTrust', () => {
  test('create (authorized, one subentry), update the limit, remove with limit 0', () => {
    const h = new Harness();
    const { issuer, holder, asset } = issued(h);
    const line = trustline(h, holder, asset);
    assert.ok(line);
    assert.equal(line.flags, TRUSTLINE_FLAGS.AUTHORIZED);
    assert.equal(line.limit, INT64_MAX);
    assert.equal(h.account(holder.publicKey())?.numSubEntries, 1);
    h.run(issuer, [Operation.payment({ destination: holder.publicKey(), asset, amount: '5' })]);
    assert.equal(h.run(holder, [Operation.changeTrust({ asset, limit: '50' })]).successful, true);
    assert.equal(trustline(h, holder, asset)?.limit, 50n * XLM);
    const belowBalance = h.run(holder, [Operation.changeTrust({ asset, limit: '4' })]);
    assert.deepEqual(belowBalance.decoded.ops, [inner(CHANGE_TRUST.INVALID_LIMIT)]);
    const removeWhileHolding = h.run(holder, [Operation.changeTrust({ asset, limit: '0' })]);
    assert.deepEqual(removeWhileHolding.decoded.ops, [inner(CHANGE_TRUST.INVALID_LIMIT)]);
    h.run(holder, [Operation.payment({ destination: issuer.publicKey(), asset, amount: '5' })]);
    assert.equal(h.run(holder, [Operation.changeTrust({ asset, limit: '0' })]).successful, true);
    assert.equal(trustline(h, holder, asset), undefined);
    assert.equal(h.account(holder.publicKey())?.numSubEntries, 0);
  });

  test('INVALID_LIMIT (new line with 0), NO_ISSUER, LOW_RESERVE; MALFORMED at submission', () => {
    const h = new Harness();
    const issuer = h.fund();
    const asset = new Asset('USD', issuer.publicKey());
    const a = h.fund(2n);
    const zero = h.run(a, [Operation.changeTrust({ asset, limit: '0' })]);
    assert.deepEqual(zero.decoded.ops, [inner(CHANGE_TRUST.INVALID_LIMIT)]);
    const noIssuer = h.run(a, [Operation.changeTrust({ asset: new Asset('USD', Keypair.random().publicKey()) })]);
    assert.deepEqual(noIssuer.decoded.ops, [inner(CHANGE_TRUST.NO_ISSUER)]);
    const poor = h.fund(1n);
    h.run(h.root, [Operation.payment({ destination: poor.publicKey(), asset: native, amount: '0.4' })]);
    const low = h.run(poor, [Operation.changeTrust({ asset })]);
    assert.deepEqual(low.decoded.ops, [inner(CHANGE_TRUST.LOW_RESERVE)]);
    const self = submissionError(h, h.build(issuer, [Operation.changeTrust({ asset })]));
    assert.deepEqual(self.ops, [inner(CHANGE_TRUST.MALFORMED)]);
    const nativeLine = xdr.Operation.fromXdrObject({
      sourceAccount: null,
      body: { type: 6, changeTrustOp: { line: { type: 0 }, limit: 1n } },
    });
    assert.deepEqual(submissionError(h, h.build(a, [nativeLine])).ops, [inner(CHANGE_TRUST.MALFORMED)]);
  });
});

describe('manageData', () => {
  test('set, update, delete; NAME_NOT_FOUND; LOW_RESERVE; INVALID_NAME at submission', () => {
    const h = new Harness();
    const a = h.fund();
    const key = () =>
      entryKey({
        type: 3,
        data: { accountId: { type: 0, ed25519: a.rawPublicKey() }, dataName: new xdr.XdrString('k') },
      });
    assert.equal(h.run(a, [Operation.manageData({ name: 'k', value: 'v1' })]).successful, true);
    assert.equal(h.account(a.publicKey())?.numSubEntries, 1);
    assert.equal(h.run(a, [Operation.manageData({ name: 'k', value: 'v2' })]).successful, true);
    const entry = h.engine.getLedgerEntry(key());
    assert.ok(entry);
    const data = (xdr.LedgerEntryData.fromXdr(entry.xdr, 'base64') as xdr.LedgerEntryDataData).data;
    assert.equal(Buffer.from(data.dataValue.toBytes()).toString(), 'v2');
    assert.equal(h.run(a, [Operation.manageData({ name: 'k', value: null })]).successful, true);
    assert.equal(h.engine.getLedgerEntry(key()), undefined);
    assert.equal(h.account(a.publicKey())?.numSubEntries, 0);
    const missing = h.run(a, [Operation.manageData({ name: 'k', value: null })]);
    assert.deepEqual(missing.decoded.ops, [inner(MANAGE_DATA.NAME_NOT_FOUND)]);
    const poor = h.fund(1n);
    h.run(h.root, [Operation.payment({ destination: poor.publicKey(), asset: native, amount: '0.1' })]);
    assert.deepEqual(h.run(poor, [Operation.manageData({ name: 'x', value: 'y' })]).decoded.ops, [
      inner(MANAGE_DATA.LOW_RESERVE),
    ]);
    const badName = xdr.Operation.fromXdrObject({
      sourceAccount: null,
      body: {
        type: 10,
        manageDataOp: { dataName: new xdr.XdrString(new Uint8Array([0x41, 0x0a])), dataValue: new Uint8Array([1]) },
      },
    });
    assert.deepEqual(submissionError(h, h.build(a, [badName])).ops, [inner(MANAGE_DATA.INVALID_NAME)]);
  });
});

describe('setOptions', () => {
  test('signers (add, update, remove), master weight, thresholds, home domain, flags', () => {
    const h = new Harness();
    const a = h.fund();
    const s1 = Keypair.random();
    const r = h.run(a, [
      Operation.setOptions({ signer: { ed25519PublicKey: s1.publicKey(), weight: 2 } }),
      Operation.setOptions({
        masterWeight: 3,
        lowThreshold: 1,
        medThreshold: 2,
        highThreshold: 3,
        homeDomain: 'example.org',
        setFlags: 3,
      }),
    ]);
    assert.deepEqual(r.decoded.ops, [inner(SET_OPTIONS.SUCCESS), inner(SET_OPTIONS.SUCCESS)]);
    let acc = h.account(a.publicKey());
    assert.ok(acc);
    assert.equal(acc.signers.length, 1);
    assert.equal(acc.numSubEntries, 1);
    assert.deepEqual([...acc.thresholds.toBytes()], [3, 1, 2, 3]);
    assert.equal(acc.homeDomain.toString(), 'example.org');
    assert.equal(acc.flags, 3);
    assert.equal(
      h.run(a, [Operation.setOptions({ signer: { ed25519PublicKey: s1.publicKey(), weight: 5 } })]).successful,
      true,
    );
    assert.equal(h.account(a.publicKey())?.signers[0]?.weight, 5);
    assert.equal(
      h.run(a, [Operation.setOptions({ signer: { ed25519PublicKey: s1.publicKey(), weight: 0 } })]).successful,
      true,
    );
    acc = h.account(a.publicKey());
    assert.equal(acc?.signers.length, 0);
    assert.equal(acc?.numSubEntries, 0);
  });

  test('TOO_MANY_SIGNERS, LOW_RESERVE; BAD_SIGNER and THRESHOLD_OUT_OF_RANGE at submission', () => {
    const h = new Harness();
    const a = h.fund(100n);
    const twenty = Array.from({ length: 20 }, () =>
      Operation.setOptions({ signer: { ed25519PublicKey: Keypair.random().publicKey(), weight: 1 } }),
    );
    assert.equal(h.run(a, twenty).successful, true);
    const tooMany = h.run(a, [
      Operation.setOptions({ signer: { ed25519PublicKey: Keypair.random().publicKey(), weight: 1 } }),
    ]);
    assert.deepEqual(tooMany.decoded.ops, [inner(SET_OPTIONS.TOO_MANY_SIGNERS)]);
    const poor = h.fund(1n);
    h.run(h.root, [Operation.payment({ destination: poor.publicKey(), asset: native, amount: '0.1' })]);
    const low = h.run(poor, [
      Operation.setOptions({ signer: { ed25519PublicKey: Keypair.random().publicKey(), weight: 1 } }),
    ]);
    assert.deepEqual(low.decoded.ops, [inner(SET_OPTIONS.LOW_RESERVE)]);
    const self = submissionError(
      h,
      h.build(poor, [Operation.setOptions({ signer: { ed25519PublicKey: poor.publicKey(), weight: 1 } })]),
    );
    assert.deepEqual(self.ops, [inner(SET_OPTIONS.BAD_SIGNER)]);
    const outOfRange = xdr.Operation.fromXdrObject({
      sourceAccount: null,
      body: {
        type: 5,
        setOptionsOp: {
          inflationDest: null,
          clearFlags: null,
          setFlags: null,
          masterWeight: 256,
          lowThreshold: null,
          medThreshold: null,
          highThreshold: null,
          homeDomain: null,
          signer: null,
        },
      },
    });
    assert.deepEqual(submissionError(h, h.build(poor, [outOfRange])).ops, [inner(SET_OPTIONS.THRESHOLD_OUT_OF_RANGE)]);
  });
});

describe('bumpSequence', () => {
  test('bumps forward, ignores lower targets; BAD_SEQ for a negative target at submission', () => {
    const h = new Harness();
    const a = h.fund();
    const target = h.seq(a.publicKey()) + 100n;
    assert.equal(h.run(a, [Operation.bumpSequence({ bumpTo: target.toString() })]).successful, true);
    assert.equal(h.seq(a.publicKey()), target);
    assert.equal(h.run(a, [Operation.bumpSequence({ bumpTo: '1' })]).successful, true);
    assert.equal(h.seq(a.publicKey()), target + 1n);
    const negative = xdr.Operation.fromXdrObject({
      sourceAccount: null,
      body: { type: 11, bumpSequenceOp: { bumpTo: -1n } },
    });
    assert.deepEqual(submissionError(h, h.build(a, [negative])).ops, [inner(BUMP_SEQUENCE.BAD_SEQ)]);
  });
});

describe('accountMerge', () => {
  test('success moves the whole balance and deletes the account', () => {
    const h = new Harness();
    const a = h.fund(20n);
    // An account created in this ledger cannot merge yet (SEQNUM_TOO_FAR), one ledger later it can.
    h.close();
    const rootBefore = h.balance(h.root.publicKey());
    const r = h.run(a, [Operation.accountMerge({ destination: h.root.publicKey() })]);
    assert.deepEqual(r.decoded.ops, [inner(ACCOUNT_MERGE.SUCCESS)]);
    assert.equal(h.account(a.publicKey()), undefined);
    assert.equal(h.balance(h.root.publicKey()), rootBefore + 20n * XLM - 100n);
  });

  test('NO_ACCOUNT, HAS_SUB_ENTRIES, IMMUTABLE_SET, SEQNUM_TOO_FAR, IS_SPONSOR; MALFORMED at submission', () => {
    const h = new Harness();
    const a = h.fund();
    const noAccount = h.run(a, [Operation.accountMerge({ destination: Keypair.random().publicKey() })]);
    assert.deepEqual(noAccount.decoded.ops, [inner(ACCOUNT_MERGE.NO_ACCOUNT)]);
    h.run(a, [Operation.manageData({ name: 'n', value: 'v' })]);
    const sub = h.run(a, [Operation.accountMerge({ destination: h.root.publicKey() })]);
    assert.deepEqual(sub.decoded.ops, [inner(ACCOUNT_MERGE.HAS_SUB_ENTRIES)]);

    const locked = h.fund();
    h.run(locked, [Operation.setOptions({ setFlags: 4 })]);
    const immutable = h.run(locked, [Operation.accountMerge({ destination: h.root.publicKey() })]);
    assert.deepEqual(immutable.decoded.ops, [inner(ACCOUNT_MERGE.IMMUTABLE_SET)]);

    const jumper = h.fund();
    h.run(jumper, [
      Operation.bumpSequence({ bumpTo: ((BigInt(h.engine.latestLedger().sequence) + 100n) << 32n).toString() }),
    ]);
    const tooFar = h.run(jumper, [Operation.accountMerge({ destination: h.root.publicKey() })]);
    assert.deepEqual(tooFar.decoded.ops, [inner(ACCOUNT_MERGE.SEQNUM_TOO_FAR)]);

    const sponsor = h.fund();
    const sponsored = Keypair.random();
    h.run(
      sponsor,
      [
        Operation.beginSponsoringFutureReserves({ sponsoredId: sponsored.publicKey() }),
        Operation.createAccount({ destination: sponsored.publicKey(), startingBalance: '0' }),
        Operation.endSponsoringFutureReserves({ source: sponsored.publicKey() }),
      ],
      { signers: [sponsor, sponsored] },
    );
    h.close();
    const isSponsor = h.run(sponsor, [Operation.accountMerge({ destination: h.root.publicKey() })]);
    assert.deepEqual(isSponsor.decoded.ops, [inner(ACCOUNT_MERGE.IS_SPONSOR)]);

    const self = submissionError(h, h.build(a, [Operation.accountMerge({ destination: a.publicKey() })]));
    assert.deepEqual(self.ops, [inner(ACCOUNT_MERGE.MALFORMED)]);
  });

  test('DEST_FULL when the destination cannot hold the balance (unit level: no real account gets near INT64_MAX)', () => {
    const root = new RootState();
    const src = newAccountRecord('GAAZI4TCR3TY5OJHCTJC2A4QSY6CJWJH5IAJTGKIN2ER7LBNVKOCCWN7', 10n * XLM, 1n);
    const dest = newAccountRecord('GDW6AUTBXTOC7FIKUO5BOO3OGLK4SF7ZPOBLMQHMZDI45J2Z6VXRB5NR', INT64_MAX - 1n, 1n);
    root.put(accountKey(src.id), src);
    root.put(accountKey(dest.id), dest);
    const ltx = new LedgerTxn(root, 100);
    const header = { ledgerSeq: 100, closeTime: 0, baseFee: 100, baseReserve: 5_000_000n, protocolVersion: 23 };
    const result = accountMerge.apply(
      { type: 8, destination: { type: 0, ed25519: Keypair.fromPublicKey(dest.id).rawPublicKey() } },
      {
        ltx,
        header,
        source: src.id,
        sourceMuxed: { type: 0, ed25519: Keypair.fromPublicKey(src.id).rawPublicKey() },
        tx: undefined as never,
        soroban: {},
        events: new OperationEvents(new Uint8Array(32), { type: 0 }),
      },
    );
    assert.equal(opResultInnerCode(result), ACCOUNT_MERGE.DEST_FULL);
  });
});

describe('path payments (no order books)', () => {
  test('same-asset strict receive and strict send succeed, with `last` filled in', () => {
    const h = new Harness();
    const { issuer, holder, asset } = issued(h);
    const r1 = h.run(issuer, [
      Operation.pathPaymentStrictReceive({
        sendAsset: asset,
        sendMax: '10',
        destination: holder.publicKey(),
        destAsset: asset,
        destAmount: '10',
        path: [],
      }),
    ]);
    assert.deepEqual(r1.decoded.ops, [inner(PATH_PAYMENT.SUCCESS)]);
    const r2 = h.run(holder, [
      Operation.pathPaymentStrictSend({
        sendAsset: asset,
        sendAmount: '4',
        destination: issuer.publicKey(),
        destAsset: asset,
        destMin: '4',
        path: [asset],
      }),
    ]);
    assert.deepEqual(r2.decoded.ops, [inner(PATH_PAYMENT.SUCCESS)]);
    assert.equal(trustline(h, holder, asset)?.balance, 6n * XLM);
    const wire = xdr.TransactionResult.schema.decode(new Uint8Array(Buffer.from(r2.resultXdr, 'base64')));
    const op = (wire.result as { results: xdr.OperationResultWire[] }).results[0] as xdr.OperationResultWire;
    assert.ok(op.code === 0 && op.tr.type === 13 && op.tr.pathPaymentStrictSendResult.code === 0);
    if (op.code === 0 && op.tr.type === 13 && op.tr.pathPaymentStrictSendResult.code === 0) {
      assert.equal(op.tr.pathPaymentStrictSendResult.success.last.amount, 4n * XLM);
    }
  });

  test('a conversion needs offers: TOO_FEW_OFFERS; OVER_SENDMAX, UNDER_DESTMIN, NO_DESTINATION', () => {
    const h = new Harness();
    const { holder, asset } = issued(h);
    const a = h.fund();
    const convert = h.run(a, [
      Operation.pathPaymentStrictSend({
        sendAsset: native,
        sendAmount: '1',
        destination: holder.publicKey(),
        destAsset: asset,
        destMin: '1',
        path: [],
      }),
    ]);
    assert.deepEqual(convert.decoded.ops, [inner(PATH_PAYMENT.TOO_FEW_OFFERS)]);
    const overMax = h.run(a, [
      Operation.pathPaymentStrictReceive({
        sendAsset: native,
        sendMax: '1',
        destination: holder.publicKey(),
        destAsset: native,
        destAmount: '2',
        path: [],
      }),
    ]);
    assert.deepEqual(overMax.decoded.ops, [inner(PATH_PAYMENT.CONSTRAINT_NOT_MET)]);
    const underMin = h.run(a, [
      Operation.pathPaymentStrictSend({
        sendAsset: native,
        sendAmount: '1',
        destination: holder.publicKey(),
        destAsset: native,
        destMin: '2',
        path: [],
      }),
    ]);
    assert.deepEqual(underMin.decoded.ops, [inner(PATH_PAYMENT.CONSTRAINT_NOT_MET)]);
    const noDest = h.run(a, [
      Operation.pathPaymentStrictReceive({
        sendAsset: native,
        sendMax: '1',
        destination: Keypair.random().publicKey(),
        destAsset: native,
        destAmount: '1',
        path: [],
      }),
    ]);
    assert.deepEqual(noDest.decoded.ops, [inner(PATH_PAYMENT.NO_DESTINATION)]);
  });
});

describe('subentry limit', () => {
  test('the 1001st subentry is opTOO_MANY_SUBENTRIES', () => {
    const h = new Harness();
    const a = h.fund(1000n);
    for (let batch = 0; batch < 10; batch++) {
      const ops = Array.from({ length: 100 }, (_, i) =>
        Operation.manageData({ name: `k${batch * 100 + i}`, value: 'v' }),
      );
      assert.equal(h.run(a, ops).successful, true);
    }
    assert.equal(h.account(a.publicKey())?.numSubEntries, 1000);
    const issuer = h.fund();
    const r = h.run(a, [Operation.changeTrust({ asset: new Asset('USD', issuer.publicKey()) })]);
    assert.deepEqual(r.decoded.ops, [opLevel(OP.TOO_MANY_SUBENTRIES)]);
  });
});

describe('unmodelled operation types', () => {
  test('claimable balances, offers, clawback and Soroban operations are opNOT_SUPPORTED', () => {
    const h = new Harness();
    const a = h.fund();
    const ops = [
      Operation.createClaimableBalance({ asset: native, amount: '1', claimants: [new Claimant(h.root.publicKey())] }),
      Operation.inflation(),
    ];
    for (const op of ops) {
      const r = submissionError(h, h.build(a, [op]));
      assert.equal(r.tx, TX.FAILED);
      assert.deepEqual(r.ops, [opLevel(OP.NOT_SUPPORTED)]);
    }
    // A Soroban operation without Soroban data is malformed before its type is even looked at, as on the network.
    assert.equal(submissionError(h, h.build(a, [Operation.extendFootprintTtl({ extendTo: 10 })])).tx, TX.MALFORMED);
  });
});
