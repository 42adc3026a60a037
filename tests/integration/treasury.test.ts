// GET /api/v1/apps/{appId}/treasury and PUT …/treasury/wallets against the real service and its localnet: balances
// read from the chain, the reserve rule and the locked total, and the split / join of the app's wallets on-chain.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { updateAppSettings } from '../../src/domain/apps/store';
import { fromStroops } from '../../src/domain/money/amounts';
import { fundAppWalletFromFriendbot } from '../../src/domain/treasury/treasury';
import { fundUserWallet } from '../../src/domain/funding/funding';
import { SYSTEM_ACTOR } from '../../src/domain/audit/auditLog';
import { createAppWithWallet } from '../../src/domain/wallets/appWallets';
import { signInOperator, type OperatorClient } from '../support/operators';
import { startTestService, type TestService } from '../support/service';
import { accountOnChain, gatewayOf, issuedAssets, issuer, payFromIssuer, userWallet } from '../support/funding';

let svc: TestService;
let operator: OperatorClient;

before(async () => {
  svc = await startTestService({}, { closeLedgersEveryMs: 100 });
  operator = await signInOperator(svc);
});
after(async () => {
  await svc?.stop();
});

/** An app created through the Dashboard API: createApp funds its global wallet from friendbot in the background. */
async function newApp(name: string): Promise<string> {
  const created = await operator.call('createApp', 'POST', '/api/v1/apps', { body: { name, network: 'testnet' } });
  assert.equal(created.status, 201, created.text);
  return created.body.content.appId;
}

/** An app of the operator whose wallet nobody funds (created below the API, so no friendbot call). */
async function newUnfundedApp(name: string): Promise<string> {
  const { app } = await createAppWithWallet(svc.deps, {
    name,
    network: 'testnet',
    ownerOperatorId: operator.operatorId,
  });
  return app.id;
}

/** Waits until createApp's background friendbot call has created the app wallet's account. */
async function walletOnChain(appId: string): Promise<string> {
  const publicKey: string = (await treasury(appId)).body.content.wallets[0].publicKey;
  await accountOnChain(svc, publicKey);
  return publicKey;
}

const treasury = (appId: string) => operator.call('getTreasury', 'GET', `/api/v1/apps/${appId}/treasury`);
const setLayout = (appId: string, layout: 'single' | 'split') =>
  operator.call('updateTreasuryWallets', 'PUT', `/api/v1/apps/${appId}/treasury/wallets`, { body: { layout } });

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
    const assets = await issuedAssets(svc, ['USDC', 'EURC']);
    const app = (await updateAppSettings(svc.deps.db, appId, { assets }))!;
    await walletOnChain(appId);
    assert.equal(await fundAppWalletFromFriendbot(svc.deps, app), false, 'an account that exists is not funded again');
    for (let i = 0; i < 2; i++)
      await fundUserWallet(svc.deps, {
        app,
        wallet: await userWallet(svc, app),
        trigger: 'server_api',
        actor: SYSTEM_ACTOR,
      });
    const { content } = (await treasury(appId)).body;
    const [global] = content.wallets;
    const onChain = (await gatewayOf(svc).loadAccount(global.publicKey))!;
    assert.deepEqual(global.balances, [{ asset: 'native', balance: fromStroops(onChain.balanceStroops) }]);
    assert.equal(global.low, false);
    assert.equal(content.reservePerWalletXlm, '2');
    assert.equal(content.lockedReserveXlm, '4');
  });

  test("another operator's app: 404 APPLICATION_NOT_FOUND", async () => {
    const appId = await newApp('Private treasury');
    const stranger = await signInOperator(svc);
    const res = await stranger.call('getTreasury', 'GET', `/api/v1/apps/${appId}/treasury`);
    assert.equal(res.status, 404);
    assert.equal(res.body.code, 'APPLICATION_NOT_FOUND');
  });
});

describe('PUT treasury wallets', () => {
  test('split: the global wallet becomes funding; gas and distribution exist on-chain with 0 XLM, reserves sponsored by funding, trustlines on distribution', async () => {
    const appId = await newApp('Split treasury');
    const { assets, keypair: usdcIssuer } = await issuer(svc, ['USDC']);
    await updateAppSettings(svc.deps.db, appId, { assets });
    const globalKey = await walletOnChain(appId);

    const res = await setLayout(appId, 'split');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.code, 'TREASURY_WALLETS_UPDATED');
    const content = res.body.content;
    assert.equal(content.layout, 'split');
    assert.deepEqual(
      content.wallets.map((w: { role: string }) => w.role),
      ['funding', 'gas', 'distribution'],
    );
    const [funding, gas, distribution] = content.wallets;
    assert.equal(funding.publicKey, globalKey, 'the global wallet became the funding wallet');
    assert.deepEqual(gas.balances, [{ asset: 'native', balance: '0' }]);
    assert.equal(gas.low, true);
    assert.deepEqual(distribution.balances, [
      { asset: 'native', balance: '0' },
      { asset: assets[0], balance: '0' },
    ]);
    const gw = gatewayOf(svc);
    for (const w of [gas, distribution]) assert.equal((await gw.loadAccount(w.publicKey))!.sponsor, funding.publicKey);
    assert.equal((await gw.trustlines(distribution.publicKey, assets))[0]!.sponsor, funding.publicKey);
    assert.equal((await gw.loadAccount(funding.publicKey))!.numSponsoring, 2 + 3);

    // asking for the current layout changes nothing
    const same = await setLayout(appId, 'split');
    assert.deepEqual(
      same.body.content.wallets.map((w: { publicKey: string }) => w.publicKey),
      content.wallets.map((w: { publicKey: string }) => w.publicKey),
    );

    // single: balances go back to the funding wallet, which is global again; the accounts are merged away
    await payFromIssuer(svc, usdcIssuer, distribution.publicKey, assets[0]!, '5');
    const joined = await setLayout(appId, 'single');
    assert.equal(joined.status, 200, joined.text);
    assert.equal(joined.body.content.layout, 'single');
    assert.deepEqual(
      joined.body.content.wallets.map((w: { role: string; publicKey: string }) => [w.role, w.publicKey]),
      [['global', globalKey]],
    );
    assert.equal(await gw.loadAccount(gas.publicKey), undefined);
    assert.equal(await gw.loadAccount(distribution.publicKey), undefined);
    assert.equal((await gw.loadAccount(globalKey))!.numSponsoring, 0, 'the reserves came back');
    assert.deepEqual(
      joined.body.content.wallets[0].balances.slice(1),
      [{ asset: assets[0], balance: '5' }],
      "the distribution wallet's USDC moved over",
    );

    // and split again re-creates the same gas and distribution accounts
    const again = await setLayout(appId, 'split');
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(
      again.body.content.wallets.map((w: { publicKey: string }) => w.publicKey),
      [globalKey, gas.publicKey, distribution.publicKey],
    );
  });

  test('split with an empty funding wallet: 402 FUND_XLM_FAILED, nothing changed', async () => {
    const appId = await newUnfundedApp('Poor treasury');
    const res = await setLayout(appId, 'split');
    assert.equal(res.status, 402);
    assert.equal(res.body.code, 'FUND_XLM_FAILED');
    const after = await treasury(appId);
    assert.equal(after.body.content.layout, 'single');
    assert.equal(after.body.content.wallets.length, 1);
  });
});
