// Ledgers: genesis, headers and close meta, atomic application, apply-time re-validation, the per-ledger operation
// budget, getLedgerEntry, contract installation and snapshot round trips.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { Asset, Keypair, Operation, StrKey, contract, xdr } from '@stellar/stellar-sdk';
import { PAYMENT, TX } from './codes';
import { EngineInputError } from './errors';
import { LedgerEngine, TOTAL_COINS } from './ledger';
import { Harness, PASSPHRASE, XLM, decodeResult, entryKey, inner } from './testkit';

const native = Asset.native();

/** A WASM module holding only a contractspecv0 custom section that declares functions `names`. */
export function specOnlyWasm(names: string[]): Buffer {
  const spec = Buffer.concat(
    names.map((name) =>
      xdr.ScSpecEntry.schema.encode({
        kind: 0,
        functionV0: { doc: new xdr.XdrString(''), name: new xdr.XdrString(name), inputs: [], outputs: [] },
      }),
    ),
  );
  const sectionName = Buffer.from('contractspecv0');
  const leb = (n: number) => {
    const out: number[] = [];
    do {
      let b = n & 0x7f;
      n >>>= 7;
      if (n) b |= 0x80;
      out.push(b);
    } while (n);
    return Buffer.from(out);
  };
  const content = Buffer.concat([leb(sectionName.length), sectionName, spec]);
  return Buffer.concat([
    Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]),
    Buffer.from([0]),
    leb(content.length),
    content,
  ]);
}

describe('genesis and headers', () => {
  test('ledger 1: the root account (network id seed) holds the whole supply', () => {
    const h = new Harness();
    assert.equal(h.root.secret(), Keypair.master(PASSPHRASE).secret());
    const root = h.account(h.root.publicKey());
    assert.ok(root);
    assert.equal(root.balance, TOTAL_COINS);
    assert.deepEqual([...root.thresholds.toBytes()], [1, 0, 0, 0]);
    const latest = h.engine.latestLedger();
    assert.equal(latest.sequence, 1);
    const header = xdr.LedgerHeader.fromXdr(latest.headerXdr, 'base64');
    assert.equal(header.ledgerSeq, 1);
    assert.equal(header.totalCoins, TOTAL_COINS);
    assert.equal(latest.hash, createHash('sha256').update(Buffer.from(latest.headerXdr, 'base64')).digest('hex'));
    xdr.LedgerCloseMeta.fromXdr(latest.metadataXdr, 'base64');
  });

  test('closing chains headers and records fees, base fee/reserve, protocol and close time', () => {
    const h = new Harness({ baseReserve: 5_000_000n, baseFee: 100, protocolVersion: 23 });
    const first = h.engine.latestLedger();
    const a = h.fund();
    const second = h.engine.latestLedger();
    const header = xdr.LedgerHeader.fromXdr(second.headerXdr, 'base64');
    assert.equal(header.ledgerSeq, 2);
    assert.equal(Buffer.from(header.previousLedgerHash.toBytes()).toString('hex'), first.hash);
    assert.equal(header.scpValue.closeTime, BigInt(second.closeTime));
    assert.equal(header.ledgerVersion, 23);
    assert.equal(header.baseFee, 100);
    assert.equal(header.baseReserve, 5_000_000);
    assert.equal(header.feePool, 100n);
    assert.equal(header.totalCoins, TOTAL_COINS);

    h.submit(h.build(a, [Operation.payment({ destination: h.root.publicKey(), asset: native, amount: '1' })]));
    h.submit(h.build(h.root, [Operation.payment({ destination: a.publicKey(), asset: native, amount: '1' })]));
    const third = h.close();
    assert.deepEqual(
      third.transactions.map((t) => t.applicationOrder),
      [1, 2],
    );
    const meta = xdr.LedgerCloseMeta.fromXdr(third.metadataXdr, 'base64');
    assert.equal(meta.type, 'v2');
    const v2 = meta.v2;
    assert.equal(v2.txProcessing.length, 2);
    assert.equal(v2.ledgerHeader.header.feePool, 300n);
    assert.equal(Buffer.from(v2.ledgerHeader.hash.toBytes()).toString('hex'), third.hash);
    for (const t of third.transactions) {
      const m = xdr.TransactionMeta.fromXdr(t.resultMetaXdr, 'base64');
      assert.equal(m.type, 'v4');
    }
  });

  test('protocol 22 produces TransactionMeta v3 and LedgerCloseMeta v1', () => {
    const h = new Harness({ protocolVersion: 22 });
    h.fund();
    const ledger = h.close();
    assert.equal(xdr.LedgerCloseMeta.fromXdr(ledger.metadataXdr, 'base64').type, 'v1');
    h.submit(h.build(h.root, [Operation.bumpSequence({ bumpTo: '0' })]));
    const t = h.close().transactions[0];
    assert.ok(t);
    assert.equal(xdr.TransactionMeta.fromXdr(t.resultMetaXdr, 'base64').type, 'v3');
  });
});

