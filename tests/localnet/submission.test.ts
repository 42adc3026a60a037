// sendTransaction's statuses and the submission-time validity checks, then getTransaction's answers, through the SDK.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Asset, Keypair, Operation, Transaction, rpc, xdr } from '@stellar/stellar-sdk';
import {
  balanceOf,
  build,
  call,
  newAccounts,
  opCodes,
  submit,
  submitOk,
  txCode,
  txHash,
  type TestNet,
  startTestLocalnet,
} from '../support/localnet';

const pay = (destination: string, amount = '1', source?: string) =>
  Operation.payment({ destination, asset: Asset.native(), amount, ...(source ? { source } : {}) });

/** An envelope with no operations (TransactionBuilder refuses to build one), signed by `source`. */
function zeroOperationEnvelope(tx: Transaction, source: Keypair, passphrase: string): string {
  const wire = xdr.TransactionEnvelope.schema.decode(Buffer.from(tx.toXDR(), 'base64')) as {
    type: number;
    v1: { tx: { operations: unknown[] }; signatures: unknown[] };
  };
  wire.v1.tx.operations = [];
  wire.v1.signatures = [];
  const empty = new Transaction(
    Buffer.from(xdr.TransactionEnvelope.schema.encode(wire as never)).toString('base64'),
    passphrase,
  );
  empty.sign(source);
  return empty.toXDR();
}

async function sendRaw(
  net: TestNet,
  envelope: string,
): Promise<{ status: string; hash: string; errorResultXdr?: string }> {
  const r = await call(net, 'sendTransaction', { transaction: envelope });
  assert.ok(r.result, JSON.stringify(r.error));
  return r.result;
}

