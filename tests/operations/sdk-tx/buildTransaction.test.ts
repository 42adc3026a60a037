// buildUserTransaction (the domain part of buildTransaction / runTransaction) on the service's in-process localnet:
// each build refusal with its contract code, and a payment, a path payment and a sponsored trustline's add and remove
// built correctly: the XDR is decoded and checked, then signed (wallet, and the funding wallet for the sponsorship),
// wrapped in the gas wallet's fee-bump and applied, so the ledger confirms the built transaction is the right one.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Account, Asset, Keypair, Operation, TransactionBuilder, type Transaction } from '@stellar/stellar-sdk';
import type { App } from '../../../src/domain/apps/store';
import { SYSTEM_ACTOR } from '../../../src/domain/audit/auditLog';
import { AppError } from '../../../src/domain/errors';
import { buildUserTransaction, type BuildRequest, type BuiltTx } from '../../../src/domain/transactions/build';
import { sponsorFee } from '../../../src/domain/transactions/feeBump';
import { withWalletKeypair } from '../../../src/domain/wallets/custody';
import { fundUserWallet } from '../../../src/domain/funding/funding';
import type { WalletRecord } from '../../../src/domain/wallets/store';
import { fromStroops } from '../../../src/domain/money/amounts';
import { availableStroops, type StellarGateway } from '../../../src/infra/stellar/gateway';
import { startTestService, type TestService } from '../../support/service';
import { appWithWallet, gatewayOf, issuer, payFromIssuer, reload, userWallet } from '../../support/funding';

let svc: TestService;
let gw: StellarGateway;
let issuerKp: Keypair;
let USDC: string;
let EURC: string;
/** The app trusts USDC at activation and has EURC configured later (so EURC lines are added by buildTransaction). */
let app: App;
let appWallet: WalletRecord;

before(async () => {
  svc = await startTestService({}, { closeLedgersEveryMs: 100 });
  gw = gatewayOf(svc);
  const issued = await issuer(svc, ['USDC', 'EURC']);
  [USDC, EURC] = issued.assets as [string, string];
  issuerKp = issued.keypair;
  const setup = await appWithWallet(svc, { settings: { assets: [USDC] } });
  appWallet = setup.appWallet;
  app = { ...setup.app, assets: [USDC, EURC] };
});
after(async () => {
  await svc?.stop();
});

/** A user wallet of `forApp`, activated (with a sponsored trustline per asset configured at activation). */
async function fundedWallet(forApp: App = app, activationAssets = [USDC]): Promise<WalletRecord> {
  const wallet = await userWallet(svc, forApp);
  await fundUserWallet(svc.deps, {
    app: { ...forApp, assets: activationAssets },
    wallet,
    trigger: 'server_api',
    actor: SYSTEM_ACTOR,
  });
  return reload(svc, wallet);
}

const build = (
  wallet: WalletRecord,
  request: Omit<BuildRequest, 'timeoutSeconds'> & { timeoutSeconds?: number },
  forApp: App = app,
) => buildUserTransaction(svc.deps, { app: forApp, wallet, timeoutSeconds: 60, ...request });

async function refused(promise: Promise<unknown>, code: string, message?: RegExp): Promise<AppError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof AppError, String(err));
    assert.equal(err.code, code, err.message);
    if (message) assert.match(err.message, message);
    return err;
  }
  assert.fail(`expected ${code}`);
}

/** The built XDR as a client receives it. */
function decoded(built: BuiltTx): Transaction {
  return TransactionBuilder.fromXDR(built.tx.toXDR(), gw.networkPassphrase) as Transaction;
}

