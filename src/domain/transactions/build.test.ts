// buildUserTransaction against a scripted chain (no network, no database): the request checks, the order of the
// refusals, and the transaction's fee, sequence, time bounds, memo and words. tests/integration/txBuild.test.ts
// builds every operation on the in-process localnet.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Keypair, Networks } from '@stellar/stellar-sdk';
import type { App } from '../apps/store';
import { AppError, appErrorOf } from '../errors';
import { StellarUnavailableError } from '../../infra/stellar/errors';
import type { AccountState, StellarGateway, TrustlineState } from '../../infra/stellar/gateway';
import type { WalletRecord } from '../wallets/store';
import { buildUserTransaction, type BuildRequest } from './build';

const wallet = Keypair.random().publicKey();
const other = Keypair.random().publicKey();
const issuer = Keypair.random().publicKey();
const USDC = `USDC:${issuer}`;
const NOW = new Date('2030-01-01T00:00:00Z');
const NOW_S = NOW.getTime() / 1000;

const app = { id: 'app_1', network: 'testnet', assets: [USDC] } as App;
const walletRecord = { id: 'wal_1', publicKey: wallet, network: 'testnet', fundingState: 'funded' } as WalletRecord;

function account(address: string, sequence = '4294967296'): AccountState {
  return {
    address,
    sequence,
    balanceStroops: 100_000_000n,
    sellingLiabilitiesStroops: 0n,
    numSubEntries: 1,
    numSponsoring: 0,
    numSponsored: 0,
    thresholds: { masterWeight: 1, low: 0, medium: 0, high: 0 },
    sponsor: undefined,
  };
}

const line = (asset: string, balanceStroops = 0n): TrustlineState => ({
  asset,
  balanceStroops,
  limitStroops: 1n << 62n,
  sellingLiabilitiesStroops: 0n,
  buyingLiabilitiesStroops: 0n,
  authorized: true,
  sponsor: undefined,
});

/** A chain of these accounts and trustlines; `down` makes every read fail as an unreachable RPC does. */
function chain(
  opts: { accounts?: string[]; lines?: Record<string, TrustlineState[]>; closeTime?: number; down?: boolean } = {},
) {
  const reads: string[] = [];
  const unavailable = () => {
    throw new StellarUnavailableError('Stellar RPC getLedgerEntries failed: ECONNREFUSED');
  };
  const gw = {
    network: 'testnet',
    networkPassphrase: Networks.TESTNET,
    async ledgerFigures() {
      reads.push('ledgerFigures');
      if (opts.down) unavailable();
      return { sequence: 10, closeTime: opts.closeTime ?? NOW_S, baseReserveStroops: 5_000_000n, baseFeeStroops: 100 };
    },
    async loadAccounts(addresses: string[]) {
      reads.push('loadAccounts');
      if (opts.down) unavailable();
      const known = new Set(opts.accounts ?? [wallet, other, issuer]);
      return new Map(addresses.filter((a) => known.has(a)).map((a) => [a, account(a)]));
    },
    async trustlines(address: string, assets: string[]) {
      reads.push('trustlines');
      if (opts.down) unavailable();
      return (opts.lines?.[address] ?? []).filter((l) => assets.includes(l.asset));
    },
  } as unknown as StellarGateway;
  const deps = {
    db: undefined as never,
    clock: { now: () => NOW },
    stellar: { rpcUrls: {}, gateways: { testnet: gw } },
  };
  return { deps, reads };
}

const trusting = { [wallet]: [line(USDC, 50_000_000n)], [other]: [line(USDC)] };

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (err) {
    const appError = appErrorOf(err); // what the client sees: src/domain/errors.ts maps infra failures
    assert.ok(appError, String(err));
    return appError;
  }
  assert.fail('expected a refusal');
}

const build = (c: ReturnType<typeof chain>, request: BuildRequest, w: WalletRecord = walletRecord) =>
  buildUserTransaction(c.deps, { app, wallet: w, ...request });

describe('buildUserTransaction: the request (400)', () => {
  test('every field problem at once, before any chain read', async () => {
    const c = chain();
    const err = await refusal(
      build(c, {
        operation: {
          type: 'pathPaymentStrictReceive',
          sendAsset: `USDC:${issuer.slice(0, -1)}${issuer.endsWith('A') ? 'B' : 'A'}`, // a broken checksum
          sendMax: '0',
          destination: `${other.slice(0, -1)}${other.endsWith('A') ? 'B' : 'A'}`,
          destAsset: 'native',
          destAmount: '922337203685.4775808',
          path: ['native', 'native', 'native', 'native', 'native', 'native'],
        },
        memo: { type: 'id', value: '18446744073709551616' },
        timeoutSeconds: 60,
      }),
    );
    assert.equal(err.code, 'VALIDATION_ERROR');
    assert.deepEqual(Object.keys(err.details!.fieldErrors as object).sort(), [
      'memo.value',
      'operation.destAmount',
      'operation.destination',
      'operation.path',
      'operation.sendAsset',
      'operation.sendMax',
    ]);
    assert.deepEqual(c.reads, []);
  });

  test('amounts must be greater than zero', async () => {
    const err = await refusal(
      build(chain(), {
        operation: { type: 'payment', destination: other, asset: USDC, amount: '0.0000000' },
        timeoutSeconds: 60,
      }),
    );
    assert.deepEqual(err.details, { fieldErrors: { 'operation.amount': ['must be greater than 0'] } });
  });

  test('memo and operation.memo together; a text memo over 28 bytes of UTF-8 (not characters)', async () => {
    const both = await refusal(
      build(chain(), {
        operation: { type: 'payment', destination: other, asset: USDC, amount: '1', memo: 'a' },
        memo: { type: 'text', value: 'b' },
        timeoutSeconds: 60,
      }),
    );
    assert.equal(both.code, 'VALIDATION_ERROR');
    assert.ok((both.details!.fieldErrors as Record<string, string[]>).memo);
    const long = await refusal(
      build(chain(), {
        operation: { type: 'payment', destination: other, asset: USDC, amount: '1', memo: 'é'.repeat(15) },
        timeoutSeconds: 60,
      }),
    );
    assert.deepEqual(long.details, { fieldErrors: { 'operation.memo': ['must be at most 28 bytes of UTF-8'] } });
  });

  test('a trustline for XLM', async () => {
    const err = await refusal(
      build(chain(), { operation: { type: 'changeTrust', asset: 'native', action: 'add' }, timeoutSeconds: 60 }),
    );
    assert.equal(err.code, 'VALIDATION_ERROR');
    assert.ok((err.details!.fieldErrors as Record<string, string[]>)['operation.asset']);
  });
});

