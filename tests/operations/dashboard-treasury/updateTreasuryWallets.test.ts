// updateTreasuryWallets: the treasury against the real service and its localnet: balances read from the chain, the
// reserve rule, the locked total, and the split / join of the app's wallets on-chain.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { updateAppSettings } from '../../../src/domain/apps/store';
import { gatewayOf, issuer, payFromIssuer } from '../../support/funding';
import { ctx, useService, newApp, newUnfundedApp, walletOnChain, treasury, setLayout } from './setup';

useService();

describe('PUT treasury wallets', () => {
  test('split: the global wallet becomes funding; gas and distribution exist on-chain with 0 XLM, reserves sponsored by funding, trustlines on distribution', async () => {
    const appId = await newApp('Split treasury');
    const { assets, keypair: usdcIssuer } = await issuer(ctx.svc, ['USDC']);
    await updateAppSettings(ctx.svc.deps.db, appId, { assets });
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
    const gw = gatewayOf(ctx.svc);
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
    await payFromIssuer(ctx.svc, usdcIssuer, distribution.publicKey, assets[0]!, '5');
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
