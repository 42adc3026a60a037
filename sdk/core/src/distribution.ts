// Token distribution for the client library: the app's rules the session user may claim, and a claim, each answering
// an outcome `{ status: 'listed' | 'success' | 'pending' | 'error', ... }` like the transaction helpers
// (./transactions.ts). They never throw: an API error, a network failure and a malformed answer all come back as
// `{ status: 'error', code, httpStatus, message }`, with Stellar's `resultCode` on TX_SUBMIT_FAILED.
// Import as `import { distribution } from '@onboard/core'` and call `distribution.claim(onboard.api, { ruleId })`.
import type { DistributionRule } from '../../../generated/client/types.gen.js';
import { errorOutcome as errorOf, invalidOutcome as invalid, isRecord, type ErrorOutcome } from './outcome.js';
import type { OnboardClient } from './types.js';

/** The operations these helpers call (an OnboardClient, or a stand-in with the same methods). */
export type DistributionClient = Pick<OnboardClient, 'listDistributionRules' | 'claimDistributionRule'>;

/**
 * A rule as the session user sees it: the contract's DistributionRule with `claimable` and `reason` always set (the
 * SDK list carries both), and the asset's code (`XLM` for native) for display.
 */
export type DistributionRuleView = DistributionRule & {
  /** Whether the session user can claim it now. */
  claimable: boolean;
  /** When not claimable, the code a claim would answer now (e.g. DISTRIBUTION_RULE_EXHAUSTED); null when claimable. */
  reason: string | null;
  /** The asset's code: `XLM` for native, else the CODE of CODE:ISSUER. */
  assetCode: string;
};

export interface DistributionRulesListed {
  status: 'listed';
  /** The app's enabled rules on the key's network, newest first (at most 100). */
  rules: DistributionRuleView[];
}

/** A claim the service accepted and paid: `success` once the payment is in a ledger, `pending` until confirmed. */
export interface DistributionClaimed {
  status: 'success' | 'pending';
  ruleId: string;
  /** `native` or CODE:ISSUER. */
  asset: string;
  /** `XLM` for native. */
  assetCode: string;
  /** What was paid, a decimal string. */
  amount: string;
  /** The payment's hash (the fee-bump's), for the history and getTransaction. */
  txHash: string;
}

/**
 * The error outcome, the same shape as the transaction helpers': `code` is a catalogue code (DISTRIBUTION_*,
 * WALLET_NOT_FUNDED, TX_SUBMIT_FAILED...) or NETWORK_ERROR / INVALID_RESPONSE; a claim's error carries the
 * Idempotency-Key it was sent with.
 */
export type DistributionError = ErrorOutcome;

export type DistributionRulesResult = DistributionRulesListed | DistributionError;
export type DistributionClaimResult = DistributionClaimed | DistributionError;

export interface ClaimInput {
  /** The rule to claim (`dst_...`). */
  ruleId: string;
  /**
   * Idempotency-Key of the claim; a UUID is generated when omitted. A retry with the same key replays the first claim
   * instead of paying twice: pass back the key of an error outcome when retrying after an ambiguous NETWORK_ERROR.
   */
  idempotencyKey?: string;
}

/** The asset's code: `XLM` for native, else the CODE of CODE:ISSUER. */
function assetCodeOf(asset: string): string {
  return asset === 'native' ? 'XLM' : (asset.split(':')[0] ?? asset);
}

/** A listed rule as a view, or undefined when it lacks what the contract promises (id, name, asset, amount, claimable). */
function ruleOf(value: unknown): DistributionRuleView | undefined {
  if (!isRecord(value)) return undefined;
  const { ruleId, name, asset, amountPerClaim, claimable, reason } = value;
  if (typeof ruleId !== 'string' || typeof name !== 'string') return undefined;
  if (typeof asset !== 'string' || typeof amountPerClaim !== 'string') return undefined;
  if (typeof claimable !== 'boolean') return undefined;
  if (reason !== undefined && reason !== null && typeof reason !== 'string') return undefined;
  const rule = value as DistributionRule;
  return { ...rule, claimable, reason: reason ?? null, assetCode: assetCodeOf(asset) };
}

/**
 * The app's enabled distribution rules on the key's network, newest first, each with `claimable` (whether the session
 * user can claim it now) and `reason` (the code a claim would answer now, null when claimable).
 */
export async function listRules(client: DistributionClient): Promise<DistributionRulesResult> {
  const out = await client.listDistributionRules();
  if (!out.ok) return errorOf(out);
  const c: unknown = out.content;
  const listed = isRecord(c) ? c.rules : undefined;
  if (!Array.isArray(listed)) return invalid('a rules list without rules', out.status);
  const rules: DistributionRuleView[] = [];
  for (const item of listed) {
    const rule = ruleOf(item);
    if (!rule) return invalid('a rule without ruleId, name, asset, amountPerClaim or claimable', out.status);
    rules.push(rule);
  }
  return { status: 'listed', rules };
}

/**
 * Claims a rule for the session user: the rule's amount is paid from the app's distribution wallet to the user's
 * wallet (the app pays the fee; a missing trustline is added, its reserve sponsored). Resolves to `success` (in a
 * ledger) or `pending` (sent, not yet confirmed: the service settles it, and the list shows it), or an error outcome:
 * DISTRIBUTION_RULE_NOT_FOUND (404), DISTRIBUTION_RULE_NOT_STARTED / _EXPIRED / _EXHAUSTED / _DISABLED,
 * DISTRIBUTION_NO_DISTRIBUTION_WALLET, WALLET_NOT_FUNDED, TX_IDEMPOTENCY_CONFLICT (409),
 * DISTRIBUTION_RATE_LIMIT_EXCEEDED (429), TX_SUBMIT_FAILED with `resultCode` (422), a network failure...
 *
 * Idempotency: the request carries `input.idempotencyKey`, or a UUID generated for this call, so a retry of it (the
 * transport's retry, the DPoP nonce retry, or the caller's own retry with the same key) replays the first claim
 * instead of paying twice. An error outcome returns the key used.
 */
export async function claim(client: DistributionClient, input: ClaimInput): Promise<DistributionClaimResult> {
  const idempotencyKey = input.idempotencyKey ?? crypto.randomUUID();
  const out = await client.claimDistributionRule({
    path: { ruleId: input.ruleId },
    headers: { 'Idempotency-Key': idempotencyKey },
  });
  if (!out.ok) return errorOf(out, idempotencyKey);
  const c: unknown = out.content;
  if (!isRecord(c)) return invalid('a claim answer without content', out.status, idempotencyKey);
  const { ruleId, asset, assetCode, amount, txHash, status } = c;
  if (status !== 'SUCCESS' && status !== 'PENDING')
    return invalid(`unknown claim status ${String(status)}`, out.status, idempotencyKey);
  if (
    typeof ruleId !== 'string' ||
    typeof asset !== 'string' ||
    typeof amount !== 'string' ||
    typeof txHash !== 'string' ||
    txHash === ''
  )
    return invalid('a claim answer without ruleId, asset, amount and txHash', out.status, idempotencyKey);
  return {
    status: status === 'SUCCESS' ? 'success' : 'pending',
    ruleId,
    asset,
    assetCode: typeof assetCode === 'string' ? assetCode : assetCodeOf(asset),
    amount,
    txHash,
  };
}
