// fundAppUserWallet: the Dashboard's Fund action on a user's wallet, on real PostgreSQL and the in-process localnet;
// it does what POST /v1/wallets/fund does, audit-logged with the operator.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { findApp } from '../../../src/domain/apps/store';
import { findAppWallet } from '../../../src/domain/wallets/appWallets';
import { signInOperator } from '../../support/operators';
import { startTestService, type TestService } from '../../support/service';
import { accountOnChain, appWithWallet, userWallet } from '../../support/funding';

let svc: TestService;

describe('fundAppUserWallet', () => {
  before(async () => {
    svc = await startTestService({}, { closeLedgersEveryMs: 100 });
  });
  after(async () => {
    await svc?.stop();
  });

  test('Dashboard Fund action: 200 USER_WALLET_FUNDED, then 409; 404 for an unknown user; audit-logged with the operator', async () => {
    const operator = await signInOperator(svc);
    const created = await operator.call('createApp', 'POST', '/api/v1/apps', {
      body: { name: 'Fund action', network: 'testnet' },
    });
    assert.equal(created.status, 201, created.text);
    const appId = created.body.content.appId as string;
    const app = (await findApp(svc.deps.db, appId))!;
    // createApp funds the app wallet from friendbot in the background
    await accountOnChain(svc, (await findAppWallet(svc.deps.db, app, 'global'))!.publicKey);
    const wallet = await userWallet(svc, app);

    const path = `/api/v1/apps/${appId}/users/${wallet.userId}/wallet/fund`;
    const res = await operator.call('fundAppUserWallet', 'POST', path);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.content, { publicKey: wallet.publicKey, startingBalance: '0' });
    assert.equal(res.body.code, 'USER_WALLET_FUNDED');
    const again = await operator.call('fundAppUserWallet', 'POST', path);
    assert.equal(again.status, 409);
    assert.equal(again.body.code, 'WALLET_ALREADY_FUNDED');
    const missing = await operator.call(
      'fundAppUserWallet',
      'POST',
      `/api/v1/apps/${appId}/users/usr_0000000000000000000000/wallet/fund`,
    );
    assert.equal(missing.status, 404);
    assert.equal(missing.body.code, 'USER_NOT_FOUND');
    const audit = await svc.deps.db('audit_log').where({ wallet_id: wallet.id, action: 'wallet.funded' }).first();
    assert.deepEqual([audit.actor_type, audit.actor_id], ['operator', operator.operatorId]);
  });

  test("Dashboard Fund action on another operator's app: 404 APPLICATION_NOT_FOUND", async () => {
    const { app } = await appWithWallet(svc, { funded: false });
    const wallet = await userWallet(svc, app);
    const stranger = await signInOperator(svc);
    const res = await stranger.call(
      'fundAppUserWallet',
      'POST',
      `/api/v1/apps/${app.id}/users/${wallet.userId}/wallet/fund`,
    );
    assert.equal(res.status, 404);
    assert.equal(res.body.code, 'APPLICATION_NOT_FOUND');
  });
});
