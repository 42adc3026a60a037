// createServerDistributionRule (POST /v1/distribution-rules): a rule for the secret key's app, audited with the key
// as actor; the asset, wallet and value checks answer as on the Dashboard API; the Idempotency-Key replays; a
// publishable key is refused. Set-up in distributionRules.setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Keypair } from '@stellar/stellar-sdk';
import { auditOf, createRule, keyApp, listRules, useService, xlmRule } from './distributionRules.setup';

describe('createServerDistributionRule', () => {
  useService();

  test('201 SERVER_DISTRIBUTION_RULE_CREATED on the key\u2019s app; listed; audited with the key as actor', async () => {
    const creds = await keyApp();
    const res = await createRule(
      creds.secretKey,
      xlmRule({ totalAllocation: 50, rateLimit: { maxClaims: 1, periodSeconds: 86400 } }),
    );
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.code, 'SERVER_DISTRIBUTION_RULE_CREATED');
    const rule = res.body.content;
    assert.match(rule.ruleId, /^dst_/);
    assert.deepEqual(
      [rule.asset, rule.amountPerClaim, rule.totalAllocation, rule.claimedCount, rule.enabled],
      ['native', '1', 50, 0, true],
    );
    const listed = await listRules(creds.secretKey);
    assert.deepEqual(
      listed.body.content.rules.map((r: { ruleId: string }) => r.ruleId),
      [rule.ruleId],
    );
    const [audited] = await auditOf(creds.app.id, 'distribution_rule.created');
    assert.deepEqual(
      [audited?.actor_type, audited?.actor_id, audited?.details.ruleId],
      ['api_key', creds.secretKeyId, rule.ruleId],
    );
  });

  test('422 DISTRIBUTION_ASSET_NOT_ENABLED, 409 DISTRIBUTION_NO_DISTRIBUTION_WALLET, 400 for an amount of 0; nothing stored', async () => {
    const asset = `USDC:${Keypair.random().publicKey()}`;
    const creds = await keyApp();
    const notEnabled = await createRule(creds.secretKey, xlmRule({ asset }));
    assert.deepEqual([notEnabled.status, notEnabled.body.code], [422, 'DISTRIBUTION_ASSET_NOT_ENABLED']);
    const zero = await createRule(creds.secretKey, xlmRule({ amountPerClaim: '0' }));
    assert.equal(zero.status, 400, zero.text);
    assert.ok(zero.body.details.fieldErrors.amountPerClaim, zero.text);
    const walletless = await keyApp({ wallet: false, assets: [asset] });
    const noWallet = await createRule(walletless.secretKey, xlmRule({ asset }));
    assert.deepEqual([noWallet.status, noWallet.body.code], [409, 'DISTRIBUTION_NO_DISTRIBUTION_WALLET']);
    for (const c of [creds, walletless]) assert.equal((await listRules(c.secretKey)).body.content.rules.length, 0);
  });

  test('the same Idempotency-Key replays the rule: one rule', async () => {
    const creds = await keyApp();
    const headers = { 'Idempotency-Key': 'server-rule-1' };
    const first = await createRule(creds.secretKey, xlmRule(), { headers });
    const again = await createRule(creds.secretKey, xlmRule(), { headers });
    assert.equal(again.body.content.ruleId, first.body.content.ruleId);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal((await listRules(creds.secretKey)).body.content.rules.length, 1);
  });

  test('403 API_KEY_TYPE_NOT_ALLOWED with the publishable key: the Server API is for backends', async () => {
    const creds = await keyApp();
    const res = await createRule(creds.publishableKey, xlmRule());
    assert.deepEqual([res.status, res.body.code], [403, 'API_KEY_TYPE_NOT_ALLOWED']);
  });
});
