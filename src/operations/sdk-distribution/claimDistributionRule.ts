import type { Deps } from '../../domain/deps';
import { requestActor } from '../../domain/audit/auditLog';
import { claimRule, type ClaimDeps } from '../../domain/distribution/claims';
import { requireSessionWallet } from '../sdkWallet';
import type { Handler } from '../types';

/** Pays the rule's amount to the session user's wallet from the app's distribution wallet (claims.ts). */
export function claimDistributionRule(
  deps: Pick<Deps, 'db' | 'kms' | 'clock' | 'log' | 'secrets' | 'funding' | 'stellar' | 'jobs'> &
    Pick<ClaimDeps, 'payoutQueue'>,
): Handler<'claimDistributionRule'> {
  return async (req) => {
    // 1. the session user's wallet on the key's network
    const { app, userId, wallet } = await requireSessionWallet(deps, req.auth);
    // 2. reserve under the rule's lock, pay, settle (domain); the Idempotency-Key also guards against a second claim
    const key = req.headers['idempotency-key'];
    const content = await claimRule(deps, {
      app,
      userId,
      wallet,
      ruleId: req.path.ruleId,
      ...(typeof key === 'string' && key ? { requestKey: key } : {}),
      actor: requestActor(req.auth),
    });
    // 3. respond
    return { content };
  };
}
