// Security finding 5 (issue #23): the fee-bump policy's approved assets could be bypassed. claimClaimableBalance,
// liquidityPoolDeposit and liquidityPoolWithdraw counted as moving no asset, so a dry run allowed them with
// approvedAssets = [USDC] and the gas wallet would have paid their fees. Every operation type now has its case:
// claimable balances' and pools' assets are read from the ledger, and an operation whose assets cannot be determined
// is denied (fail closed), with the reason in the dry run.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  Account,
  Asset,
  getLiquidityPoolId,
  LiquidityPoolAsset,
  LiquidityPoolFeeV18,
  Operation,
  TransactionBuilder,
  type xdr,
} from '@stellar/stellar-sdk';
import type { App } from '../../src/domain/apps/store';
import { SYSTEM_ACTOR } from '../../src/domain/audit/auditLog';
import { DEFAULT_FEE_POLICY, saveFeePolicy } from '../../src/domain/feePolicy/policy';
import type { SeededCredentials } from '../support/credentials';
import { startTestService, type TestService } from '../support/service';
import { signInUser, type UserClient } from '../support/users';
import { appWithWallet, gatewayOf, issuedAssets } from '../support/funding';

let svc: TestService;
let app: App;
let creds: SeededCredentials;
let user: UserClient;
let usdc: string;

before(async () => {
  svc = await startTestService({ LEDGER_FOLLOWER: 'off' }, { closeLedgersEveryMs: 100 });
  ({ app, creds } = await appWithWallet(svc, { settings: { fundingMode: 'immediate' } }));
  usdc = (await issuedAssets(svc, ['USDC']))[0]!;
  await saveFeePolicy(svc.deps.db, {
    appId: app.id,
    policy: { ...DEFAULT_FEE_POLICY, approvedAssets: [usdc!] },
    actor: SYSTEM_ACTOR,
    at: new Date(),
  });
  user = await signInUser(svc, creds);
});
after(async () => {
  await svc?.stop();
});

/** A dry run of submitTransaction for `op` from the user's wallet, signed by the service through signTransaction. */
async function dryRun(op: xdr.Operation) {
  const gw = gatewayOf(svc);
  const publicKey: string = user.signIn.wallet.publicKey;
  const account = (await gw.loadAccount(publicKey))!;
  const unsigned = new TransactionBuilder(new Account(publicKey, account.sequence), {
    fee: '100',
    networkPassphrase: gw.networkPassphrase,
  })
    .addOperation(op)
    .setTimeout(60)
    .build();
  const signed = await user.rawCall('POST', '/v1/tx/sign', { body: { unsignedXdr: unsigned.toXDR() } });
  assert.equal(signed.status, 200, signed.text);
  return user.rawCall('POST', '/v1/tx/submit', { body: { signedXdr: signed.body.content.signedXdr, dryRun: true } });
}

describe('the fee-bump policy covers every operation that moves an asset', () => {
  const balanceId = '00000000' + 'ab'.repeat(32);
  const pool = () => {
    const [code, issuer] = usdc.split(':');
    return Buffer.from(
      getLiquidityPoolId(
        'constant_product',
        new LiquidityPoolAsset(
          Asset.native(),
          new Asset(code!, issuer),
          LiquidityPoolFeeV18,
        ).getLiquidityPoolParameters(),
      ),
    ).toString('hex');
  };
  const cases: [string, () => xdr.Operation][] = [
    ['claimClaimableBalance', () => Operation.claimClaimableBalance({ balanceId })],
    [
      'liquidityPoolDeposit',
      () =>
        Operation.liquidityPoolDeposit({
          liquidityPoolId: pool(),
          maxAmountA: '1',
          maxAmountB: '1',
          minPrice: '0.5',
          maxPrice: '2',
        }),
    ],
    [
      'liquidityPoolWithdraw',
      () => Operation.liquidityPoolWithdraw({ liquidityPoolId: pool(), amount: '1', minAmountA: '0', minAmountB: '0' }),
    ],
  ];
  for (const [name, op] of cases) {
    test(`${name} of an entry the ledger does not have: the dry run denies it, naming the operation`, async () => {
      const res = await dryRun(op());
      assert.equal(res.status, 200, res.text);
      const outcome = res.body.content;
      assert.equal(outcome.dryRun, true);
      assert.equal(outcome.policy.decision, 'deny', res.text);
      const reason = outcome.policy.reasons.find((r: { code: string }) => r.code === 'TX_POLICY_ASSET_NOT_APPROVED');
      assert.ok(reason, res.text);
      assert.match(reason.message, new RegExp(name));
    });
  }

  test('assets read from the ledger: a USDC claimable balance is allowed, a pool holding XLM is not', async () => {
    const gw = gatewayOf(svc);
    const read = gw.ledgerAssets;
    // The local network has no claimable balances or pools: the ledger read answers as the real network would.
    gw.ledgerAssets = async () => ({
      claimableBalances: new Map([[balanceId, usdc]]),
      liquidityPools: new Map([[pool(), ['native', usdc] as [string, string]]]),
    });
    try {
      const claim = await dryRun(cases[0]![1]());
      assert.equal(claim.body.content.policy.decision, 'allow', claim.text);
      const deposit = await dryRun(cases[1]![1]());
      assert.equal(deposit.body.content.policy.decision, 'deny', deposit.text);
      assert.match(deposit.body.content.policy.reasons[0].message, /XLM \(native\)/);
    } finally {
      gw.ledgerAssets = read;
    }
  });

  test('a USDC payment is still allowed, XLM still refused', async () => {
    const [code, issuer] = usdc.split(':');
    const ok = await dryRun(Operation.changeTrust({ asset: new Asset(code!, issuer) }));
    assert.equal(ok.body.content.policy.decision, 'allow', ok.text);
    const xlm = await dryRun(
      Operation.payment({ destination: user.signIn.wallet.publicKey, asset: Asset.native(), amount: '1' }),
    );
    assert.equal(xlm.body.content.policy.decision, 'deny', xlm.text);
  });
});
