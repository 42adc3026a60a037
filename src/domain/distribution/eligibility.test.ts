import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CLAIM_REFUSALS, claimRefusal, type ClaimFacts, type ClaimableRule } from './eligibility';

const NOW = new Date('2026-12-15T12:00:00.000Z');
const at = (iso: string) => new Date(iso);
const secondsFrom = (d: Date, s: number) => new Date(d.getTime() + s * 1000);

/** A rule anyone may claim now: enabled, open window, allocation left, one claim per user ever. */
const open: ClaimableRule = {
  enabled: true,
  validFrom: at('2026-12-01T00:00:00.000Z'),
  validUntil: at('2026-12-31T23:59:59.000Z'),
  totalAllocation: 10,
  claimedCount: 3,
  rateLimit: null,
};
/** Facts under which the open rule is claimable. */
const ok: ClaimFacts = {
  now: NOW,
  assetEnabled: true,
  hasDistributionWallet: true,
  userLiveClaimsInPeriod: 0,
  walletFunded: true,
};

describe('claimRefusal', () => {
  test('null when nothing stops the claim; also with no window, no allocation limit', () => {
    assert.equal(claimRefusal(open, ok), null);
    assert.equal(claimRefusal({ ...open, validFrom: null, validUntil: null, totalAllocation: null }, ok), null);
  });

  test('each code on its own', () => {
    assert.equal(claimRefusal({ ...open, enabled: false }, ok), 'DISTRIBUTION_RULE_DISABLED');
    assert.equal(claimRefusal(open, { ...ok, assetEnabled: false }), 'DISTRIBUTION_ASSET_NOT_ENABLED');
    assert.equal(claimRefusal(open, { ...ok, hasDistributionWallet: false }), 'DISTRIBUTION_NO_DISTRIBUTION_WALLET');
    assert.equal(claimRefusal({ ...open, validFrom: secondsFrom(NOW, 60) }, ok), 'DISTRIBUTION_RULE_NOT_STARTED');
    assert.equal(claimRefusal({ ...open, validUntil: secondsFrom(NOW, -60) }, ok), 'DISTRIBUTION_RULE_EXPIRED');
    assert.equal(claimRefusal({ ...open, claimedCount: 10 }, ok), 'DISTRIBUTION_RULE_EXHAUSTED');
    assert.equal(claimRefusal(open, { ...ok, userLiveClaimsInPeriod: 1 }), 'DISTRIBUTION_RATE_LIMIT_EXCEEDED');
    assert.equal(claimRefusal(open, { ...ok, walletFunded: false }), 'WALLET_NOT_FUNDED');
  });

  test('the window opens at validFrom exactly, to the second', () => {
    const rule = { ...open, validFrom: NOW, validUntil: null };
    assert.equal(claimRefusal(rule, { ...ok, now: secondsFrom(NOW, -1) }), 'DISTRIBUTION_RULE_NOT_STARTED');
    assert.equal(claimRefusal(rule, { ...ok, now: new Date(NOW.getTime() - 1) }), 'DISTRIBUTION_RULE_NOT_STARTED');
    assert.equal(claimRefusal(rule, { ...ok, now: NOW }), null);
    assert.equal(claimRefusal(rule, { ...ok, now: secondsFrom(NOW, 1) }), null);
  });

  test('the window closes at validUntil exactly, to the second', () => {
    const rule = { ...open, validFrom: null, validUntil: NOW };
    assert.equal(claimRefusal(rule, { ...ok, now: secondsFrom(NOW, -1) }), null);
    assert.equal(claimRefusal(rule, { ...ok, now: new Date(NOW.getTime() - 1) }), null);
    assert.equal(claimRefusal(rule, { ...ok, now: NOW }), 'DISTRIBUTION_RULE_EXPIRED');
    assert.equal(claimRefusal(rule, { ...ok, now: secondsFrom(NOW, 1) }), 'DISTRIBUTION_RULE_EXPIRED');
  });

  test('a one-second window: open at its start, expired at its end', () => {
    const rule = { ...open, validFrom: NOW, validUntil: secondsFrom(NOW, 1) };
    assert.equal(claimRefusal(rule, { ...ok, now: secondsFrom(NOW, -1) }), 'DISTRIBUTION_RULE_NOT_STARTED');
    assert.equal(claimRefusal(rule, { ...ok, now: NOW }), null);
    assert.equal(claimRefusal(rule, { ...ok, now: secondsFrom(NOW, 1) }), 'DISTRIBUTION_RULE_EXPIRED');
  });

  test('the allocation: exhausted at totalAllocation claims, not before; unlimited when null', () => {
    assert.equal(claimRefusal({ ...open, claimedCount: 9 }, ok), null);
    assert.equal(claimRefusal({ ...open, claimedCount: 10 }, ok), 'DISTRIBUTION_RULE_EXHAUSTED');
    assert.equal(claimRefusal({ ...open, totalAllocation: null, claimedCount: 1_000_000 }, ok), null);
  });

  test('the rate limit: maxClaims live claims in the period; one ever without a rate limit', () => {
    const rule = { ...open, rateLimit: { maxClaims: 3, periodSeconds: 86_400 } };
    assert.equal(claimRefusal(rule, { ...ok, userLiveClaimsInPeriod: 2 }), null);
    assert.equal(claimRefusal(rule, { ...ok, userLiveClaimsInPeriod: 3 }), 'DISTRIBUTION_RATE_LIMIT_EXCEEDED');
    assert.equal(claimRefusal(open, { ...ok, userLiveClaimsInPeriod: 0 }), null);
    assert.equal(claimRefusal(open, { ...ok, userLiveClaimsInPeriod: 1 }), 'DISTRIBUTION_RATE_LIMIT_EXCEEDED');
  });

  test('the order: with every reason present, each one removed reveals the next', () => {
    // Everything wrong at once; fixing the reasons one by one, in the documented order, walks through every code.
    let rule: ClaimableRule = {
      ...open,
      enabled: false,
      validFrom: secondsFrom(NOW, 60),
      validUntil: secondsFrom(NOW, 120),
      claimedCount: 10,
    };
    let facts: ClaimFacts = {
      now: NOW,
      assetEnabled: false,
      hasDistributionWallet: false,
      userLiveClaimsInPeriod: 1,
      walletFunded: false,
    };
    const fixes: ((r: ClaimableRule, f: ClaimFacts) => [ClaimableRule, ClaimFacts])[] = [
      (r, f) => [{ ...r, enabled: true }, f],
      (r, f) => [r, { ...f, assetEnabled: true }],
      (r, f) => [r, { ...f, hasDistributionWallet: true }],
      (r, f) => [r, { ...f, now: secondsFrom(NOW, 120) }], // past the start, and at the end exactly
      (r, f) => [r, { ...f, now: secondsFrom(NOW, 60) }], // at the start exactly
      (r, f) => [{ ...r, claimedCount: 9 }, f],
      (r, f) => [r, { ...f, userLiveClaimsInPeriod: 0 }],
      (r, f) => [r, { ...f, walletFunded: true }],
    ];
    const seen: (string | null)[] = [];
    for (const fix of fixes) {
      seen.push(claimRefusal(rule, facts));
      [rule, facts] = fix(rule, facts);
    }
    seen.push(claimRefusal(rule, facts));
    assert.deepEqual(seen, [...CLAIM_REFUSALS, null]);
  });
});
