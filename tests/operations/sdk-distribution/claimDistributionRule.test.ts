// claimDistributionRule (POST /v1/distribution/rules/{ruleId}/claim): a signed-in user takes a rule's amount from the
// app's distribution wallet on localnet. Paid and recorded (histories, app transactions, wallet.funded); a missing
// trustline created, sponsored; every refusal code with nothing paid; a payment that fails gives the claim back; the
// Idempotency-Key replays; concurrent claims never overspend the allocation or the rate limit; the recovery pass
// settles what a request left (a claim never sent, a sent one found on the chain, one past its time bound).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { App } from '../../../src/domain/apps/store';
import { updateAppSettings } from '../../../src/domain/apps/store';
import { SYSTEM_ACTOR } from '../../../src/domain/audit/auditLog';
import { runClaimRecovery } from '../../../src/domain/distribution/claims';
import { createRule, type NewRule } from '../../../src/domain/distribution/rules';
import { issueDemoUsdc } from '../../../src/domain/treasury/demoUsdc';
import { appWalletFor } from '../../../src/domain/wallets/treasuryWallets';
import { appWithWallet, gatewayOf, untilFunded } from '../../support/funding';
import { startTestService, type TestService } from '../../support/service';
import { signInUser, type UserClient } from '../../support/users';

let svc: TestService;
let app: App;
let creds: Awaited<ReturnType<typeof appWithWallet>>['creds'];
let usdc: string;

before(async () => {
  // The trustline backfill stays away (an hour between passes): the claim itself must add a missing line.
  svc = await startTestService({ ACTIVATION_RETRY_SECONDS: '3600' }, { closeLedgersEveryMs: 100 });
  const setup = await appWithWallet(svc, { settings: { fundingMode: 'immediate', startingBalanceXlm: '2' } });
  creds = setup.creds;
  app = (await updateAppSettings(svc.deps.db, setup.app.id, { fundingMode: 'immediate' }))!;
});
after(async () => {
  await svc?.stop();
});

const ctx = () => ({ actor: SYSTEM_ACTOR, at: new Date() });
const newRule = async (input: Partial<NewRule> = {}) =>
  createRule(svc.deps, app, { name: 'Welcome bonus', asset: 'native', amountPerClaim: '1.5', ...input }, ctx());
/** A user of the app whose wallet is funded (the claims' precondition). */
async function fundedUser(): Promise<UserClient> {
  const user = await signInUser(svc, creds);
  await untilFunded(svc, user.signIn.wallet.walletId);
  return user;
}
const claim = (user: UserClient, ruleId: string, key?: string) =>
  user.call('claimDistributionRule', 'POST', `/v1/distribution/rules/${ruleId}/claim`, {
    ...(key ? { headers: { 'Idempotency-Key': key } } : {}),
  });
const claimsOf = (ruleId: string) =>
  svc.deps.db('distribution_claims').where({ rule_id: ruleId }).orderBy('created_at');
const claimedCount = async (ruleId: string) =>
  (await svc.deps.db('distribution_rules').where({ id: ruleId }).first('claimed_count')).claimed_count as number;

async function xlmOf(address: string): Promise<bigint> {
  return (await gatewayOf(svc).loadAccount(address))!.balanceStroops;
}

async function assetOf(address: string, asset: string): Promise<bigint | undefined> {
  const [line] = await gatewayOf(svc).trustlines(address, [asset]);
  return line?.balanceStroops;
}

