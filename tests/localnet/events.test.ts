// CAP-67 unified events of classic transactions, through the stock SDK: a payment's transfer on the asset's contract
// via getEvents (topics [transfer, from, to, SEP-11 asset]), mint / burn when the issuer is a party, the fee event of
// every transaction (failed ones too), and the same events in getTransaction, getTransactions and getLedgers.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  Asset,
  Keypair,
  Memo,
  Operation,
  StrKey,
  TransactionBuilder,
  nativeToScVal,
  rpc,
  scValToNative,
  xdr,
} from '@stellar/stellar-sdk';
import { build, newAccounts, submit, submitOk, type TestNet, startTestLocalnet } from '../support/localnet';

const topic = (s: string): string => nativeToScVal(s, { type: 'symbol' }).toXDR('base64');

function readable(e: { topic: xdr.ScVal[]; value: xdr.ScVal }): [unknown[], unknown] {
  return [e.topic.map((t) => scValToNative(t) as unknown), scValToNative(e.value) as unknown];
}

function readableEvent(e: xdr.ContractEvent): [string, unknown[], unknown] {
  return [
    StrKey.encodeContract(Buffer.from(e.contractId!.value)),
    e.body.v0.topics.map((t) => scValToNative(t) as unknown),
    scValToNative(e.body.v0.data) as unknown,
  ];
}

