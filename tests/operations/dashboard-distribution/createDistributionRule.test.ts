// createDistributionRule (POST /api/v1/apps/{appId}/distribution/rules): a member adds a rule for XLM or a configured
// asset; the values (400), the asset (422) and the distribution wallet (409) are checked before anything is stored;
// the operator is the audited actor; Idempotency-Key replays. Set-up in setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  anonymous,
  auditOf,
  createRule,
  developer,
  issuedAsset,
  outsider,
  owner,
  rulesPath,
  storedRule,
  svc,
  teamApp,
  useService,
  withoutDistributionWallet,
  xlmRule,
} from './setup';

const rulesOf = (appId: string) => svc.deps.db('distribution_rules').where({ app_id: appId });

describe('createDistributionRule', () => {
  useService();

  test('201 for a member: XLM with the defaults (no window, no allocation limit, one claim per user); audited', async () => {
    const appId = await teamApp();
    const res = await createRule(developer, appId, xlmRule({ amountPerClaim: '2.50' }));
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.code, 'DISTRIBUTION_RULE_CREATED');
    const rule = res.body.content;
    assert.match(rule.ruleId, /^dst_/);
    assert.deepEqual(
      { ...rule, ruleId: undefined, createdAt: undefined },
      {
        ruleId: undefined,
        name: 'Welcome bonus',
        asset: 'native',
        amountPerClaim: '2.5',
        totalAllocation: null,
        claimedCount: 0,
        validFrom: null,
        validUntil: null,
        rateLimit: null,
        enabled: true,
        createdAt: undefined,
      },
    );
    const stored = await storedRule(rule.ruleId);
    assert.equal(stored.amount_per_claim_stroops, '25000000');
    assert.equal(stored.network, 'testnet');
    const [audited] = await auditOf(appId, 'distribution_rule.created');
    assert.equal(audited?.actor_type, 'operator');
    assert.equal(audited?.actor_id, developer.operatorId);
    assert.equal(audited?.details.ruleId, rule.ruleId);
    assert.equal(audited?.details.asset, 'native');
    assert.equal(audited?.details.amountPerClaim, '2.5');
  });

  test('201: a configured issued asset with every field set, as sent', async () => {
    const usdc = issuedAsset();
    const appId = await teamApp([usdc]);
    const body = {
      name: 'Weekly reward',
      asset: usdc,
      amountPerClaim: '0.0000001',
      totalAllocation: 1000,
      validFrom: '2026-12-01T00:00:00.000Z',
      validUntil: '2026-12-31T23:59:59.000Z',
      rateLimit: { maxClaims: 2, periodSeconds: 604800 },
      enabled: false,
    };
    const res = await createRule(owner, appId, body);
    assert.equal(res.status, 201, res.text);
    const { ruleId, createdAt, claimedCount, ...rest } = res.body.content;
    assert.deepEqual(rest, body);
    assert.equal(claimedCount, 0);
    assert.ok(ruleId && createdAt);
    assert.equal((await storedRule(ruleId)).amount_per_claim_stroops, '1');
  });

  test('400 VALIDATION_ERROR with fieldErrors: amount 0, more than 7 decimals, above what a payment carries; nothing saved', async () => {
    const appId = await teamApp();
    for (const amountPerClaim of ['0.0000000', '0', '1.00000001', '999999999999']) {
      const res = await createRule(owner, appId, xlmRule({ amountPerClaim }));
      assert.equal(res.status, 400, `${amountPerClaim}: ${res.text}`);
      assert.equal(res.body.code, 'VALIDATION_ERROR');
      assert.deepEqual(Object.keys(res.body.details.fieldErrors), ['amountPerClaim'], amountPerClaim);
    }
    const extra = await createRule(owner, appId, xlmRule({ claimedCount: 5 }));
    assert.equal(extra.status, 400, extra.text);
    assert.equal((await rulesOf(appId)).length, 0);
    assert.equal((await auditOf(appId, 'distribution_rule.created')).length, 0);
  });

  test('422 DISTRIBUTION_RULE_WINDOW_INVALID: a window that closes when or before it opens, the field named; nothing saved', async () => {
    const appId = await teamApp();
    const moment = '2026-12-01T00:00:00.000Z';
    for (const validUntil of [moment, '2026-11-30T23:59:59.000Z']) {
      const res = await createRule(owner, appId, xlmRule({ validFrom: moment, validUntil }));
      assert.deepEqual([res.status, res.body.code], [422, 'DISTRIBUTION_RULE_WINDOW_INVALID'], res.text);
      assert.deepEqual(res.body.details.fieldErrors, { validUntil: ['must be after validFrom'] });
    }
    assert.equal((await rulesOf(appId)).length, 0);
  });

  test('400: a malformed appId', async () => {
    const res = await createRule(owner, 'not-an-app', xlmRule());
    assert.equal(res.status, 400, res.text);
    assert.ok(res.body.details.fieldErrors['path.appId'], res.text);
  });

  test('422 DISTRIBUTION_ASSET_NOT_ENABLED for an asset the app does not configure; nothing saved', async () => {
    const appId = await teamApp([issuedAsset('USDC')]);
    const other = issuedAsset('EURC');
    const res = await createRule(owner, appId, xlmRule({ asset: other }));
    assert.equal(res.status, 422, res.text);
    assert.equal(res.body.code, 'DISTRIBUTION_ASSET_NOT_ENABLED');
    assert.equal(res.body.message, `${other} is not configured for this app`);
    assert.equal((await rulesOf(appId)).length, 0);
  });

  test('409 DISTRIBUTION_NO_DISTRIBUTION_WALLET when no wallet does distribution; nothing saved', async () => {
    const appId = await teamApp();
    await withoutDistributionWallet(appId);
    const res = await createRule(owner, appId, xlmRule());
    assert.equal(res.status, 409, res.text);
    assert.equal(res.body.code, 'DISTRIBUTION_NO_DISTRIBUTION_WALLET');
    assert.equal((await rulesOf(appId)).length, 0);
  });

  test('Idempotency-Key: a retry replays the rule; the key with another body is 422 IDEMPOTENCY_KEY_REUSED', async () => {
    const appId = await teamApp();
    const headers = { 'idempotency-key': `rule-${Date.now()}` };
    const first = await createRule(owner, appId, xlmRule(), { headers });
    assert.equal(first.status, 201, first.text);
    const retry = await createRule(owner, appId, xlmRule(), { headers });
    assert.equal(retry.status, 201, retry.text);
    assert.equal(retry.headers.get('idempotent-replayed'), 'true');
    assert.equal(retry.body.content.ruleId, first.body.content.ruleId);
    const reused = await createRule(owner, appId, xlmRule({ name: 'Another' }), { headers });
    assert.equal(reused.status, 422, reused.text);
    assert.equal(reused.body.code, 'IDEMPOTENCY_KEY_REUSED');
    assert.equal((await rulesOf(appId)).length, 1);
    assert.equal((await auditOf(appId, 'distribution_rule.created')).length, 1);
  });

  test('404 APPLICATION_NOT_FOUND for an outsider and 401 without a session; nothing saved', async () => {
    const appId = await teamApp();
    const res = await createRule(outsider, appId, xlmRule());
    assert.equal(res.status, 404, res.text);
    assert.equal(res.body.code, 'APPLICATION_NOT_FOUND');
    const anon = await anonymous('createDistributionRule', 'POST', rulesPath(appId), xlmRule());
    assert.equal(anon.status, 401, anon.text);
    assert.equal((await rulesOf(appId)).length, 0);
  });
});