describe('buildUserTransaction: the wallet, the app, the chain', () => {
  const pay = (amount = '10', destination = other, asset = USDC): BuildRequest => ({
    operation: { type: 'payment', destination, asset, amount },
    timeoutSeconds: 60,
  });

  test('409 WALLET_NOT_FUNDED for an unfunded wallet (nothing read) and for a wallet with no account on the chain', async () => {
    const c = chain();
    assert.equal(
      (await refusal(build(c, pay(), { ...walletRecord, fundingState: 'activating' }))).code,
      'WALLET_NOT_FUNDED',
    );
    assert.deepEqual(c.reads, []);
    assert.equal((await refusal(build(chain({ accounts: [other] }), pay()))).code, 'WALLET_NOT_FUNDED');
  });

  test('422 TX_UNSUPPORTED_OPERATION for an asset the app has not configured', async () => {
    const err = await refusal(build(chain(), pay('1', other, `EURC:${issuer}`)));
    assert.equal(err.code, 'TX_UNSUPPORTED_OPERATION');
    assert.match(err.message, /EURC:G\w+ is not an asset of this app/);
  });

  test('422 SDK_TX_BUILD_ERROR for a payment to the wallet itself', async () => {
    const err = await refusal(build(chain({ lines: trusting }), pay('1', wallet)));
    assert.equal(err.code, 'SDK_TX_BUILD_ERROR');
    assert.match(err.message, /the wallet itself/);
  });

  test('422 SDK_TX_BUILD_ERROR for removing an empty trustline that open buy offers may still fill', async () => {
    const remove: BuildRequest = {
      operation: { type: 'changeTrust', asset: USDC, action: 'remove' },
      timeoutSeconds: 60,
    };
    const buying = { [wallet]: [{ ...line(USDC), buyingLiabilitiesStroops: 25_000_000n }] };
    const err = await refusal(build(chain({ lines: buying }), remove));
    assert.equal(err.code, 'SDK_TX_BUILD_ERROR');
    assert.match(err.message, /may still buy 2\.5 USDC; cancel them/);
    const built = await build(chain({ lines: { [wallet]: [line(USDC)] } }), remove);
    assert.equal(built.description.operation, 'changeTrust');
  });

  test('503 STELLAR_UNAVAILABLE when the RPC cannot be reached', async () => {
    const err = await refusal(build(chain({ down: true }), pay()));
    assert.equal(err.code, 'STELLAR_UNAVAILABLE');
    assert.equal(err.status, 503);
  });

  test('a payment: sequence + 1, base fee per operation, time bound from the later of our clock and the ledger, memo, words', async () => {
    const built = await build(chain({ lines: trusting, closeTime: NOW_S + 7 }), {
      ...pay('10.50'),
      memo: { type: 'text', value: 'order 42' },
    });
    const { tx } = built;
    assert.equal(tx.source, wallet);
    assert.equal(tx.sequence, '4294967297');
    assert.equal(tx.fee, '100');
    assert.deepEqual(tx.timeBounds, { minTime: '0', maxTime: String(NOW_S + 7 + 60) });
    assert.equal(built.validUntil.getTime(), (NOW_S + 7 + 60) * 1000);
    assert.equal(tx.networkPassphrase, Networks.TESTNET);
    assert.equal(tx.signatures.length, 0);
    assert.deepEqual(
      tx.operations.map((o) => o.type),
      ['payment'],
    );
    assert.equal(built.estimatedFeeStroops, 200n);
    assert.deepEqual(built.cosigners, []);
    assert.equal(built.description.amount, '10.5');
    assert.deepEqual(built.summary, {
      title: 'Send 10.5 USDC',
      lines: [
        `To ${other.slice(0, 4)}...${other.slice(-4)}`,
        'Amount 10.5 USDC',
        'Memo order 42',
        'Network fee 0.0000200 XLM, paid by the app',
      ],
    });
  });

  test('paying the issuer needs no trustline of the issuer', async () => {
    const built = await build(chain({ lines: { [wallet]: [line(USDC, 1n)] } }), pay('1', issuer));
    assert.deepEqual(
      built.tx.operations.map((o) => o.type),
      ['payment'],
    );
  });
});