describe('claimDistributionRule', () => {
  test('XLM: 200 SUCCESS, the balance moves, both histories, the app transaction and wallet.funded', async () => {
    const user = await fundedUser();
    const rule = await newRule();
    const wallet = user.signIn.wallet.publicKey as string;
    const before = await xlmOf(wallet);
    const res = await claim(user, rule.id);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.code, 'SDK_DISTRIBUTION_RULE_CLAIMED');
    const content = res.body.content;
    assert.deepEqual(
      [content.ruleId, content.asset, content.assetCode, content.amount, content.status],
      [rule.id, 'native', 'XLM', '1.5', 'SUCCESS'],
    );
    assert.equal((await xlmOf(wallet)) - before, 15_000_000n, 'the user pays no fee: exactly the amount arrives');
    const [row] = await claimsOf(rule.id);
    assert.deepEqual([row.status, row.tx_hash], ['paid', content.txHash]);
    assert.equal(await claimedCount(rule.id), 1);
    const tx = await svc.deps.db('transactions').where({ hash: content.txHash }).first();
    assert.deepEqual([tx.origin, tx.status, tx.app_id], ['distribution', 'SUCCESS', app.id]);
    const distribution = (await appWalletFor(svc.deps.db, app.id, app.network, 'distribution'))!;
    assert.equal(tx.fee_source, (await appWalletFor(svc.deps.db, app.id, app.network, 'gas'))!.publicKey);
    const history = await svc.deps.db('tx_history').where({ transaction_id: tx.id }).orderBy('direction');
    assert.deepEqual(
      history.map((h) => [h.wallet_id, h.direction]),
      [
        [user.signIn.wallet.walletId, 'received'],
        [distribution.id, 'sent'],
      ],
    );
    const listed = await user.call('getTxHistory', 'GET', '/v1/tx/history');
    assert.ok(listed.body.content.records.some((r: { hash: string }) => r.hash === content.txHash));
    const events = await svc.deps.db('outbox_events').where({ app_id: app.id, type: 'wallet.funded' });
    const event = events.find((e) => e.data.txHash === content.txHash);
    assert.deepEqual(event?.data, {
      walletId: user.signIn.wallet.walletId,
      asset: 'native',
      amount: '1.5',
      txHash: content.txHash,
    });
  });

  test('an issued asset the wallet does not trust yet: the trustline is added, sponsored, and the amount arrives', async () => {
    const user = await fundedUser(); // activated before the app has USDC: no line
    ({ asset: usdc } = await issueDemoUsdc(svc.deps, app));
    app = { ...app, assets: [...app.assets, usdc] };
    // Adding the asset queued the line for the trustline backfill, whose passes are an hour apart here but whose first
    // pass comes a poll after the service starts, which can be now: the line must be the claim's to add.
    await svc.deps.db('trustline_backfills').where({ wallet_id: user.signIn.wallet.walletId, asset: usdc }).del();
    const wallet = user.signIn.wallet.publicKey as string;
    assert.equal(await assetOf(wallet, usdc), undefined, 'no USDC line before the claim');
    const funding = (await appWalletFor(svc.deps.db, app.id, app.network, 'funding'))!;
    const rule = await newRule({ asset: usdc, amountPerClaim: '5' });
    const res = await claim(user, rule.id);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.content.assetCode, 'USDC');
    const [line] = await gatewayOf(svc).trustlines(wallet, [usdc]);
    assert.equal(line?.balanceStroops, 50_000_000n);
    assert.equal(line?.sponsor, funding.publicKey, "the line's reserve is the funding wallet's");
  });

  test('every refusal: 404, 409 disabled / not started / expired / exhausted, 429 with Retry-After, 422; nothing paid', async () => {
    const user = await fundedUser();
    const now = Date.now();
    const cases: [string, Partial<NewRule> | undefined, number, string][] = [
      ['unknown', undefined, 404, 'DISTRIBUTION_RULE_NOT_FOUND'],
      ['disabled', { enabled: false }, 409, 'DISTRIBUTION_RULE_DISABLED'],
      ['not started', { validFrom: new Date(now + 60_000).toISOString() }, 409, 'DISTRIBUTION_RULE_NOT_STARTED'],
      [
        'expired',
        { validFrom: new Date(now - 120_000).toISOString(), validUntil: new Date(now - 1000).toISOString() },
        409,
        'DISTRIBUTION_RULE_EXPIRED',
      ],
    ];
    for (const [what, input, status, code] of cases) {
      const ruleId = input ? (await newRule(input)).id : 'dst_0000000000000000000000';
      const res = await claim(user, ruleId);
      assert.equal(res.status, status, `${what}: ${res.text}`);
      assert.equal(res.body.code, code, what);
      assert.equal((await claimsOf(ruleId)).length, 0, `${what}: no claim recorded`);
    }
    const exhausted = await newRule({ totalAllocation: 1 });
    await svc.deps.db('distribution_rules').where({ id: exhausted.id }).update({ claimed_count: 1 });
    const full = await claim(user, exhausted.id);
    assert.deepEqual([full.status, full.body.code], [409, 'DISTRIBUTION_RULE_EXHAUSTED']);

    const weekly = await newRule({ rateLimit: { maxClaims: 1, periodSeconds: 604_800 } });
    assert.equal((await claim(user, weekly.id)).status, 200);
    const again = await claim(user, weekly.id);
    assert.deepEqual([again.status, again.body.code], [429, 'DISTRIBUTION_RATE_LIMIT_EXCEEDED']);
    const retryAfter = Number(again.headers.get('retry-after'));
    assert.ok(retryAfter > 604_700 && retryAfter <= 604_800, `Retry-After ${retryAfter}`);

    const once = await newRule();
    assert.equal((await claim(user, once.id)).status, 200);
    assert.equal(
      (await claim(user, once.id)).body.code,
      'DISTRIBUTION_RATE_LIMIT_EXCEEDED',
      'no rate limit: once ever',
    );

    const removed = await newRule({ asset: usdc, amountPerClaim: '1' });
    await updateAppSettings(svc.deps.db, app.id, { assets: [] });
    try {
      const res = await claim(user, removed.id);
      assert.deepEqual([res.status, res.body.code], [422, 'DISTRIBUTION_ASSET_NOT_ENABLED']);
    } finally {
      await updateAppSettings(svc.deps.db, app.id, { assets: [usdc] });
    }
  });

  test('the distribution wallet too short: 422 TX_SUBMIT_FAILED op_underfunded, the claim given back', async () => {
    const user = await fundedUser();
    const rule = await newRule({ asset: usdc, amountPerClaim: '100000000' });
    const res = await claim(user, rule.id);
    assert.equal(res.status, 422, res.text);
    assert.deepEqual([res.body.code, res.body.resultCode], ['TX_SUBMIT_FAILED', 'op_underfunded']);
    const [row] = await claimsOf(rule.id);
    assert.deepEqual([row.status, row.failure_code], ['released', 'op_underfunded']);
    assert.equal(await claimedCount(rule.id), 0, 'its part of the allocation is back');
  });

  test('the same Idempotency-Key replays the claim; nothing is paid twice', async () => {
    const user = await fundedUser();
    const rule = await newRule({ rateLimit: { maxClaims: 5, periodSeconds: 60 } });
    const wallet = user.signIn.wallet.publicKey as string;
    const before = await xlmOf(wallet);
    const first = await claim(user, rule.id, 'claim-once-1');
    const second = await claim(user, rule.id, 'claim-once-1');
    assert.equal(first.status, 200, first.text);
    assert.equal(second.body.content.txHash, first.body.content.txHash);
    assert.equal(second.headers.get('idempotent-replayed'), 'true');
    assert.equal((await claimsOf(rule.id)).length, 1);
    assert.equal((await xlmOf(wallet)) - before, 15_000_000n);
  });

  test('30 claims at once from 10 users, allocation 12, 2 per user: exactly 12 paid, none over the rate limit', async () => {
    const users = await Promise.all(Array.from({ length: 10 }, () => fundedUser()));
    const rule = await newRule({
      amountPerClaim: '0.1',
      totalAllocation: 12,
      rateLimit: { maxClaims: 2, periodSeconds: 3600 },
    });
    const distribution = (await appWalletFor(svc.deps.db, app.id, app.network, 'distribution'))!;
    const gas = (await appWalletFor(svc.deps.db, app.id, app.network, 'gas'))!;
    assert.equal(distribution.publicKey, gas.publicKey, 'single layout: one wallet pays amounts and fees');
    const answers = await Promise.all(users.flatMap((u) => [0, 1, 2].map(() => claim(u, rule.id))));
    const paid = answers.filter((a) => a.status === 200);
    assert.equal(paid.length, 12, answers.map((a) => a.status).join(','));
    for (const refused of answers.filter((a) => a.status !== 200)) {
      assert.ok(
        ['DISTRIBUTION_RULE_EXHAUSTED', 'DISTRIBUTION_RATE_LIMIT_EXCEEDED'].includes(refused.body.code),
        refused.text,
      );
    }
    const rows = await claimsOf(rule.id);
    assert.equal(rows.filter((r) => r.status === 'paid').length, 12);
    const perUser = new Map<string, number>();
    for (const r of rows) perUser.set(r.user_id, (perUser.get(r.user_id) ?? 0) + 1);
    assert.ok(
      [...perUser.values()].every((n) => n <= 2),
      JSON.stringify([...perUser]),
    );
    assert.equal(await claimedCount(rule.id), 12);
    // On the chain: each paid user holds exactly what their paid claims say.
    for (const u of users) {
      const mine = rows.filter((r) => r.user_id === u.userId && r.status === 'paid').length;
      const received = await svc.deps
        .db('tx_history')
        .join('transactions', 'transactions.id', 'tx_history.transaction_id')
        .where({ 'tx_history.wallet_id': u.signIn.wallet.walletId, 'transactions.origin': 'distribution' })
        .count<{ count: string }[]>();
      assert.equal(Number(received[0]!.count), mine);
    }
  });

  test('recovery: a claim never sent is released; a sent one found on the chain is paid; one past its time bound is released', async () => {
    const user = await fundedUser();
    const rule = await newRule({ rateLimit: { maxClaims: 10, periodSeconds: 3600 } });
    const old = new Date(Date.now() - 3_600_000);

    // 1. reserved, no envelope, older than the lease: its claimer died before sending
    const unsent = await claim(user, rule.id);
    const [first] = await claimsOf(rule.id);
    await svc.deps
      .db('distribution_claims')
      .where({ id: first.id })
      .update({ status: 'reserved', tx_hash: null, envelope_xdr: null, updated_at: old });
    // 2. paid on the chain, but the record says only submitted (the claimer died after sending)
    const sent = await claim(user, rule.id);
    const second = (await claimsOf(rule.id)).find((r) => r.tx_hash === sent.body.content.txHash)!;
    const tx = await svc.deps.db('transactions').where({ hash: sent.body.content.txHash }).first();
    await svc.deps.db('tx_history').where({ transaction_id: tx.id }).delete();
    await svc.deps.db('distribution_claims').where({ id: second.id }).update({ status: 'submitted', updated_at: old });
    // 3. submitted with an envelope the chain never saw, past its time bound
    const third = await claim(user, rule.id);
    const thirdRow = (await claimsOf(rule.id)).find((r) => r.tx_hash === third.body.content.txHash)!;
    await svc.deps
      .db('distribution_claims')
      .where({ id: thirdRow.id })
      .update({
        status: 'submitted',
        tx_hash: 'ab'.repeat(32),
        valid_until: old,
        updated_at: old,
      });
    assert.deepEqual([unsent.status, sent.status, third.status], [200, 200, 200]);
    // The service's own recovery job may settle some of these first: either way the outcome is the one below.
    await runClaimRecovery(svc.deps);
    const after = new Map((await claimsOf(rule.id)).map((r) => [r.id, r]));
    assert.equal(after.get(first.id).status, 'released');
    assert.equal(after.get(first.id).failure_code, 'not_sent');
    assert.equal(after.get(second.id).status, 'paid');
    assert.equal(after.get(thirdRow.id).status, 'released');
    assert.equal(after.get(thirdRow.id).failure_code, 'tx_too_late');
    assert.equal(await claimedCount(rule.id), 1, 'the two released claims gave their part back; the paid one holds');
    const history = await svc.deps.db('tx_history').where({ transaction_id: tx.id });
    assert.equal(history.length, 2, 'the recovered payment is in both histories again');
    assert.equal(await runClaimRecovery(svc.deps), 0, 'nothing left to settle');
  });

  test('recovery: a claim whose recorded envelope does not decode is set aside; the pass goes on with the others', async () => {
    const user = await fundedUser();
    const rule = await newRule({ rateLimit: { maxClaims: 10, periodSeconds: 3600 } });
    const old = new Date(Date.now() - 3_600_000);
    assert.equal((await claim(user, rule.id)).status, 200);
    assert.equal((await claim(user, rule.id)).status, 200);
    const [bad, unsent] = await claimsOf(rule.id);
    // Its hash is a real, applied transaction; the envelope kept with it is garbage (a corrupted row).
    await svc.deps
      .db('distribution_claims')
      .where({ id: bad.id })
      .update({ status: 'submitted', envelope_xdr: 'not an envelope \u00ff', updated_at: old });
    await svc.deps
      .db('distribution_claims')
      .where({ id: unsent.id })
      .update({ status: 'reserved', tx_hash: null, envelope_xdr: null, updated_at: old });
    await runClaimRecovery(svc.deps); // resolves: one bad row never stops the pass
    const after = new Map((await claimsOf(rule.id)).map((r) => [r.id, r]));
    assert.equal(after.get(bad.id).status, 'submitted', 'set aside, looked at again later');
    assert.ok(after.get(bad.id).updated_at.getTime() > old.getTime(), 'its next look is pushed back');
    assert.equal(after.get(unsent.id).status, 'released', 'the other claim of the pass was settled');
  });
});
