// listDistributionRules (GET /v1/distribution/rules) with real end-user sessions (email sign-in, DPoP) against the real
// service: the app's enabled rules, newest first, each with `claimable` and the `reason` a claim would answer. Rules
// are made through the domain module (the Dashboard's operations are tested in tests/operations/dashboard-distribution)
// and claims are written straight into distribution_claims, as the claim would leave them.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Keypair } from '@stellar/stellar-sdk';
import { updateAppSettings, type App } from '../../../src/domain/apps/store';
import { SYSTEM_ACTOR } from '../../../src/domain/audit/auditLog';
import { createRule, deleteRule, ruleView, type NewRule } from '../../../src/domain/distribution/rules';
import { newId } from '../../../src/domain/ids';
import { headersFor, withSessions } from '../../support/credentials';
import { appWithWallet } from '../../support/funding';
import { call } from '../../support/http';
import { startTestService, type TestService } from '../../support/service';
import { signInUser, type UserClient } from '../../support/users';

const PATH = '/v1/distribution/rules';
const HOUR = 3_600_000;

let svc: TestService;
before(async () => {
  svc = await startTestService({}, { closeLedgersEveryMs: 100 });
});
after(async () => {
  await svc?.stop();
});

const list = (user: UserClient) => user.call('listDistributionRules', 'GET', PATH);
const ctx = (at = new Date()) => ({ actor: SYSTEM_ACTOR, at });
const rule = (app: App, input: Partial<NewRule> = {}, at?: Date) =>
  createRule(svc.deps, app, { name: 'Reward', asset: 'native', amountPerClaim: '1', ...input }, ctx(at));
const iso = (ms: number) => new Date(ms).toISOString();

/** An app whose wallets activate at sign-in, and a signed-in user whose wallet is funded. */
async function fundedUser(): Promise<{ app: App; user: UserClient }> {
  const { creds, app } = await appWithWallet(svc, { settings: { fundingMode: 'immediate' } });
  const user = await signInUser(svc, creds);
  const wallet = await svc.deps.db('wallets').where({ app_id: app.id, user_id: user.userId }).first();
  assert.equal(wallet?.funding_state, 'funded');
  return { app, user };
}

/** A claim of `ruleId` by `user`, as the claim operation stores it. */
async function claimRow(app: App, user: UserClient, ruleId: string, status: string, createdAt: Date): Promise<void> {
  const wallet = await svc.deps.db('wallets').where({ app_id: app.id, user_id: user.userId }).first();
  await svc.deps.db('distribution_claims').insert({
    id: newId('dcl'),
    rule_id: ruleId,
    app_id: app.id,
    user_id: user.userId,
    wallet_id: wallet.id,
    asset: 'native',
    amount_stroops: '10000000',
    status,
    created_at: createdAt,
    updated_at: createdAt,
  });
}

/** ruleId -> reason (null when claimable), after checking that claimable and reason agree. */
function reasons(res: { body: { content: { rules: any[] } } }): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const r of res.body.content.rules) {
    assert.equal(r.claimable, r.reason === null, `${r.name}: claimable and reason disagree`);
    out[r.ruleId] = r.reason;
  }
  return out;
}

