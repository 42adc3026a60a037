// The Stellar RPC methods' shapes and errors, through @stellar/stellar-sdk (and raw JSON-RPC where the SDK hides the
// wire: strings vs numbers, error codes).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Asset, Keypair, Networks, Operation, hash, rpc, xdr } from '@stellar/stellar-sdk';
import {
  accountLedgerKey,
  build,
  call,
  newAccounts,
  rawEntries,
  rawRpc,
  submitOk,
  trustlineLedgerKey,
  type TestNet,
  startTestLocalnet,
} from '../support/localnet';

describe('localnet: RPC methods', () => {
  let net: TestNet;
  let alice: Keypair;
  before(async () => {
    net = await startTestLocalnet();
    [alice] = await newAccounts(net, 1);
  });
  after(() => net?.stop());

  test('getHealth: healthy, the ledger range, the retention window; close times are strings', async () => {
    const h = await net.server.getHealth();
    assert.equal(h.status, 'healthy');
    assert.equal(h.oldestLedger, 1);
    assert.equal(h.ledgerRetentionWindow, 120960);
    const raw = (await call(net, 'getHealth')).result;
    assert.equal(typeof raw.latestLedger, 'number');
    assert.equal(typeof raw.latestLedgerCloseTime, 'string');
    assert.equal(typeof raw.oldestLedgerCloseTime, 'string');
  });

  test('getNetwork: the testnet passphrase, protocol 23 as a number, a friendbot URL', async () => {
    const n = await net.server.getNetwork();
    assert.equal(n.passphrase, Networks.TESTNET);
    assert.equal(n.protocolVersion, 23);
    assert.equal(n.friendbotUrl, net.localnet.friendbotUrl);
  });

  test('getLatestLedger: the SDK decodes headerXdr and metadataXdr; id is the header hash; closes advance it', async () => {
    const before = await net.server.getLatestLedger();
    await net.localnet.closeLedger();
    const l = await net.server.getLatestLedger();
    assert.equal(l.sequence, before.sequence + 1);
    assert.equal(l.headerXdr.ledgerSeq, l.sequence);
    assert.equal(Buffer.from(hash(Buffer.from(l.headerXdr.toXdr()))).toString('hex'), l.id);
    assert.equal(l.metadataXdr.type, 'v2');
    const raw = (await call(net, 'getLatestLedger')).result;
    assert.equal(typeof raw.closeTime, 'string');
    assert.equal(raw.protocolVersion, 23);
  });

  test('getLedgers: header and close meta per ledger, cursor paging, the RPC errors', async () => {
    const latest = await net.server.getLatestLedger();
    const page = await net.server.getLedgers({ startLedger: 1, pagination: { limit: 2 } });
    assert.deepEqual(
      page.ledgers.map((l) => l.sequence),
      [1, 2],
    );
    assert.equal(page.cursor, '2');
    const second = page.ledgers[1]!;
    // headerXdr is the LedgerHeaderHistoryEntry: the hash of the header it holds is the ledger's hash.
    assert.equal(second.headerXdr.header.ledgerSeq, 2);
    assert.equal(Buffer.from(second.headerXdr.hash.value).toString('hex'), second.hash);
    assert.equal(Buffer.from(hash(Buffer.from(second.headerXdr.header.toXdr()))).toString('hex'), second.hash);
    // Ledger 2 applied alice's creation: its close meta holds that transaction.
    assert.ok(second.metadataXdr.type === 'v2');
    assert.equal(second.metadataXdr.v2.txProcessing.length, 1);
    const next = await net.server.getLedgers({ pagination: { cursor: page.cursor, limit: 200 } });
    assert.equal(next.ledgers[0]!.sequence, 3);
    assert.equal(next.ledgers[next.ledgers.length - 1]!.sequence, next.latestLedger);
    assert.ok(next.latestLedger >= latest.sequence);
    const raw = (await call(net, 'getLedgers', { startLedger: 1, pagination: { limit: 1 } })).result;
    assert.equal(typeof raw.ledgers[0].ledgerCloseTime, 'string');
    assert.equal(typeof raw.latestLedgerCloseTime, 'number');
    const outside = await call(net, 'getLedgers', { startLedger: latest.sequence + 5 });
    assert.equal(outside.error.code, -32600);
    const both = await call(net, 'getLedgers', { startLedger: 1, pagination: { cursor: '1' } });
    assert.equal(both.error.code, -32600);
    const tooMany = await call(net, 'getLedgers', { startLedger: 1, pagination: { limit: 201 } });
    assert.equal(tooMany.error.message, 'limit must not exceed 200');
  });

  test('getVersionInfo says it is localnet; getFeeStats reads the fees of recent ledgers', async () => {
    const v = await net.server.getVersionInfo();
    assert.match(v.version, /localnet/);
    assert.equal(v.protocolVersion, 23);
    // Declaring 250 per operation still pays the base fee (100): without surge pricing, charged = min(declared, base).
    await submitOk(net, await build(net, alice, [Operation.bumpSequence({ bumpTo: '0' })], { fee: 250 }));
    const f = await net.server.getFeeStats();
    assert.equal(f.inclusionFee.max, '100');
    assert.equal(f.inclusionFee.p50, '100');
    assert.ok(Number(f.inclusionFee.transactionCount) >= 2);
    assert.equal(typeof f.inclusionFee.transactionCount, 'string');
    assert.equal(typeof f.inclusionFee.ledgerCount, 'number');
    assert.equal(f.sorobanInclusionFee.transactionCount, '0');
    assert.equal(f.latestLedger, (await net.server.getLatestLedger()).sequence);
  });

  test('simulateTransaction answers a failure as a result with an error (never a JSON-RPC error)', async () => {
    const contract = 'CA3D5KRYM6CB7OWQ6TWYRR3Z4T7GNZLKERYNZGGA5SOAOPIFY6YQGAXE';
    const invoke = await build(net, alice, [
      Operation.invokeContractFunction({ contract, function: 'hello', args: [] }),
    ]);
    const sim = await net.server.simulateTransaction(invoke);
    assert.ok(rpc.Api.isSimulationError(sim));
    // No such contract here (contract code itself is not executed: see contracts.test.ts).
    assert.match(sim.error, /contract not found/);
    assert.ok(sim.latestLedger > 0);
    const classic = await build(net, alice, [Operation.bumpSequence({ bumpTo: '0' })]);
    const sim2 = await net.server.simulateTransaction(classic);
    assert.ok(rpc.Api.isSimulationError(sim2));
    assert.equal(sim2.error, 'Transaction contains unsupported operation type: OperationTypeBumpSequence');
    const bad = await call(net, 'simulateTransaction', { transaction: 'AAAA' });
    assert.equal(bad.result.error, 'Could not unmarshal transaction');
  });

  test('getEvents: answers (classic transactions carry CAP-67 events: see events.test.ts) and validates its request', async () => {
    const latest = (await net.server.getLatestLedger()).sequence;
    const e = await net.server.getEvents({ startLedger: 1, endLedger: 3, filters: [] });
    // Ledger 2 holds alice's creation: root's fee event, then the createAccount transfer.
    assert.deepEqual(
      e.events.map((ev) => [ev.type, ev.transactionIndex, ev.operationIndex, ev.inSuccessfulContractCall]),
      [
        ['contract', 0, 0, true],
        ['contract', 1, 0, true],
      ],
    );
    assert.equal(e.latestLedger, latest);
    assert.match(e.cursor, /^\d{19}-\d{10}$/);
    const raw = (
      await call(net, 'getEvents', { startLedger: 1, filters: [{ type: 'contract' }], pagination: { limit: 10 } })
    ).result;
    assert.equal(typeof raw.latestLedgerCloseTime, 'string');
    assert.equal(raw.events[0].inSuccessfulContractCall, true);
    const outOfRange = await call(net, 'getEvents', { startLedger: latest + 10 });
    assert.equal(outOfRange.error.code, -32600);
    const sixFilters = await call(net, 'getEvents', { startLedger: 1, filters: Array.from({ length: 6 }, () => ({})) });
    assert.deepEqual([sixFilters.error.code, sixFilters.error.message], [-32602, 'maximum 5 filters per request']);
    const bigLimit = await call(net, 'getEvents', { startLedger: 1, pagination: { limit: 10001 } });
    assert.equal(bigLimit.error.code, -32602);
    const noStart = await call(net, 'getEvents', { filters: [] });
    assert.equal(noStart.error.message, 'startLedger must be positive');
    const badType = await call(net, 'getEvents', { startLedger: 1, filters: [{ type: 'diagnostic' }] });
    assert.equal(badType.error.code, -32602);
  });

  test('JSON-RPC envelope errors: -32700 invalid JSON, -32600 no version, -32601 unknown method, -32602 bad params', async () => {
    assert.equal((await rawRpc(net, '{not json')).json.error.code, -32700);
    assert.equal((await rawRpc(net, { id: 1, method: 'getHealth' })).json.error.code, -32600);
    const unknown = await call(net, 'getLedgerEntry', {});
    assert.equal(unknown.error.code, -32601);
    assert.equal((await call(net, 'getTransaction', { hash: 42 })).error.code, -32602);
    assert.equal(
      (await rawRpc(net, { jsonrpc: '2.0', id: 7, method: 'getHealth', params: [] })).json.error.code,
      -32602,
    );
    // The SDK throws the error object as is.
    await assert.rejects(net.server.getTransaction('zz'), (err: { code: number }) => err.code === -32602);
  });

  test('getLedgerEntries: request order, missing keys omitted, extXdr; TTL, undecodable and >200 keys are -32602', async () => {
    const ghost = Keypair.random().publicKey();
    const keys = [accountLedgerKey(ghost), accountLedgerKey(alice.publicKey()), accountLedgerKey(net.root.publicKey())];
    const r = await net.server.getLedgerEntries(...keys);
    assert.equal(r.entries.length, 2);
    assert.equal(r.entries[0]!.key.toXdr('base64'), keys[1]!.toXdr('base64'));
    assert.equal(r.entries[1]!.key.toXdr('base64'), keys[2]!.toXdr('base64'));
    const raw = await rawEntries(net, keys);
    assert.equal(xdr.LedgerEntryExt.fromXdr(raw[0]!.extXdr, 'base64').type, 'v0');
    assert.equal(typeof raw[0]!.lastModifiedLedgerSeq, 'number');
    const noLine = await net.server.getLedgerEntries(
      trustlineLedgerKey(alice.publicKey(), new Asset('USD', net.root.publicKey())),
    );
    assert.deepEqual(noLine.entries, []);

    const ttl = xdr.LedgerKey.ttl(new xdr.LedgerKeyTtl({ keyHash: new Uint8Array(32) }));
    const ttlErr = await call(net, 'getLedgerEntries', { keys: [ttl.toXdr('base64')] });
    assert.deepEqual(
      [ttlErr.error.code, ttlErr.error.message],
      [-32602, 'ledger ttl entries cannot be queried directly'],
    );
    const junk = await call(net, 'getLedgerEntries', { keys: ['AAAA'] });
    assert.deepEqual([junk.error.code, junk.error.message], [-32602, 'cannot unmarshal key value AAAA at index 0']);
    const many = await call(net, 'getLedgerEntries', {
      keys: Array.from({ length: 201 }, () => keys[1]!.toXdr('base64')),
    });
    assert.deepEqual(
      [many.error.code, many.error.message],
      [-32602, 'key count (201) exceeds maximum supported (200)'],
    );
    const twoHundred = await call(net, 'getLedgerEntries', {
      keys: Array.from({ length: 200 }, () => keys[1]!.toXdr('base64')),
    });
    assert.equal(twoHundred.result.entries.length, 200);
    await assert.rejects(net.server.getAccount(ghost), /Account not found/);
  });

  test('GET / describes localnet; POST / answers like /rpc; CORS is open', async () => {
    const base = net.localnet.rpcUrl.replace(/\/rpc$/, '');
    const res = await fetch(`${base}/`);
    const body = (await res.json()) as { rpcUrl: string; networkPassphrase: string };
    assert.equal(body.rpcUrl, net.localnet.rpcUrl);
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
    const viaRoot = new rpc.Server(`${base}/`, { allowHttp: true });
    assert.equal((await viaRoot.getHealth()).status, 'healthy');
  });
});