describe('atomic application', () => {
  test('txFAILED rolls back every operation; the fee is charged and the sequence number consumed', () => {
    const h = new Harness();
    const a = h.fund(50n);
    const b = h.fund(50n);
    const seq = h.seq(a.publicKey());
    const r = h.run(a, [
      Operation.payment({ destination: b.publicKey(), asset: native, amount: '10' }),
      Operation.payment({ destination: Keypair.random().publicKey(), asset: native, amount: '1' }),
      Operation.manageData({ name: 'x', value: 'y' }),
    ]);
    assert.equal(r.successful, false);
    assert.equal(r.decoded.tx, TX.FAILED);
    // Every operation still reports its own result; the third ran against the state without the failed second.
    assert.deepEqual(r.decoded.ops, [inner(PAYMENT.SUCCESS), inner(PAYMENT.NO_DESTINATION), inner(0)]);
    assert.equal(r.feeCharged, 300n);
    assert.equal(h.balance(a.publicKey()), 50n * XLM - 300n);
    assert.equal(h.balance(b.publicKey()), 50n * XLM);
    assert.equal(h.account(a.publicKey())?.numSubEntries, 0);
    assert.equal(h.seq(a.publicKey()), seq + 1n);
    const meta = xdr.TransactionMeta.fromXdr(r.resultMetaXdr, 'base64') as xdr.TransactionMetaV4Arm;
    assert.equal(meta.v4.operations.length, 0);
    assert.ok(meta.v4.txChangesBefore.length > 0);
  });

  test('successful meta lists the created entry and the updated source per operation', () => {
    const h = new Harness();
    const dest = Keypair.random();
    const r = h.run(h.root, [Operation.createAccount({ destination: dest.publicKey(), startingBalance: '5' })]);
    const meta = xdr.TransactionMeta.fromXdr(r.resultMetaXdr, 'base64') as xdr.TransactionMetaV4Arm;
    const changes = meta.v4.operations[0]?.changes ?? [];
    assert.deepEqual(
      changes.map((c) => c.type),
      ['ledgerEntryState', 'ledgerEntryUpdated', 'ledgerEntryCreated'],
    );
  });

  test('a transaction that expired between submission and close fails with txTOO_LATE, fee charged, sequence kept', () => {
    const h = new Harness();
    const a = h.fund();
    const seq = h.seq(a.publicKey());
    const balance = h.balance(a.publicKey());
    const tx = h.build(a, [Operation.bumpSequence({ bumpTo: '0' })], {
      timeBounds: { minTime: 0, maxTime: h.now + 11 },
    });
    assert.equal(h.submit(tx).status, 'PENDING');
    h.now += 30;
    const ledger = h.engine.closeLedger(h.now);
    const t = ledger.transactions[0];
    assert.ok(t);
    assert.equal(t.successful, false);
    const result = xdr.TransactionResult.fromXdr(t.resultXdr, 'base64');
    assert.equal(result.result.type, 'txTooLate');
    assert.equal(h.balance(a.publicKey()), balance - 100n);
    assert.equal(h.seq(a.publicKey()), seq);
  });

  test('a ledger holds at most maxTxSetSize operations; the queue holds twice that, then refuses an equal bid', () => {
    const h = new Harness({ maxTxSetSize: 2 });
    const accounts = [h.fund(), h.fund(), h.fund(), h.fund(), h.fund()];
    const pay = (from: Keypair) =>
      h.build(from, [Operation.payment({ destination: h.root.publicKey(), asset: native, amount: '1' })]);
    const submitted = accounts.map((a) => h.submit(pay(a)));
    assert.deepEqual(
      submitted.map((s) => s.status),
      ['PENDING', 'PENDING', 'PENDING', 'PENDING', 'ERROR'],
    );
    // The full queue's lowest rate is 100 per operation: evicting it takes 101 (core's computeBetterFee).
    const refused = decodeResult(submitted[4]!.errorResultXdr!);
    assert.deepEqual([refused.tx, refused.feeCharged], [TX.INSUFFICIENT_FEE, 101n]);
    assert.equal(h.close().transactions.length, 2);
    assert.equal(h.engine.pendingCount(), 2);
    assert.equal(h.close().transactions.length, 2);
    assert.equal(h.engine.pendingCount(), 0);
  });
});

describe('getLedgerEntry', () => {
  test('missing entries are undefined; TTL and undecodable keys are EngineInputError', () => {
    const h = new Harness();
    const ghost = entryKey({ type: 0, account: { accountId: { type: 0, ed25519: Keypair.random().rawPublicKey() } } });
    assert.equal(h.engine.getLedgerEntry(ghost), undefined);
    assert.equal(
      h.engine.getLedgerEntry(
        entryKey({ type: 2, offer: { sellerId: { type: 0, ed25519: h.root.rawPublicKey() }, offerId: 1n } }),
      ),
      undefined,
    );
    assert.throws(
      () => h.engine.getLedgerEntry(entryKey({ type: 9, ttl: { keyHash: new Uint8Array(32) } })),
      EngineInputError,
    );
    assert.throws(() => h.engine.getLedgerEntry('AAAA'), EngineInputError);
  });
});

