// getKycSettings (GET /api/v1/apps/{appId}/kyc): an app's KYC providers, with real operator sessions against the real
// service, every answer checked against the contract. The default (the sandbox provider, for a testnet app of a service
// with KYC_SANDBOX on that never saved settings), nothing for a mainnet app or with KYC_SANDBOX off, saved settings as
// saved, credentials only as credentialsSet; who may read them.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { call } from '../../support/http';
import { signInOperator } from '../../support/operators';
import { startTestService } from '../../support/service';
import { appOn, developer, get, outsider, owner, pathOf, put, svc, teamApp, useKycService } from './kyc.setup';

const SANDBOX_DEFAULT = {
  providerId: 'sandbox',
  enabled: true,
  levels: ['basic', 'intermediate', 'enhanced'],
  credentialsSet: false,
};

describe('getKycSettings', () => {
  useKycService();

  test('a testnet app that never saved settings offers the sandbox at every level; nothing is stored by reading', async () => {
    const appId = await teamApp();
    for (const client of [owner, developer]) {
      const res = await get(client, appId);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.code, 'KYC_SETTINGS_FETCHED');
      assert.deepEqual(res.body.content, { providers: [SANDBOX_DEFAULT] });
    }
    assert.equal(await svc.deps.db('kyc_provider_settings').where({ app_id: appId }).first(), undefined);
  });

  test('a mainnet app is offered nothing (never the sandbox)', async () => {
    const res = await get(owner, await appOn(owner, 'mainnet'));
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.content, { providers: [] });
  });

  test('with KYC_SANDBOX off, a testnet app is offered nothing', async () => {
    const off = await startTestService({ KYC_SANDBOX: 'off' });
    try {
      const operator = await signInOperator(off);
      const res = await operator.call('getKycSettings', 'GET', pathOf(await appOn(operator, 'testnet')));
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.content, { providers: [] });
    } finally {
      await off.stop();
    }
  });

  test('saved settings are answered as saved, credentials only as credentialsSet', async () => {
    const appId = await teamApp();
    const secret = 'sandbox-get-test-secret-4mQ9xV4tR7wY1zB3';
    const saved = await put(owner, appId, {
      providers: [{ providerId: 'sandbox', enabled: true, levels: ['basic'], credentials: { apiKey: secret } }],
    });
    assert.equal(saved.status, 200, saved.text);
    const res = await get(developer, appId);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.content, {
      providers: [{ providerId: 'sandbox', enabled: true, levels: ['basic'], credentialsSet: true }],
    });
    assert.ok(!res.text.includes(secret), 'no credential in the answer');

    const off = await put(owner, appId, { providers: [{ providerId: 'sandbox', enabled: false, levels: [] }] });
    assert.equal(off.status, 200, off.text);
    assert.deepEqual((await get(owner, appId)).body.content, {
      providers: [{ providerId: 'sandbox', enabled: false, levels: [], credentialsSet: true }],
    });
  });

  test('an emptied list stays empty: the default sandbox does not come back', async () => {
    const appId = await teamApp();
    assert.equal((await put(owner, appId, { providers: [] })).status, 200);
    assert.deepEqual((await get(owner, appId)).body.content, { providers: [] });
  });

  test("another operator's app, an unknown app and an archived app answer 404 APPLICATION_NOT_FOUND", async () => {
    const appId = await teamApp();
    const answers = [await get(outsider, appId), await get(owner, 'app_0000000000000000000000')];
    assert.equal((await owner.call('archiveApp', 'POST', `/api/v1/apps/${appId}/archive`)).status, 200);
    answers.push(await get(owner, appId), await get(developer, appId));
    for (const res of answers) assert.deepEqual([res.status, res.body.code], [404, 'APPLICATION_NOT_FOUND'], res.text);
  });

  test('400 VALIDATION_ERROR for a malformed app id; 401 without a session', async () => {
    const bad = await get(owner, 'not-an-app');
    assert.deepEqual([bad.status, bad.body.code], [400, 'VALIDATION_ERROR'], bad.text);
    const anonymous = await call(svc.url, 'getKycSettings', 'GET', pathOf(await teamApp()));
    assert.equal(anonymous.status, 401, anonymous.text);
  });
});
