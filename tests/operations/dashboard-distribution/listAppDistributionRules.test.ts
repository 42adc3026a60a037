// listAppDistributionRules (GET /api/v1/apps/{appId}/distribution/rules): every rule of the app, enabled or not, oldest
// first, with its claim count; deleted rules and other apps' rules are not listed. Set-up in setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  anonymous,
  deleteRule,
  developer,
  listRules,
  newRule,
  outsider,
  owner,
  rulesPath,
  svc,
  teamApp,
  useService,
} from './setup';

const ids = (res: { body: { content: { rules: { ruleId: string }[] } } }) =>
  res.body.content.rules.map((r) => r.ruleId);

describe('listAppDistributionRules', () => {
  useService();

  test('200 for any member: an app without rules lists none', async () => {
    const appId = await teamApp();
    const res = await listRules(developer, appId);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.code, 'DISTRIBUTION_RULES_LISTED');
    assert.deepEqual(res.body.content, { rules: [] });
  });

  test("oldest first, disabled ones included, deleted ones and other apps' left out; claimedCount as stored", async () => {
    const [appId, other] = [await teamApp(), await teamApp()];
    const first = await newRule(appId, { name: 'First', totalAllocation: 50 });
    const paused = await newRule(appId, { name: 'Paused', enabled: false });
    const deleted = await newRule(appId, { name: 'Deleted' });
    const last = await newRule(appId, { name: 'Last' });
    await newRule(other, { name: 'Elsewhere' });
    assert.equal((await deleteRule(owner, appId, deleted.ruleId)).status, 200);
    await svc.deps.db('distribution_rules').where({ id: first.ruleId }).update({ claimed_count: 7 });
    const res = await listRules(developer, appId);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(ids(res), [first.ruleId, paused.ruleId, last.ruleId]);
    assert.deepEqual(res.body.content.rules[0], { ...first, claimedCount: 7 });
    assert.equal(res.body.content.rules[1].enabled, false);
    assert.ok(!('claimable' in res.body.content.rules[0]), "claimable and reason are the SDK list's only");
  });

  test('404 APPLICATION_NOT_FOUND for an outsider; 400 a malformed appId; 401 without a session', async () => {
    const appId = await teamApp();
    await newRule(appId);
    const res = await listRules(outsider, appId);
    assert.equal(res.status, 404, res.text);
    assert.equal(res.body.code, 'APPLICATION_NOT_FOUND');
    const malformed = await listRules(owner, 'app-1');
    assert.equal(malformed.status, 400, malformed.text);
    const anon = await anonymous('listAppDistributionRules', 'GET', rulesPath(appId));
    assert.equal(anon.status, 401, anon.text);
  });
});
