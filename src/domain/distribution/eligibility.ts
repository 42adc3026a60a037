// Whether a user may claim a distribution rule now, and if not why: the one decision behind both the SDK's list
// (`claimable` and `reason` per rule) and the claim itself, which calls claimRefusal inside the transaction that holds
// the rule's row locked, with facts read in that transaction. claimRefusal is pure (the facts are gathered by the
// caller; liveClaimCounts below gathers the rate-limit counts), so every refusal and both window edges are unit-tested.
import type { Knex } from 'knex';

/** The codes a claim can be refused with, in the order claimRefusal checks them. */
export const CLAIM_REFUSALS = [
  'DISTRIBUTION_RULE_DISABLED',
  'DISTRIBUTION_ASSET_NOT_ENABLED',
  'DISTRIBUTION_NO_DISTRIBUTION_WALLET',
  'DISTRIBUTION_RULE_NOT_STARTED',
  'DISTRIBUTION_RULE_EXPIRED',
  'DISTRIBUTION_RULE_EXHAUSTED',
  'DISTRIBUTION_RATE_LIMIT_EXCEEDED',
  'WALLET_NOT_FUNDED',
] as const;

export type ClaimRefusal = (typeof CLAIM_REFUSALS)[number];

/** What of a rule the decision reads (a DistributionRule of rules.ts has it all). */
export interface ClaimableRule {
  enabled: boolean;
  validFrom: Date | null;
  validUntil: Date | null;
  totalAllocation: number | null;
  claimedCount: number;
  /** null: one claim per user ever. */
  rateLimit: { maxClaims: number; periodSeconds: number } | null;
}

/** What the decision reads besides the rule, as of `now`. */
export interface ClaimFacts {
  now: Date;
  /** The rule's asset is still distributed by the app (XLM, or among the app's assets). */
  assetEnabled: boolean;
  /** The app has a wallet doing distribution on the rule's network. */
  hasDistributionWallet: boolean;
  /**
   * The user's live claims of the rule (not released) made after now - the rate limit's period, or ever when the rule
   * has no rate limit: liveClaimCounts.
   */
  userLiveClaimsInPeriod: number;
  /** The user's wallet on the rule's network is funded (funding_state 'funded'). */
  walletFunded: boolean;
}

/**
 * The error code a claim of `rule` would get now, or null when the user may claim. Checked in this order: disabled,
 * asset no longer enabled, no distribution wallet, window not open yet (open from `validFrom` exactly), window closed
 * (closed from `validUntil` exactly), allocation used up, the user's rate limit, the user's wallet not funded.
 */
export function claimRefusal(rule: ClaimableRule, facts: ClaimFacts): ClaimRefusal | null {
  const now = facts.now.getTime();
  if (!rule.enabled) return 'DISTRIBUTION_RULE_DISABLED';
  if (!facts.assetEnabled) return 'DISTRIBUTION_ASSET_NOT_ENABLED';
  if (!facts.hasDistributionWallet) return 'DISTRIBUTION_NO_DISTRIBUTION_WALLET';
  if (rule.validFrom !== null && now < rule.validFrom.getTime()) return 'DISTRIBUTION_RULE_NOT_STARTED';
  if (rule.validUntil !== null && now >= rule.validUntil.getTime()) return 'DISTRIBUTION_RULE_EXPIRED';
  if (rule.totalAllocation !== null && rule.claimedCount >= rule.totalAllocation) return 'DISTRIBUTION_RULE_EXHAUSTED';
  if (facts.userLiveClaimsInPeriod >= (rule.rateLimit?.maxClaims ?? 1)) return 'DISTRIBUTION_RATE_LIMIT_EXCEEDED';
  if (!facts.walletFunded) return 'WALLET_NOT_FUNDED';
  return null;
}

/**
 * The user's live claims (status other than 'released') per rule, each counted over its own rate-limit period (claims
 * made after `now` - periodSeconds) or ever for a rule without a rate limit: one query, whatever the number of rules.
 * Rules without a claim of the user are absent (0). Pass the transaction that locked a rule to count under its lock.
 */
export async function liveClaimCounts(
  db: Knex,
  input: {
    userId: string;
    rules: readonly { id: string; rateLimit: { periodSeconds: number } | null }[];
    now: Date;
  },
): Promise<Map<string, number>> {
  if (input.rules.length === 0) return new Map();
  const { rows } = await db.raw<{ rows: { rule_id: string; claims: number }[] }>(
    `select p.rule_id, count(*)::int as claims
       from unnest(?::text[], ?::int[]) as p(rule_id, period_seconds)
       join distribution_claims c
         on c.rule_id = p.rule_id
        and c.user_id = ?
        and c.status <> 'released'
        and (p.period_seconds = 0 or c.created_at > ?::timestamptz - p.period_seconds * interval '1 second')
      group by p.rule_id`,
    [
      input.rules.map((r) => r.id),
      input.rules.map((r) => r.rateLimit?.periodSeconds ?? 0), // 0: no rate limit, count every claim (periods are >= 1)
      input.userId,
      input.now,
    ],
  );
  return new Map(rows.map((r) => [r.rule_id, r.claims]));
}