/** Signs as the service will (wallet, cosigners), wraps in the gas wallet's fee-bump and applies it. */
async function apply(built: BuiltTx, signers: WalletRecord[]): Promise<void> {
  const inner = decoded(built);
  for (const w of signers) {
    await withWalletKeypair(svc.deps, { walletId: w.id, purpose: 'tx.sign', actor: SYSTEM_ACTOR }, async (kp) =>
      inner.sign(kp),
    );
  }
  const bump = await sponsorFee(svc.deps, {
    gasWallet: appWallet,
    inner,
    networkPassphrase: gw.networkPassphrase,
    actor: SYSTEM_ACTOR,
  });
  await gw.submitAndConfirm(bump);
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

describe('built correctly', () => {
  test('a USDC payment with a memo: wallet source, next sequence, base fee, time bound, words; it applies', async () => {
    const [from, to] = [await fundedWallet(), await fundedWallet()];
    await payFromIssuer(svc, issuerKp, from.publicKey, USDC, '20');
    const sequence = (await gw.loadAccount(from.publicKey))!.sequence;
    const figures = await gw.ledgerFigures();
    const before = nowSeconds();
    const built = await build(from, {
      operation: { type: 'payment', destination: to.publicKey, asset: USDC, amount: '10' },
      memo: { type: 'text', value: 'order 42' },
      timeoutSeconds: 30,
    });

    const tx = decoded(built);
    assert.equal(tx.source, from.publicKey);
    assert.equal(tx.sequence, (BigInt(sequence) + 1n).toString());
    assert.equal(tx.fee, String(figures.baseFeeStroops));
    assert.equal(tx.signatures.length, 0);
    assert.equal(tx.memo.type, 'text');
    assert.equal(Buffer.from(tx.memo.value as Uint8Array).toString(), 'order 42');
    const maxTime = Number(tx.timeBounds!.maxTime);
    assert.equal(tx.timeBounds!.minTime, '0');
    assert.ok(maxTime >= before + 30 && maxTime <= nowSeconds() + 31, `maxTime ${maxTime} is 30 s from now`);
    assert.equal(built.validUntil.getTime(), maxTime * 1000);
    assert.equal(tx.operations.length, 1);
    const op = tx.operations[0]!;
    assert.ok(op.type === 'payment');
    assert.deepEqual(
      [op.source, op.destination, `${op.asset.getCode()}:${op.asset.getIssuer()}`, op.amount],
      [undefined, to.publicKey, USDC, '10.0000000'],
    );
    assert.equal(built.estimatedFeeStroops, BigInt(figures.baseFeeStroops) * 2n);
    assert.deepEqual(built.cosigners, []);
    assert.equal(built.summary.title, 'Send 10 USDC');
    assert.deepEqual(built.summary.lines.slice(1), [
      'Amount 10 USDC',
      'Memo order 42',
      'Network fee 0.0000200 XLM, paid by the app',
    ]);

    await apply(built, [from]);
    const [line] = await gw.trustlines(to.publicKey, [USDC]);
    assert.equal(line!.balanceStroops, 100_000_000n);
  });

  test('a sponsored trustline add (funding wallet begins, wallet trusts and ends) and its remove (limit 0); both apply', async () => {
    const wallet = await fundedWallet();
    const funding = appWallet; // the single layout: the global wallet does the funding duty
    const added = await build(wallet, { operation: { type: 'changeTrust', asset: EURC, action: 'add' } });
    const tx = decoded(added);
    assert.equal(tx.source, wallet.publicKey);
    assert.deepEqual(
      tx.operations.map((o) => [o.type, o.source ?? tx.source]),
      [
        ['beginSponsoringFutureReserves', funding.publicKey],
        ['changeTrust', wallet.publicKey],
        ['endSponsoringFutureReserves', wallet.publicKey],
      ],
    );
    const [begin, change] = tx.operations;
    assert.equal(begin!.type === 'beginSponsoringFutureReserves' && begin.sponsoredId, wallet.publicKey);
    assert.equal(change!.type === 'changeTrust' && change.limit, '922337203685.4775807');
    assert.equal(tx.fee, '300');
    assert.equal(added.estimatedFeeStroops, 400n);
    assert.deepEqual(added.cosigners, ['funding']);
    assert.equal(added.summary.title, 'Add EURC trustline');
    assert.ok(added.summary.lines.includes('Reserve 0.5 XLM, sponsored by the app'), added.summary.lines.join(' | '));
    assert.equal(added.summary.lines.at(-1), 'Network fee 0.0000400 XLM, paid by the app');
    assert.equal(added.description.operation, 'changeTrust');

    await apply(added, [wallet, funding]);
    const [line] = await gw.trustlines(wallet.publicKey, [EURC]);
    assert.equal(line?.sponsor, funding.publicKey, 'the funding wallet sponsors the new line');

    const removed = await build(wallet, { operation: { type: 'changeTrust', asset: EURC, action: 'remove' } });
    const rtx = decoded(removed);
    assert.deepEqual(
      rtx.operations.map((o) => [o.type, o.source ?? rtx.source, o.type === 'changeTrust' ? o.limit : null]),
      [['changeTrust', wallet.publicKey, '0.0000000']],
    );
    assert.deepEqual(removed.cosigners, []);
    assert.equal(removed.summary.title, 'Remove EURC trustline');
    await apply(removed, [wallet]);
    assert.deepEqual(await gw.trustlines(wallet.publicKey, [EURC]), []);
  });

  test('path payments: the path passed through (default none), to another account or a swap to oneself', async () => {
    const [from, to] = [await fundedWallet(), await fundedWallet()];
    const send = await build(from, {
      operation: {
        type: 'pathPaymentStrictSend',
        sendAsset: USDC,
        sendAmount: '5',
        destination: to.publicKey,
        destAsset: 'native',
        destMin: '1',
      },
    });
    const op = decoded(send).operations[0]!;
    assert.equal(op.type, 'pathPaymentStrictSend');
    assert.deepEqual(op.type === 'pathPaymentStrictSend' && [op.sendAmount, op.destMin, op.destination, op.path], [
      '5.0000000',
      '1.0000000',
      to.publicKey,
      [],
    ]);

    const swap = await build(from, {
      operation: {
        type: 'pathPaymentStrictReceive',
        sendAsset: 'native',
        sendMax: '3',
        destination: from.publicKey,
        destAsset: USDC,
        destAmount: '1',
        path: [EURC],
      },
    });
    const sop = decoded(swap).operations[0]!;
    assert.deepEqual(sop.type === 'pathPaymentStrictReceive' && sop.path.map((a) => a.getCode()), ['EURC']);
    assert.equal(swap.summary.title, 'Swap XLM for 1 USDC');
  });

  test("paying the asset's issuer needs no trustline of the issuer", async () => {
    const from = await fundedWallet();
    const built = await build(from, {
      operation: { type: 'payment', destination: issuerKp.publicKey(), asset: USDC, amount: '1' },
    });
    assert.equal(decoded(built).operations[0]!.type, 'payment');
  });
});

describe('refused', () => {
  test('400 VALIDATION_ERROR: a zero amount; memo and operation.memo together', async () => {
    const wallet = await fundedWallet();
    const zero = await refused(
      build(wallet, { operation: { type: 'payment', destination: issuerKp.publicKey(), asset: USDC, amount: '0' } }),
      'VALIDATION_ERROR',
    );
    assert.deepEqual(zero.details, { fieldErrors: { 'operation.amount': ['must be greater than 0'] } });
    await refused(
      build(wallet, {
        operation: { type: 'payment', destination: issuerKp.publicKey(), asset: USDC, amount: '1', memo: 'a' },
        memo: { type: 'id', value: '1' },
      }),
      'VALIDATION_ERROR',
    );
  });

  test('409 WALLET_NOT_FUNDED: an unfunded wallet, and a wallet marked funded whose account is not on the chain', async () => {
    const unfunded = await userWallet(svc, app);
    const pay: Omit<BuildRequest, 'timeoutSeconds'> = {
      operation: { type: 'payment', destination: issuerKp.publicKey(), asset: 'native', amount: '1' },
    };
    await refused(build(unfunded, pay), 'WALLET_NOT_FUNDED');
    await refused(
      build({ ...unfunded, fundingState: 'funded' }, pay),
      'WALLET_NOT_FUNDED',
      /does not exist on testnet/,
    );
  });

  test('422 SDK_TX_BUILD_ERROR: the destination does not exist, is the wallet itself, or has no trustline; the wallet has none', async () => {
    const wallet = await fundedWallet();
    const pay = (destination: string, asset = USDC) =>
      build(wallet, { operation: { type: 'payment', destination, asset, amount: '1' } });
    await refused(
      pay(Keypair.random().publicKey()),
      'SDK_TX_BUILD_ERROR',
      /^The destination account does not exist on testnet$/,
    );
    await refused(pay(wallet.publicKey), 'SDK_TX_BUILD_ERROR', /the wallet itself/);
    const stranger = Keypair.random().publicKey();
    await gw.fundWithFriendbot(stranger);
    await refused(pay(stranger), 'SDK_TX_BUILD_ERROR', /^The destination account has no USDC trustline$/);
    await refused(pay(issuerKp.publicKey(), EURC), 'SDK_TX_BUILD_ERROR', /^The wallet has no EURC trustline$/);
    await refused(
      build(wallet, {
        operation: {
          type: 'pathPaymentStrictSend',
          sendAsset: 'native',
          sendAmount: '1',
          destination: stranger,
          destAsset: USDC,
          destMin: '1',
        },
      }),
      'SDK_TX_BUILD_ERROR',
      /destination account has no USDC trustline/,
    );
  });

  test('422 TX_UNSUPPORTED_OPERATION: a payment or a new trustline in an asset the app has not configured', async () => {
    const wallet = await fundedWallet();
    const {
      assets: [GOLD],
    } = await issuer(svc, ['GOLD']);
    await refused(
      build(wallet, { operation: { type: 'payment', destination: issuerKp.publicKey(), asset: GOLD!, amount: '1' } }),
      'TX_UNSUPPORTED_OPERATION',
      /not an asset of this app/,
    );
    await refused(
      build(wallet, { operation: { type: 'changeTrust', asset: GOLD!, action: 'add' } }),
      'TX_UNSUPPORTED_OPERATION',
      /not an asset of this app/,
    );
  });

  test('changeTrust: add an existing line, remove a missing one (422); remove a line holding 3.5 USDC (409 TRUSTLINE_HAS_BALANCE)', async () => {
    const wallet = await fundedWallet();
    await refused(
      build(wallet, { operation: { type: 'changeTrust', asset: USDC, action: 'add' } }),
      'SDK_TX_BUILD_ERROR',
      /already has a USDC trustline/,
    );
    await refused(
      build(wallet, { operation: { type: 'changeTrust', asset: EURC, action: 'remove' } }),
      'SDK_TX_BUILD_ERROR',
      /^The wallet has no EURC trustline$/,
    );
    await payFromIssuer(svc, issuerKp, wallet.publicKey, USDC, '3.5');
    const err = await refused(
      build(wallet, { operation: { type: 'changeTrust', asset: USDC, action: 'remove' } }),
      'TRUSTLINE_HAS_BALANCE',
    );
    assert.equal(err.message, 'The USDC trustline still holds 3.5 USDC');
    assert.equal(err.status, 409);
  });

  test('402 INSUFFICIENT_FUNDS_FOR_TRUSTLINE: the funding wallet cannot cover the 0.5 XLM reserve', async () => {
    const other = await appWithWallet(svc, { settings: { assets: [USDC, EURC] } });
    const wallet = await fundedWallet(other.app, []);
    // Drain the funding wallet down to 0.4 XLM available.
    const figures = await gw.ledgerFigures();
    const state = (await gw.loadAccount(other.appWallet.publicKey))!;
    const spare = availableStroops(state, figures.baseReserveStroops) - 4_000_000n - 100n;
    const drain = new TransactionBuilder(new Account(state.address, state.sequence), {
      fee: '100',
      networkPassphrase: gw.networkPassphrase,
    })
      .addOperation(
        Operation.payment({ destination: issuerKp.publicKey(), asset: Asset.native(), amount: fromStroops(spare) }),
      )
      .setTimeout(60)
      .build();
    await withWalletKeypair(
      svc.deps,
      { walletId: other.appWallet.id, purpose: 'test.drain', actor: SYSTEM_ACTOR },
      async (kp) => drain.sign(kp),
    );
    await gw.submitAndConfirm(drain);

    const err = await refused(
      build(wallet, { operation: { type: 'changeTrust', asset: EURC, action: 'add' } }, other.app),
      'INSUFFICIENT_FUNDS_FOR_TRUSTLINE',
    );
    assert.equal(err.message, 'The funding wallet cannot cover the 0.5 XLM trustline reserve');
    assert.equal(err.status, 402);
  });
});