describe('GET /v1/distribution/rules', () => {
  test('200: claimable rules, newest first, each the DistributionRule with claimable true and reason null', async () => {
    const { app: plain, user } = await fundedUser();
    const usdc = `USDC:${Keypair.random().publicKey()}`;
    const app = (await updateAppSettings(svc.deps.db, plain.id, { assets: [usdc] }))!;
    const now = Date.now();
    const xlm = await rule(app, { name: 'XLM', totalAllocation: 10, validFrom: iso(now - HOUR) }, new Date(now - 2000));
    const issued = await rule(
      app,
      { name: 'USDC', asset: usdc, amountPerClaim: '2.5', validUntil: iso(now + HOUR) },
      new Date(now - 1000),
    );
    const res = await list(user);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.code, 'SDK_DISTRIBUTION_RULES_LISTED');
    assert.deepEqual(res.body.content.rules, [
      { ...ruleView(issued), claimable: true, reason: null },
      { ...ruleView(xlm), claimable: true, reason: null },
    ]);
  });

  test('each reason: not started, expired, exhausted, the rate limit, an asset removed after creation', async () => {
    const { app: plain, user } = await fundedUser();
    const usdc = `USDC:${Keypair.random().publicKey()}`;
    const app = (await updateAppSettings(svc.deps.db, plain.id, { assets: [usdc] }))!;
    const now = Date.now();
    const notStarted = await rule(app, { validFrom: iso(now + HOUR) });
    const expired = await rule(app, { validFrom: iso(now - 2 * HOUR), validUntil: iso(now - HOUR) });
    const exhausted = await rule(app, { totalAllocation: 5 });
    await svc.deps.db('distribution_rules').where({ id: exhausted.id }).update({ claimed_count: 5 });
    const claimedOnce = await rule(app); // no rate limit: one claim per user ever
    await claimRow(app, user, claimedOnce.id, 'paid', new Date(now - 30 * 24 * HOUR));
    const releasedOnly = await rule(app); // a released claim gives the user's claim back
    await claimRow(app, user, releasedOnly.id, 'released', new Date(now - 60_000));
    const periodFull = await rule(app, { rateLimit: { maxClaims: 2, periodSeconds: 3600 } });
    await claimRow(app, user, periodFull.id, 'reserved', new Date(now - 60_000));
    await claimRow(app, user, periodFull.id, 'submitted', new Date(now - 120_000));
    const periodOpen = await rule(app, { rateLimit: { maxClaims: 2, periodSeconds: 3600 } });
    await claimRow(app, user, periodOpen.id, 'paid', new Date(now - 60_000));
    await claimRow(app, user, periodOpen.id, 'paid', new Date(now - 2 * HOUR)); // before the period
    await claimRow(app, user, periodOpen.id, 'released', new Date(now - 30_000));
    const assetRemoved = await rule(app, { asset: usdc });
    await updateAppSettings(svc.deps.db, app.id, { assets: [] });

    const res = await list(user);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(reasons(res), {
      [notStarted.id]: 'DISTRIBUTION_RULE_NOT_STARTED',
      [expired.id]: 'DISTRIBUTION_RULE_EXPIRED',
      [exhausted.id]: 'DISTRIBUTION_RULE_EXHAUSTED',
      [claimedOnce.id]: 'DISTRIBUTION_RATE_LIMIT_EXCEEDED',
      [releasedOnly.id]: null,
      [periodFull.id]: 'DISTRIBUTION_RATE_LIMIT_EXCEEDED',
      [periodOpen.id]: null,
      [assetRemoved.id]: 'DISTRIBUTION_ASSET_NOT_ENABLED',
    });
    assert.equal(res.body.content.rules.find((r: any) => r.ruleId === exhausted.id).claimedCount, 5);
  });

  test("disabled and deleted rules are not listed; another app's rules neither", async () => {
    const { app, user } = await fundedUser();
    const { app: other } = await appWithWallet(svc, { funded: false });
    const shown = await rule(app, { name: 'Shown' });
    await rule(app, { name: 'Disabled', enabled: false });
    const deleted = await rule(app, { name: 'Deleted' });
    await deleteRule(svc.deps, app, deleted.id, ctx());
    await rule(other, { name: 'Elsewhere' });
    const res = await list(user);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      res.body.content.rules.map((r: any) => r.ruleId),
      [shown.id],
    );
  });

  test('WALLET_NOT_FUNDED: an unfunded wallet (deferred funding), and a user without a wallet on the network', async () => {
    const { creds, app } = await appWithWallet(svc, { settings: { fundingMode: 'deferred' } });
    const open = await rule(app);
    const user = await signInUser(svc, creds);
    const unfunded = await list(user);
    assert.equal(unfunded.status, 200, unfunded.text);
    assert.deepEqual(reasons(unfunded), { [open.id]: 'WALLET_NOT_FUNDED' });
    const sessions = await withSessions(svc.deps, creds);
    const headers = await headersFor(['publishableKey', 'userSession', 'dpopProof'], sessions, {
      method: 'GET',
      url: `${svc.url}${PATH}`,
    });
    const walletless = await call(svc.url, 'listDistributionRules', 'GET', PATH, { headers });
    assert.equal(walletless.status, 200, walletless.text);
    assert.deepEqual(reasons(walletless), { [open.id]: 'WALLET_NOT_FUNDED' });
  });

  test('DISTRIBUTION_NO_DISTRIBUTION_WALLET once no wallet does distribution (before WALLET_NOT_FUNDED)', async () => {
    const { creds, app } = await appWithWallet(svc, { settings: { fundingMode: 'deferred' }, funded: false });
    const open = await rule(app);
    await svc.deps.db('wallets').where({ app_id: app.id, role: 'global' }).update({ role: 'funding' });
    const user = await signInUser(svc, creds);
    assert.deepEqual(reasons(await list(user)), { [open.id]: 'DISTRIBUTION_NO_DISTRIBUTION_WALLET' });
  });

  test('at most 100 rules, the newest', async () => {
    const { creds, app } = await appWithWallet(svc, { settings: { fundingMode: 'deferred' }, funded: false });
    const created: string[] = [];
    const start = Date.now() - HOUR;
    for (let i = 0; i < 101; i++) created.push((await rule(app, { name: `Rule ${i}` }, new Date(start + i))).id);
    const user = await signInUser(svc, creds);
    const res = await list(user);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      res.body.content.rules.map((r: any) => r.ruleId),
      created.slice(1).reverse(),
    );
  });
});
