// CAP-67 unified events of classic operations and fees in TransactionMeta v4, as stellar-core 23 emits them.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  Account,
  Asset,
  Keypair,
  Memo,
  MuxedAccount,
  Operation,
  StrKey,
  scValToNative,
  xdr,
} from '@stellar/stellar-sdk';
import { eventsOfMeta } from '../history/txEvents';
import { Harness, PASSPHRASE, XLM } from './testkit';
import type { AppliedTransaction } from './types';

const native = Asset.native();

interface Seen {
  contract: string;
  topics: unknown[];
  data: unknown;
}

function seen(e: xdr.ContractEvent): Seen {
  assert.equal(e.type.name, 'contract');
  const body = e.body.v0;
  return {
    contract: StrKey.encodeContract(Buffer.from(e.contractId!.value)),
    topics: body.topics.map((t) => scValToNative(t) as unknown),
    data: scValToNative(body.data) as unknown,
  };
}

/** The operations' events and the transaction-level events ([stage, event]) of an applied transaction. */
function eventsOf(t: AppliedTransaction): { ops: Seen[][]; tx: [string, Seen][] } {
  const e = eventsOfMeta(t.resultMetaXdr);
  return {
    ops: e.contractEvents.map((list) => list.map(seen)),
    tx: e.transactionEvents.map((te) => [te.stage.name, seen(te.event)]),
  };
}

const sac = (asset: Asset) => asset.contractId(PASSPHRASE);