describe('localnet: CAP-67 classic events through rpc.Server', () => {
  let net: TestNet;
  let alice: Keypair;
  let bob: Keypair;
  let issuer: Keypair;
  let xlm: string;
  before(async () => {
    net = await startTestLocalnet();
    [alice, bob, issuer] = await newAccounts(net, 3, '100');
    xlm = Asset.native().contractId(net.passphrase);
  });
  after(() => net?.stop());

  test('a classic payment: getEvents finds its transfer on the XLM contract by topics; its fee event comes first', async () => {
    const paid = await submitOk(
      net,
      await build(net, alice, [
        Operation.payment({ destination: bob.publicKey(), asset: Asset.native(), amount: '7' }),
      ]),
    );
    const transfers = await net.server.getEvents({
      startLedger: paid.ledger,
      endLedger: paid.ledger + 1,
      filters: [{ type: 'contract', contractIds: [xlm], topics: [[topic('transfer'), '*', '*', '*']] }],
    });
    assert.deepEqual(
      transfers.events.map((e) => [
        e.contractId?.contractId(),
        e.txHash,
        e.transactionIndex,
        e.operationIndex,
        ...readable(e),
      ]),
      [[xlm, paid.txHash, 1, 0, ['transfer', alice.publicKey(), bob.publicKey(), 'native'], 70_000_000n]],
    );
    const all = await net.server.getEvents({ startLedger: paid.ledger, endLedger: paid.ledger + 1, filters: [] });
    assert.deepEqual(
      all.events.map((e) => [e.transactionIndex, ...readable(e)]),
      [
        [0, ['fee', alice.publicKey()], 100n],
        [1, ['transfer', alice.publicKey(), bob.publicKey(), 'native'], 70_000_000n],
      ],
    );
    assert.ok(all.events.every((e) => e.type === 'contract' && e.inSuccessfulContractCall));
  });

  test('an issued asset: mint from the issuer, transfer between holders (memo as to_muxed_id), burn to the issuer', async () => {
    const eur = new Asset('EUR', issuer.publicKey());
    for (const k of [alice, bob]) await submitOk(net, await build(net, k, [Operation.changeTrust({ asset: eur })]));
    const start = (await net.server.getLatestLedger()).sequence + 1;
    const payEur = (from: Keypair, to: Keypair, amount: string) =>
      Operation.payment({ destination: to.publicKey(), asset: eur, amount, source: from.publicKey() });
    const account = await net.server.getAccount(alice.publicKey());
    const tx = new TransactionBuilder(account, { fee: '100', networkPassphrase: net.passphrase })
      .addOperation(payEur(issuer, alice, '50'))
      .addOperation(payEur(alice, bob, '20'))
      .addOperation(payEur(bob, issuer, '5'))
      .addMemo(Memo.id('4242'))
      .setTimeout(0)
      .build();
    tx.sign(alice, bob, issuer);
    await submitOk(net, tx);
    const name = `EUR:${issuer.publicKey()}`;
    const got = await net.server.getEvents({
      startLedger: start,
      filters: [{ type: 'contract', contractIds: [eur.contractId(net.passphrase)] }],
    });
    assert.deepEqual(
      got.events.map((e) => [e.operationIndex, ...readable(e)]),
      [
        [0, ['mint', alice.publicKey(), name], { amount: 500_000_000n, to_muxed_id: 4242n }],
        [1, ['transfer', alice.publicKey(), bob.publicKey(), name], { amount: 200_000_000n, to_muxed_id: 4242n }],
        [2, ['burn', bob.publicKey(), name], 50_000_000n],
      ],
    );
  });

  test('fee events: every transaction, failed ones too (inSuccessfulContractCall false), the fee-bump fee source', async () => {
    const failed = await submit(
      net,
      await build(net, alice, [
        Operation.payment({ destination: Keypair.random().publicKey(), asset: Asset.native(), amount: '1' }),
      ]),
    );
    assert.equal(failed.status, rpc.Api.GetTransactionStatus.FAILED);
    const inner = await build(net, bob, [Operation.bumpSequence({ bumpTo: '0' })]);
    const bump = TransactionBuilder.buildFeeBumpTransaction(alice, '150', inner, net.passphrase);
    bump.sign(alice);
    const bumped = await submitOk(net, bump);
    const fees = await net.server.getEvents({
      startLedger: failed.ledger,
      filters: [{ contractIds: [xlm], topics: [[topic('fee'), '*']] }],
    });
    assert.deepEqual(
      fees.events.map((e) => [e.txHash, e.inSuccessfulContractCall, ...readable(e)]),
      [
        [failed.txHash, false, ['fee', alice.publicKey()], 100n],
        // The fee-bump's fee source pays the base fee x (inner ops + 1).
        [bumped.txHash, true, ['fee', alice.publicKey()], 200n],
      ],
    );
  });

  test('getTransaction, getTransactions and getLedgers carry the same events (TransactionMeta v4)', async () => {
    const paid = await submitOk(
      net,
      await build(net, bob, [
        Operation.payment({ destination: alice.publicKey(), asset: Asset.native(), amount: '3' }),
      ]),
    );
    const transfer = [xlm, ['transfer', bob.publicKey(), alice.publicKey(), 'native'], 30_000_000n];
    const fee = [xlm, ['fee', bob.publicKey()], 100n];

    assert.deepEqual(
      paid.events.contractEventsXdr.map((op) => op.map(readableEvent)),
      [[transfer]],
    );
    assert.deepEqual(
      paid.events.transactionEventsXdr.map((t) => [t.stage.name, readableEvent(t.event)]),
      [['transactionEventStageBeforeAllTxs', fee]],
    );
    assert.equal(paid.resultMetaXdr.type, 'v4');

    const page = await net.server.getTransactions({ startLedger: paid.ledger, pagination: { limit: 1 } });
    const listed = page.transactions[0]!;
    assert.equal(listed.txHash, paid.txHash);
    assert.deepEqual(
      listed.events.contractEventsXdr.map((op) => op.map(readableEvent)),
      [[transfer]],
    );
    assert.deepEqual(
      listed.events.transactionEventsXdr.map((t) => readableEvent(t.event)),
      [fee],
    );

    const ledgers = await net.server.getLedgers({ startLedger: paid.ledger, pagination: { limit: 1 } });
    const meta = ledgers.ledgers[0]!.metadataXdr;
    assert.ok(meta.type === 'v2');
    const applied = meta.v2.txProcessing[0]!.txApplyProcessing;
    assert.ok(applied.type === 'v4');
    assert.deepEqual(
      applied.v4.operations.map((op) => op.events.map(readableEvent)),
      [[transfer]],
    );
    assert.deepEqual(
      applied.v4.events.map((t) => readableEvent(t.event)),
      [fee],
    );
  });
});