describe('localnet: submission', () => {
  let net: TestNet;
  let alice: Keypair;
  let bob: Keypair;
  let carol: Keypair;
  before(async () => {
    net = await startTestLocalnet();
    [alice, bob, carol] = await newAccounts(net, 3, '100');
  });
  after(() => net?.stop());

  test('PENDING, then SUCCESS with every getTransaction field (createdAt a string, fee charged, sequence used)', async () => {
    const tx = await build(net, alice, [pay(bob.publicKey(), '10')]);
    const sent = await net.server.sendTransaction(tx);
    assert.equal(sent.status, 'PENDING');
    assert.equal(sent.hash, txHash(tx));
    assert.equal(typeof sent.latestLedgerCloseTime, 'string');
    assert.equal((await net.server.getTransaction(sent.hash)).status, 'NOT_FOUND');
    const closed = await net.localnet.closeLedger();
    const got = await net.server.pollTransaction(sent.hash);
    assert.equal(got.status, 'SUCCESS');
    assert.ok(got.status === 'SUCCESS');
    assert.equal(got.ledger, closed.sequence);
    assert.equal(got.applicationOrder, 1);
    assert.equal(got.feeBump, false);
    assert.equal(txCode(got.resultXdr), 'txSuccess');
    assert.equal(got.resultXdr.feeCharged, 100n);
    assert.equal(got.envelopeXdr.toXdr('base64'), tx.toXDR());
    assert.equal(got.resultMetaXdr.type, 'v4');
    const raw = (await call(net, 'getTransaction', { hash: sent.hash })).result;
    assert.equal(typeof raw.createdAt, 'string');
    assert.equal(typeof raw.latestLedgerCloseTime, 'string');
    assert.equal(typeof raw.oldestLedgerCloseTime, 'string');
    assert.equal(raw.txHash, sent.hash);
    assert.equal(await balanceOf(net, bob.publicKey()), 1_100_000_000n);
    assert.equal(await balanceOf(net, alice.publicKey()), 900_000_000n - 100n);
    assert.equal((await net.server.getAccount(alice.publicKey())).sequenceNumber(), tx.sequence);
  });

  test('DUPLICATE for the same transaction again; TRY_AGAIN_LATER for a second one from the same source', async () => {
    const first = await build(net, alice, [pay(bob.publicKey())]);
    assert.equal((await net.server.sendTransaction(first)).status, 'PENDING');
    assert.equal((await net.server.sendTransaction(first)).status, 'DUPLICATE');
    const next = await build(net, alice, [pay(carol.publicKey())], { sequence: first.sequence });
    const second = await net.server.sendTransaction(next);
    assert.equal(second.status, 'TRY_AGAIN_LATER');
    assert.equal(second.errorResult, undefined);
    await net.localnet.closeLedger();
    assert.equal((await net.server.getTransaction(txHash(first))).status, 'SUCCESS');
    assert.equal((await net.server.sendTransaction(next)).status, 'PENDING');
    await net.localnet.closeLedger();
  });

  test('ERROR txBAD_SEQ with an errorResult charging baseFee x ops; resending an applied transaction is txBAD_SEQ too', async () => {
    const applied = await build(net, alice, [pay(bob.publicKey())]);
    await submitOk(net, applied);
    const again = await net.server.sendTransaction(applied);
    assert.equal(again.status, 'ERROR');
    assert.equal(txCode(again.errorResult!), 'txBadSeq');
    const account = await net.server.getAccount(alice.publicKey());
    const skip = await build(net, alice, [pay(bob.publicKey()), pay(carol.publicKey())], {
      sequence: (BigInt(account.sequenceNumber()) + 1n).toString(),
    });
    const sent = await net.server.sendTransaction(skip);
    assert.equal(sent.status, 'ERROR');
    assert.equal(txCode(sent.errorResult!), 'txBadSeq');
    assert.equal(sent.errorResult!.feeCharged, 200n);
    const raw = await sendRaw(net, skip.toXDR());
    assert.equal(typeof raw.errorResultXdr, 'string');
  });

  test('ERROR txBAD_AUTH (wrong signer), txBAD_AUTH_EXTRA (an unused signature), txINSUFFICIENT_FEE, txNO_ACCOUNT', async () => {
    const wrong = await build(net, alice, [pay(bob.publicKey())], { signers: [bob] });
    assert.equal(txCode((await net.server.sendTransaction(wrong)).errorResult!), 'txBadAuth');
    const extra = await build(net, alice, [pay(bob.publicKey())], { signers: [alice, Keypair.random()] });
    assert.equal(txCode((await net.server.sendTransaction(extra)).errorResult!), 'txBadAuthExtra');
    const cheap = await build(net, alice, [pay(bob.publicKey())], { fee: 99 });
    assert.equal(txCode((await net.server.sendTransaction(cheap)).errorResult!), 'txInsufficientFee');
    const ghost = Keypair.random();
    const noAccount = await build(net, ghost, [pay(bob.publicKey())], { sequence: '1' });
    assert.equal(txCode((await net.server.sendTransaction(noAccount)).errorResult!), 'txNoAccount');
  });

  test('ERROR txTOO_LATE and txTOO_EARLY against the ledger close time; txMISSING_OPERATION', async () => {
    const now = Math.floor(Date.now() / 1000);
    const late = await build(net, alice, [pay(bob.publicKey())], { timebounds: { minTime: 0, maxTime: now - 60 } });
    assert.equal(txCode((await net.server.sendTransaction(late)).errorResult!), 'txTooLate');
    const early = await build(net, alice, [pay(bob.publicKey())], { timebounds: { minTime: now + 3600, maxTime: 0 } });
    assert.equal(txCode((await net.server.sendTransaction(early)).errorResult!), 'txTooEarly');
    const template = await build(net, alice, [pay(bob.publicKey())]);
    const empty = await sendRaw(net, zeroOperationEnvelope(template, alice, net.passphrase));
    assert.equal(empty.status, 'ERROR');
    assert.equal(txCode(xdr.TransactionResult.fromXdr(empty.errorResultXdr!, 'base64')), 'txMissingOperation');
  });

  test('ERROR txINSUFFICIENT_BALANCE when the fee would eat into the reserve', async () => {
    const [poor] = await newAccounts(net, 1, '1'); // exactly the 1 XLM minimum balance
    const tx = await build(net, poor, [Operation.bumpSequence({ bumpTo: '0' })]);
    assert.equal(txCode((await net.server.sendTransaction(tx)).errorResult!), 'txInsufficientBalance');
  });

  test('operation sources: unsigned is opBAD_AUTH at submission; a missing account signed for passes, then opNO_ACCOUNT at apply', async () => {
    const unsigned = await build(net, alice, [pay(carol.publicKey(), '1', bob.publicKey())]);
    const r1 = await net.server.sendTransaction(unsigned);
    assert.equal(r1.status, 'ERROR');
    assert.equal(txCode(r1.errorResult!), 'txFailed');
    assert.deepEqual(opCodes(r1.errorResult!), ['opBadAuth']);
    // stellar-core checks a missing operation source's signature against its key at submission (checkSignatureNoAccount)
    // and only finds the account missing when applying.
    const ghost = Keypair.random();
    const ghostUnsigned = await build(net, alice, [pay(carol.publicKey(), '1', ghost.publicKey())]);
    assert.deepEqual(opCodes((await net.server.sendTransaction(ghostUnsigned)).errorResult!), ['opBadAuth']);
    const ghostSigned = await build(net, alice, [pay(carol.publicKey(), '1', ghost.publicKey())], {
      signers: [alice, ghost],
    });
    const got = await submit(net, ghostSigned);
    assert.equal(got.status, 'FAILED');
    assert.deepEqual(opCodes(got.resultXdr), ['opNoAccount']);
  });

  test('txFAILED at apply rolls back every operation but charges the fee and uses the sequence number', async () => {
    const before = await balanceOf(net, alice.publicKey());
    const bobBefore = await balanceOf(net, bob.publicKey());
    const tx = await build(net, alice, [pay(bob.publicKey(), '5'), pay(Keypair.random().publicKey(), '5')]);
    const got = await submit(net, tx);
    assert.equal(got.status, 'FAILED');
    assert.equal(txCode(got.resultXdr), 'txFailed');
    assert.deepEqual(opCodes(got.resultXdr), ['paymentSuccess', 'paymentNoDestination']);
    assert.equal(await balanceOf(net, alice.publicKey()), before - 200n);
    assert.equal(await balanceOf(net, bob.publicKey()), bobBefore);
    assert.equal((await net.server.getAccount(alice.publicKey())).sequenceNumber(), tx.sequence);
  });

  test('an undecodable envelope is -32602 invalid_xdr', async () => {
    const r = await call(net, 'sendTransaction', { transaction: 'bm90IGFuIGVudmVsb3Bl' });
    assert.deepEqual([r.error.code, r.error.message], [-32602, 'invalid_xdr']);
  });

  test('getTransaction: NOT_FOUND carries the ledger range; a malformed hash is -32602', async () => {
    const missing = await net.server.getTransaction('ab'.repeat(32));
    assert.equal(missing.status, rpc.Api.GetTransactionStatus.NOT_FOUND);
    assert.equal(missing.oldestLedger, 1);
    assert.ok(missing.latestLedger > 1);
    const raw = (await call(net, 'getTransaction', { hash: 'ab'.repeat(32) })).result;
    assert.equal(typeof raw.oldestLedgerCloseTime, 'string');
    const short = await call(net, 'getTransaction', { hash: 'abc' });
    assert.deepEqual([short.error.code, short.error.message], [-32602, 'unexpected hash length (3)']);
    const notHex = await call(net, 'getTransaction', { hash: 'zz'.repeat(32) });
    assert.equal(notHex.error.code, -32602);
  });
});