describe('installContract', () => {
  test('stores the code and a persistent instance entry that the SDK can read back', () => {
    const h = new Harness();
    const wasm = specOnlyWasm(['hello', 'transfer']);
    const { contractId, wasmHash } = h.engine.installContract(wasm);
    assert.ok(StrKey.isValidContract(contractId));
    assert.equal(wasmHash, createHash('sha256').update(wasm).digest('hex'));
    assert.deepEqual(h.engine.installContract(wasm), { contractId, wasmHash }, 'same WASM, no salt: same id');
    assert.notEqual(h.engine.installContract(wasm, { salt: Buffer.alloc(32, 7) }).contractId, contractId);

    const instanceKey = entryKey({
      type: 6,
      contractData: {
        contract: { type: 1, contractId: StrKey.decodeContract(contractId) },
        key: { type: 20 },
        durability: 1,
      },
    });
    const instance = h.engine.getLedgerEntry(instanceKey);
    assert.ok(instance);
    assert.ok((instance.liveUntilLedgerSeq ?? 0) > h.engine.latestLedger().sequence);
    const data = xdr.LedgerEntryData.fromXdr(instance.xdr, 'base64') as xdr.LedgerEntryDataContractData;
    assert.equal(data.contractData.durability.name, 'persistent');
    const val = data.contractData.val.toXdrObject();
    assert.ok(val.type === 19 && val.instance.executable.type === 0);
    if (val.type !== 19 || val.instance.executable.type !== 0) return;
    assert.equal(Buffer.from(val.instance.executable.wasmHash).toString('hex'), wasmHash);

    const code = h.engine.getLedgerEntry(entryKey({ type: 7, contractCode: { hash: Buffer.from(wasmHash, 'hex') } }));
    assert.ok(code?.liveUntilLedgerSeq);
    const codeEntry = (xdr.LedgerEntryData.fromXdr(code.xdr, 'base64') as xdr.LedgerEntryDataContractCode).contractCode;
    const spec = contract.Spec.fromWasm(codeEntry.code);
    assert.deepEqual(
      spec.funcs().map((f) => f.name.toString()),
      ['hello', 'transfer'],
    );
  });

  test('a WASM without contractspecv0 is refused', () => {
    const h = new Harness();
    assert.throws(() => h.engine.installContract(Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0])), EngineInputError);
    assert.throws(() => h.engine.installContract(Buffer.from('not wasm')), EngineInputError);
  });
});

describe('snapshot', () => {
  test('a JSON round trip restores entries, the last ledger and pending transactions', () => {
    const h = new Harness();
    const sponsor = h.fund(100n);
    const wallet = Keypair.random();
    const issuer = h.fund();
    const usdc = new Asset('USDC', issuer.publicKey());
    h.run(
      sponsor,
      [
        Operation.beginSponsoringFutureReserves({ sponsoredId: wallet.publicKey() }),
        Operation.createAccount({ destination: wallet.publicKey(), startingBalance: '0' }),
        Operation.changeTrust({ asset: usdc, source: wallet.publicKey() }),
        Operation.endSponsoringFutureReserves({ source: wallet.publicKey() }),
      ],
      { signers: [sponsor, wallet] },
    );
    h.run(sponsor, [
      Operation.manageData({ name: 'k', value: Buffer.from([0, 1, 2]) }),
      Operation.setOptions({
        signer: { ed25519PublicKey: Keypair.random().publicKey(), weight: 1 },
        homeDomain: 'x.org',
      }),
    ]);
    h.engine.installContract(specOnlyWasm(['f']));
    const pending = h.build(h.root, [
      Operation.payment({ destination: sponsor.publicKey(), asset: native, amount: '1' }),
    ]);
    assert.equal(h.submit(pending).status, 'PENDING');

    const json = JSON.stringify(h.engine.snapshot());
    const restored = new LedgerEngine({ networkPassphrase: PASSPHRASE, clock: () => h.now }, JSON.parse(json));
    assert.deepEqual(restored.latestLedger(), h.engine.latestLedger());
    assert.deepEqual(restored.snapshot(), h.engine.snapshot());
    const keys = [sponsor, wallet, issuer].map((k) =>
      entryKey({ type: 0, account: { accountId: { type: 0, ed25519: k.rawPublicKey() } } }),
    );
    for (const key of keys) assert.deepEqual(restored.getLedgerEntry(key), h.engine.getLedgerEntry(key));
    assert.equal(restored.pendingCount(), 1);
    const next = restored.closeLedger(h.now + 5);
    assert.equal(next.sequence, h.engine.latestLedger().sequence + 1);
    assert.equal(next.transactions[0]?.successful, true);

    assert.throws(() => new LedgerEngine({ networkPassphrase: 'Other network' }, JSON.parse(json)), EngineInputError);
  });
});
