// The chain gateway against the in-process localnet (Stellar RPC semantics, ledgers closed on demand).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  Account,
  Asset,
  Keypair,
  Networks,
  Operation,
  TransactionBuilder,
  type Transaction,
} from '@stellar/stellar-sdk';
import { startLocalnet, type Localnet } from '../../localnet/index';
import { freePort } from '../freePort';
import {
  FriendbotUnavailableError,
  StellarUnavailableError,
  TransactionRejectedError,
  TransactionUnconfirmedError,
} from './errors';
import { availableStroops, createStellarGateway, minimumBalanceStroops, type StellarGateway } from './gateway';

const FAST_RETRY = { attempts: 4, initialDelayMs: 10, maxDelayMs: 50 };

describe('Stellar gateway (localnet)', () => {
  let net: Localnet;
  let gw: StellarGateway;
  let root: Keypair;

  before(async () => {
    net = await startLocalnet({ ledgerCloseMs: 'manual' });
    gw = createStellarGateway({
      network: 'testnet',
      rpcUrl: net.rpcUrl,
      networkPassphrase: net.networkPassphrase,
      retry: FAST_RETRY,
      confirmTimeoutMs: 2000,
    });
    root = Keypair.master(net.networkPassphrase);
  });
  after(() => net?.stop());

  async function build(
    source: Keypair,
    ops: ReturnType<typeof Operation.createAccount>[],
    signers: Keypair[] = [source],
    sequence?: string,
  ): Promise<Transaction> {
    const account = await gw.loadAccount(source.publicKey());
    const tx = new TransactionBuilder(new Account(source.publicKey(), sequence ?? account!.sequence), {
      fee: '100',
      networkPassphrase: net.networkPassphrase,
    });
    for (const op of ops) tx.addOperation(op);
    const built = tx.setTimeout(0).build();
    built.sign(...signers);
    return built;
  }

  /** Submits and confirms while closing a ledger, as the network would. */
  async function submitAndClose(tx: Transaction): Promise<{ hash: string; ledger: number }> {
    // Ledgers close until it is in one: a single close 20 ms after sending could race the sending on a busy machine.
    const closer = setInterval(() => void net.closeLedger(), 50);
    try {
      return await gw.submitAndConfirm(tx);
    } finally {
      clearInterval(closer);
    }
  }

  async function newAccount(balance = '100'): Promise<Keypair> {
    const kp = Keypair.random();
    await submitAndClose(
      await build(root, [Operation.createAccount({ destination: kp.publicKey(), startingBalance: balance })]),
    );
    return kp;
  }

  test('loadAccount reads sequence, balance, thresholds and reserve counters; a missing account is undefined', async () => {
    const kp = await newAccount('25.5');
    const account = await gw.loadAccount(kp.publicKey());
    assert.ok(account);
    assert.equal(account.address, kp.publicKey());
    assert.equal(account.balanceStroops, 255_000_000n);
    assert.match(account.sequence, /^\d+$/);
    assert.deepEqual(account.thresholds, { masterWeight: 1, low: 0, medium: 0, high: 0 });
    assert.equal(account.numSponsoring, 0);
    assert.equal(account.sponsor, undefined);
    const { baseReserveStroops, baseFeeStroops } = await gw.ledgerFigures();
    assert.equal(baseReserveStroops, 5_000_000n);
    assert.equal(baseFeeStroops, 100);
    assert.equal(minimumBalanceStroops(account, baseReserveStroops), 10_000_000n);
    assert.equal(availableStroops(account, baseReserveStroops), 245_000_000n);
    assert.equal(await gw.loadAccount(Keypair.random().publicKey()), undefined);
  });

  test('trustlines are read per asset, with their sponsor; missing lines are left out', async () => {
    const [issuer, holder, sponsor] = [await newAccount(), await newAccount(), await newAccount()];
    const usd = new Asset('USD', issuer.publicKey());
    const eur = `EUR:${issuer.publicKey()}`;
    await submitAndClose(
      await build(
        sponsor,
        [
          Operation.beginSponsoringFutureReserves({ sponsoredId: holder.publicKey() }),
          Operation.changeTrust({ asset: usd, source: holder.publicKey() }),
          Operation.endSponsoringFutureReserves({ source: holder.publicKey() }),
        ],
        [sponsor, holder],
      ),
    );
    const lines = await gw.trustlines(holder.publicKey(), [eur, `USD:${issuer.publicKey()}`]);
    assert.equal(lines.length, 1);
    assert.equal(lines[0]!.asset, `USD:${issuer.publicKey()}`);
    assert.equal(lines[0]!.authorized, true);
    assert.equal(lines[0]!.balanceStroops, 0n);
    assert.equal(lines[0]!.sponsor, sponsor.publicKey());
    const sponsorState = await gw.loadAccount(sponsor.publicKey());
    assert.equal(sponsorState!.numSponsoring, 1);
  });

  test('submit: PENDING, then confirm waits (NOT_FOUND) until the ledger closes', async () => {
    const tx = await build(root, [
      Operation.createAccount({ destination: Keypair.random().publicKey(), startingBalance: '1' }),
    ]);
    const hash = await gw.submit(tx);
    assert.equal((await gw.transactionStatus(hash)).status, 'NOT_FOUND');
    let confirmed = false;
    const confirming = gw.confirm(hash).then((r) => {
      confirmed = true;
      return r;
    });
    await new Promise((r) => setTimeout(r, 150));
    assert.equal(confirmed, false, 'confirmed before any ledger closed');
    const ledger = await net.closeLedger();
    assert.deepEqual(await confirming, { ledger: ledger.sequence });
    assert.deepEqual(await gw.transactionStatus(hash), { status: 'SUCCESS', hash, ledger: ledger.sequence });
  });

  test('submit: the same envelope again is DUPLICATE and yields the same hash', async () => {
    const tx = await build(root, [
      Operation.createAccount({ destination: Keypair.random().publicKey(), startingBalance: '1' }),
    ]);
    const first = await gw.submit(tx);
    assert.equal(await gw.submit(tx), first);
    setTimeout(() => void net.closeLedger(), 20);
    await gw.confirm(first);
  });

  test('submit: TRY_AGAIN_LATER (a second transaction from a busy source) is retried until a ledger frees the source', async () => {
    const source = await newAccount();
    const account = await gw.loadAccount(source.publicKey());
    const first = await build(source, [
      Operation.createAccount({ destination: Keypair.random().publicKey(), startingBalance: '1' }),
    ]);
    const second = await build(
      source,
      [Operation.createAccount({ destination: Keypair.random().publicKey(), startingBalance: '1' })],
      [source],
      (BigInt(account!.sequence) + 1n).toString(),
    );
    await gw.submit(first);
    const patient = createStellarGateway({
      network: 'testnet',
      rpcUrl: net.rpcUrl,
      networkPassphrase: net.networkPassphrase,
      retry: { attempts: 20, initialDelayMs: 20, maxDelayMs: 100 },
    });
    const closer = setInterval(() => void net.closeLedger(), 30);
    try {
      const hash = await patient.submit(second);
      await patient.confirm(hash);
    } finally {
      clearInterval(closer);
    }
  });

  test('submit: ERROR at submission is decoded to Horizon-style result codes', async () => {
    const source = await newAccount();
    const stale = await build(
      source,
      [Operation.createAccount({ destination: Keypair.random().publicKey(), startingBalance: '1' })],
      [source],
      '1',
    );
    await assert.rejects(gw.submit(stale), (err: unknown) => {
      assert.ok(err instanceof TransactionRejectedError);
      assert.equal(err.stage, 'submission');
      assert.deepEqual(err.codes, { transaction: 'tx_bad_seq', operations: [] });
      return true;
    });
  });

  test('confirm: FAILED in the ledger throws with the operation codes', async () => {
    const source = await newAccount('10');
    const tx = await build(source, [
      Operation.payment({ destination: Keypair.random().publicKey(), asset: Asset.native(), amount: '1' }),
    ]);
    await assert.rejects(submitAndClose(tx), (err: unknown) => {
      assert.ok(err instanceof TransactionRejectedError);
      assert.equal(err.stage, 'ledger');
      assert.deepEqual(err.codes, { transaction: 'tx_failed', operations: ['op_no_destination'] });
      return true;
    });
  });

  test('confirm: a transaction in no ledger by the deadline is unconfirmed (not failed)', async () => {
    const tx = await build(root, [
      Operation.createAccount({ destination: Keypair.random().publicKey(), startingBalance: '1' }),
    ]);
    const hash = await gw.submit(tx);
    await assert.rejects(gw.confirm(hash, { timeoutMs: 100 }), TransactionUnconfirmedError);
    setTimeout(() => void net.closeLedger(), 20);
    await gw.confirm(hash);
  });

  test('friendbot funds a new account once; a second call finds it already funded', async () => {
    const kp = Keypair.random();
    assert.equal(await gw.fundWithFriendbot(kp.publicKey()), 'funded');
    assert.equal((await gw.loadAccount(kp.publicKey()))!.balanceStroops, 100_000_000_000n);
    assert.equal(await gw.fundWithFriendbot(kp.publicKey()), 'already_funded');
  });

  test('friendbot unreachable: FriendbotUnavailableError; mainnet has none', async () => {
    const port = await freePort();
    const offline = createStellarGateway({
      network: 'testnet',
      rpcUrl: net.rpcUrl,
      networkPassphrase: net.networkPassphrase,
      friendbotUrl: `http://127.0.0.1:${port}/friendbot`,
      retry: FAST_RETRY,
    });
    await assert.rejects(offline.fundWithFriendbot(Keypair.random().publicKey()), FriendbotUnavailableError);
    const mainnet = createStellarGateway({
      network: 'mainnet',
      rpcUrl: net.rpcUrl,
      networkPassphrase: Networks.PUBLIC,
      retry: FAST_RETRY,
    });
    await assert.rejects(mainnet.fundWithFriendbot(Keypair.random().publicKey()), FriendbotUnavailableError);
  });

  test('ledgerFigures: fresh unless a maximum age is given; figures read within it are shared', async () => {
    const first = await gw.ledgerFigures();
    await net.closeLedger();
    const shared = await gw.ledgerFigures({ maxAgeMs: 60_000 });
    assert.equal(shared.sequence, first.sequence, 'within the age: the figures already read');
    const fresh = await gw.ledgerFigures();
    assert.equal(fresh.sequence, first.sequence + 1, 'without an age: read now');
    assert.equal((await gw.ledgerFigures({ maxAgeMs: 60_000 })).sequence, fresh.sequence, 'a fresh read is shared');
    await net.closeLedger();
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal((await gw.ledgerFigures({ maxAgeMs: 1 })).sequence, fresh.sequence + 1, 'older than the age: read');
  });

  test('RPC unreachable: reads and submissions give StellarUnavailableError after the retries', async () => {
    const port = await freePort();
    const down = createStellarGateway({
      network: 'testnet',
      rpcUrl: `http://127.0.0.1:${port}/rpc`,
      networkPassphrase: net.networkPassphrase,
      retry: FAST_RETRY,
    });
    await assert.rejects(down.loadAccount(root.publicKey()), StellarUnavailableError);
    const tx = await build(root, [
      Operation.createAccount({ destination: Keypair.random().publicKey(), startingBalance: '1' }),
    ]);
    await assert.rejects(down.submit(tx), StellarUnavailableError);
    assert.equal((await down.health()).healthy, false);
  });

  /**
   * A gateway on an RPC that relays to the localnet and lets `tamper` rewrite a method's result (the chain's answers
   * are hostile until checked), with the real gateway's answers to compare against.
   */
  async function withTamperedRpc(
    tamper: (method: string, result: Record<string, unknown>) => void,
    run: (tampered: StellarGateway) => Promise<void>,
  ): Promise<void> {
    const relay = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        void (async () => {
          const method = (JSON.parse(body) as { method: string }).method;
          const answer = (await (
            await fetch(net.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
          ).json()) as { result?: Record<string, unknown> };
          if (answer.result) tamper(method, answer.result);
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
        })();
      });
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    try {
      await run(
        createStellarGateway({
          network: 'testnet',
          rpcUrl: `http://127.0.0.1:${(relay.address() as AddressInfo).port}/rpc`,
          networkPassphrase: net.networkPassphrase,
          retry: FAST_RETRY,
        }),
      );
    } finally {
      relay.closeAllConnections();
      await new Promise((resolve) => relay.close(resolve));
    }
  }

  test('ledgerFigures reads only the header: a ledger meta it cannot decode is no matter, a hostile header is', async () => {
    await net.closeLedger();
    const figures = await gw.ledgerFigures();
    await withTamperedRpc(
      (method, result) => {
        if (method === 'getLatestLedger') result.metadataXdr = 'not XDR at all';
      },
      async (tampered) => assert.deepEqual(await tampered.ledgerFigures(), figures),
    );
    const hostile: [string, (result: Record<string, unknown>) => void][] = [
      ['a header of another ledger', (r) => (r.sequence = (r.sequence as number) + 1)],
      ['a header with a NUL and invalid UTF-8', (r) => (r.headerXdr = '\u0000\ud800')],
      ['a megabyte of header', (r) => (r.headerXdr = 'A'.repeat(1 << 20))],
      ['a close time named after Object.prototype', (r) => (r.closeTime = '__proto__')],
      ['a sequence that is an object', (r) => (r.sequence = { valueOf: 1 })],
    ];
    for (const [what, rewrite] of hostile)
      await withTamperedRpc(
        (method, result) => {
          if (method === 'getLatestLedger') rewrite(result);
        },
        async (tampered) => await assert.rejects(tampered.ledgerFigures(), StellarUnavailableError, what),
      );
  });

  test('transaction lookups decode only the result: an unreadable meta is no matter, a missing or hostile result is', async () => {
    const { hash, ledger } = await submitAndClose(
      await build(root, [Operation.createAccount({ destination: Keypair.random().publicKey(), startingBalance: '1' })]),
    );
    const details = await gw.transactionDetails(hash);
    assert.equal(details?.ledger, ledger);
    await withTamperedRpc(
      (method, result) => {
        if (method === 'getTransaction') {
          result.resultMetaXdr = 'not XDR at all';
          result.diagnosticEventsXdr = ['not XDR either'];
        }
      },
      async (tampered) => {
        assert.deepEqual(await tampered.transactionDetails(hash), details);
        assert.deepEqual(await tampered.transactionStatus(hash), { status: 'SUCCESS', hash, ledger });
      },
    );
    const hostile: [string, (result: Record<string, unknown>) => void][] = [
      ['no result', (r) => delete r.resultXdr],
      ['a result with a NUL and invalid UTF-8', (r) => (r.resultXdr = '\u0000\ud800')],
      ['a megabyte of result', (r) => (r.resultXdr = 'A'.repeat(1 << 20))],
      ['a ledger named after Object.prototype', (r) => (r.ledger = 'constructor')],
      ['a status named after Object.prototype', (r) => (r.status = 'toString')],
    ];
    for (const [what, rewrite] of hostile)
      await withTamperedRpc(
        (method, result) => {
          if (method === 'getTransaction') rewrite(result);
        },
        async (tampered) => {
          await assert.rejects(tampered.transactionDetails(hash), StellarUnavailableError, what);
          await assert.rejects(tampered.transactionStatus(hash), StellarUnavailableError, what);
        },
      );
  });
});
