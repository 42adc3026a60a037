import type { Deps } from '../../domain/deps';
import { findApp } from '../../domain/apps/store';
import { claimRefusal, liveClaimCounts } from '../../domain/distribution/eligibility';
import { assetEnabledFor, listEnabledRules, ruleView } from '../../domain/distribution/rules';
import { AppError } from '../../domain/errors';
import { findOwnedWallet } from '../../domain/wallets/store';
import { appWalletFor } from '../../domain/wallets/treasuryWallets';
import { requireUser } from '../sdk-auth/sessionUser';
import type { Handler } from '../types';

/**
 * The app's enabled distribution rules on the key's network, newest first, each with whether the session user may
 * claim it now and, if not, the code the claim would answer (claimRefusal: the claim's own decision). A user without a
 * wallet on the network, or with an unfunded one, sees WALLET_NOT_FUNDED where nothing else stops the claim.
 */
export function listDistributionRules(deps: Pick<Deps, 'db' | 'clock'>): Handler<'listDistributionRules'> {
  return async (req) => {
    // 1. the session user, of the key's app, on the key's network
    const user = requireUser(req.auth);
    const network = req.auth.apiKey?.network;
    const app = await findApp(deps.db, user.appId);
    if (!network || !app)
      throw new AppError('SDK_AUTH_INVALID_TOKEN', {
        message: "This operation needs an end-user session of the key's app",
      });
    // 2. the rules, and the facts every rule's decision reads (one query each, whatever the number of rules)
    const now = deps.clock.now();
    const rules = await listEnabledRules(deps.db, app.id, network);
    const [wallet, distributionWallet, claims] = await Promise.all([
      findOwnedWallet(deps.db, { appId: app.id, network, owner: { userId: user.userId } }),
      appWalletFor(deps.db, app.id, network, 'distribution'),
      liveClaimCounts(deps.db, { userId: user.userId, rules, now }),
    ]);
    // 3. decide per rule and respond
    return {
      content: {
        rules: rules.map((rule) => {
          const reason = claimRefusal(rule, {
            now,
            assetEnabled: assetEnabledFor(app, rule.asset),
            hasDistributionWallet: distributionWallet !== undefined,
            userLiveClaimsInPeriod: claims.get(rule.id) ?? 0,
            walletFunded: wallet?.fundingState === 'funded',
          });
          return { ...ruleView(rule), claimable: reason === null, reason };
        }),
      },
    };
  };
}
