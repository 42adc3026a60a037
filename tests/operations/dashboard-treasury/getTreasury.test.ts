// getTreasury: the treasury against the real service and its localnet: balances read from the chain, the reserve rule,
// the locked total, and the split / join of the app's wallets on-chain.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { updateAppSettings } from '../../../src/domain/apps/store';
import { fromStroops } from '../../../src/domain/money/amounts';
import { fundAppWalletFromFriendbot } from '../../../src/domain/treasury/treasury';
import { fundUserWallet } from '../../../src/domain/funding/funding';
import { SYSTEM_ACTOR } from '../../../src/domain/audit/auditLog';
import { signInOperator } from '../../support/operators';
import { gatewayOf, issuedAssets, userWallet } from '../../support/funding';
import { ctx, useService, newApp, newUnfundedApp, walletOnChain, treasury } from './setup';

useService();

describe('GET treasury', () => {
  test('a new app whose wallet is not funded yet: one global wallet, no balances, low, reserve 1 XLM, nothing locked', async () => {
    const appId = await newUnfundedApp('Unfunded treasury');
    const res = await treasury(appId);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.code, 'TREASURY_FETCHED');
    const content = res.body.content;
    assert.equal(content.layout, 'single');
    assert.equal(content.wallets.length, 1);
    assert.deepEqual(
      { ...content.wallets[0], publicKey: undefined },
      { role: 'global', publicKey: undefined, balances: [], minimumBalanceXlm: '50', low: true },
    );
    assert.equal(content.reservePerWalletXlm, '1');
    assert.equal(content.lockedReserveXlm, '0');
  });

  test('funded from friendbot, two assets, two funded users: live balance, reserve 2 XLM per wallet, 4 XLM locked', async () => {
    const appId = await newApp('Funded treasury');
    const assets = await issuedAssets(ctx.svc, ['USDC', 'EURC']);
    const app = (await updateAppSettings(ctx.svc.deps.db, appId, { assets }))!;
    await walletOnChain(appId);
    assert.equal(
      await fundAppWalletFromFriendbot(ctx.svc.deps, app),
      false,
      'an account that exists is not funded again',
    );
    for (let i = 0; i < 2; i++)
      await fundUserWallet(ctx.svc.deps, {
        app,
        wallet: await userWallet(ctx.svc, app),
        trigger: 'server_api',
        actor: SYSTEM_ACTOR,
      });
    const { content } = (await treasury(appId)).body;
    const [global] = content.wallets;
    const onChain = (await gatewayOf(ctx.svc).loadAccount(global.publicKey))!;
    assert.deepEqual(global.balances, [{ asset: 'native', balance: fromStroops(onChain.balanceStroops) }]);
    assert.equal(global.low, false);
    assert.equal(content.reservePerWalletXlm, '2');
    assert.equal(content.lockedReserveXlm, '4');
  });

  test("another ctx.operator's app: 404 APPLICATION_NOT_FOUND", async () => {
    const appId = await newApp('Private treasury');
    const stranger = await signInOperator(ctx.svc);
    const res = await stranger.call('getTreasury', 'GET', `/api/v1/apps/${appId}/treasury`);
    assert.equal(res.status, 404);
    assert.equal(res.body.code, 'APPLICATION_NOT_FOUND');
  });
});