describe('CAP-67 classic events', () => {
  test('payment: transfer [transfer, from, to, "native"] on the XLM contract; the fee event before all transactions', () => {
    const h = new Harness();
    const [a, b] = [h.fund(), h.fund()];
    const t = h.run(a, [Operation.payment({ destination: b.publicKey(), asset: native, amount: '12.5' })]);
    assert.deepEqual(eventsOf(t), {
      ops: [
        [{ contract: sac(native), topics: ['transfer', a.publicKey(), b.publicKey(), 'native'], data: 125_000_000n }],
      ],
      tx: [
        ['transactionEventStageBeforeAllTxs', { contract: sac(native), topics: ['fee', a.publicKey()], data: 100n }],
      ],
    });
  });

  test('an issued asset: mint from the issuer, burn to the issuer, transfer between holders, on the asset contract', () => {
    const h = new Harness();
    const [issuer, x, y] = [h.fund(), h.fund(), h.fund()];
    const usd = new Asset('USD', issuer.publicKey());
    for (const k of [x, y]) h.run(k, [Operation.changeTrust({ asset: usd })]);
    const name = `USD:${issuer.publicKey()}`;
    const pay = (from: Keypair, to: Keypair, amount: string) =>
      eventsOf(h.run(from, [Operation.payment({ destination: to.publicKey(), asset: usd, amount })])).ops;
    assert.deepEqual(pay(issuer, x, '10'), [
      [{ contract: sac(usd), topics: ['mint', x.publicKey(), name], data: 10n * XLM }],
    ]);
    assert.deepEqual(pay(x, y, '3'), [
      [{ contract: sac(usd), topics: ['transfer', x.publicKey(), y.publicKey(), name], data: 3n * XLM }],
    ]);
    assert.deepEqual(pay(y, issuer, '1'), [[{ contract: sac(usd), topics: ['burn', y.publicKey(), name], data: XLM }]]);
  });

  test('to_muxed_id: from a muxed destination (u64), else from the memo (id, text, hash); never on a burn', () => {
    const h = new Harness();
    const [issuer, a, b] = [h.fund(), h.fund(), h.fund()];
    const usd = new Asset('USD', issuer.publicKey());
    h.run(a, [Operation.changeTrust({ asset: usd })]);
    h.run(issuer, [Operation.payment({ destination: a.publicKey(), asset: usd, amount: '5' })]);
    const muxed = new MuxedAccount(new Account(b.publicKey(), '0'), '77').accountId();
    const dataOf = (t: AppliedTransaction) => eventsOf(t).ops[0]![0]!;

    // A muxed destination: its id, and the G address in the topics (the memo is not used then).
    const toMuxed = dataOf(
      h.run(a, [Operation.payment({ destination: muxed, asset: native, amount: '1' })], { memo: Memo.id('9') }),
    );
    assert.deepEqual(toMuxed.topics, ['transfer', a.publicKey(), b.publicKey(), 'native']);
    assert.deepEqual(toMuxed.data, { amount: XLM, to_muxed_id: 77n });
    // A plain destination with a memo: the memo.
    const memoId = dataOf(
      h.run(a, [Operation.payment({ destination: b.publicKey(), asset: native, amount: '1' })], {
        memo: Memo.id('42'),
      }),
    );
    assert.deepEqual(memoId.data, { amount: XLM, to_muxed_id: 42n });
    const memoText = dataOf(
      h.run(a, [Operation.payment({ destination: b.publicKey(), asset: native, amount: '1' })], {
        memo: Memo.text('order-7'),
      }),
    );
    assert.deepEqual(memoText.data, { amount: XLM, to_muxed_id: 'order-7' });
    const digest = Buffer.alloc(32, 7);
    const memoHash = dataOf(
      h.run(a, [Operation.payment({ destination: b.publicKey(), asset: native, amount: '1' })], {
        memo: Memo.hash(digest.toString('hex')),
      }),
    );
    assert.deepEqual(memoHash.data, { amount: XLM, to_muxed_id: new Uint8Array(digest) });
    // A burn carries the bare amount, memo or not.
    const burn = dataOf(
      h.run(a, [Operation.payment({ destination: issuer.publicKey(), asset: usd, amount: '2' })], {
        memo: Memo.id('1'),
      }),
    );
    assert.deepEqual([burn.topics[0], burn.data], ['burn', 2n * XLM]);
  });

  test('createAccount and accountMerge: XLM transfers of the starting and the merged balance', () => {
    const h = new Harness();
    const a = h.fund(50n);
    const fresh = Keypair.random();
    const created = h.run(a, [Operation.createAccount({ destination: fresh.publicKey(), startingBalance: '20' })]);
    assert.deepEqual(eventsOf(created).ops, [
      [{ contract: sac(native), topics: ['transfer', a.publicKey(), fresh.publicKey(), 'native'], data: 20n * XLM }],
    ]);
    const balance = h.balance(fresh.publicKey());
    const merged = h.run(fresh, [Operation.accountMerge({ destination: a.publicKey() })]);
    // The merged balance is what was left after the merge transaction's own fee.
    assert.deepEqual(eventsOf(merged).ops, [
      [
        {
          contract: sac(native),
          topics: ['transfer', fresh.publicKey(), a.publicKey(), 'native'],
          data: balance - 100n,
        },
      ],
    ]);
  });

  test('path payments (same asset) and a payment to oneself emit their transfer; one event list per operation', () => {
    const h = new Harness();
    const [a, b] = [h.fund(), h.fund()];
    const t = h.run(a, [
      Operation.pathPaymentStrictSend({
        sendAsset: native,
        sendAmount: '3',
        destination: b.publicKey(),
        destAsset: native,
        destMin: '3',
        path: [],
      }),
      Operation.bumpSequence({ bumpTo: '0' }),
      Operation.pathPaymentStrictReceive({
        sendAsset: native,
        sendMax: '5',
        destination: b.publicKey(),
        destAsset: native,
        destAmount: '4',
        path: [],
      }),
      Operation.payment({ destination: a.publicKey(), asset: native, amount: '1' }),
    ]);
    assert.deepEqual(
      eventsOf(t).ops.map((list) => list.map((e) => [e.topics, e.data])),
      [
        [[['transfer', a.publicKey(), b.publicKey(), 'native'], 3n * XLM]],
        [],
        [[['transfer', a.publicKey(), b.publicKey(), 'native'], 4n * XLM]],
        [[['transfer', a.publicKey(), a.publicKey(), 'native'], XLM]],
      ],
    );
  });

  test('a failed transaction keeps only its fee event; a fee-bump names the fee source and the outer fee', () => {
    const h = new Harness();
    const [a, payer] = [h.fund(), h.fund()];
    const failed = h.run(a, [
      Operation.payment({ destination: Keypair.random().publicKey(), asset: native, amount: '1' }),
    ]);
    assert.equal(failed.successful, false);
    assert.deepEqual(eventsOf(failed), {
      ops: [],
      tx: [
        ['transactionEventStageBeforeAllTxs', { contract: sac(native), topics: ['fee', a.publicKey()], data: 100n }],
      ],
    });
    const inner = h.build(a, [Operation.payment({ destination: payer.publicKey(), asset: native, amount: '1' })]);
    const bumped = h.apply(h.feeBump(payer, inner, 300));
    assert.deepEqual(eventsOf(bumped).tx, [
      ['transactionEventStageBeforeAllTxs', { contract: sac(native), topics: ['fee', payer.publicKey()], data: 200n }],
    ]);
    assert.deepEqual(eventsOf(bumped).ops[0]![0]!.topics, ['transfer', a.publicKey(), payer.publicKey(), 'native']);
  });

  test('before protocol 23 (TransactionMeta v3) classic transactions carry no events', () => {
    const h = new Harness({ protocolVersion: 22 });
    const [a, b] = [h.fund(), h.fund()];
    const t = h.run(a, [Operation.payment({ destination: b.publicKey(), asset: native, amount: '1' })]);
    assert.equal(xdr.TransactionMeta.fromXdr(t.resultMetaXdr, 'base64').type, 'v3');
    assert.deepEqual(eventsOf(t), { ops: [], tx: [] });
  });
});
