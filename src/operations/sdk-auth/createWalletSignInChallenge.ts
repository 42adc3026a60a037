import { StrKey } from '@stellar/stellar-sdk';
import type { Deps } from '../../domain/deps';
import { AppError } from '../../domain/errors';
import { createAbuseLimiter } from '../../domain/limits/abuseLimits';
import { requireStellarSignIn } from '../../domain/oauth/appProviders';
import { appSep10 } from '../../domain/sep10/appChallenges';
import type { Handler } from '../types';

/** Challenges per client IP per 10 minutes, per app: each costs the service a signature, and a person signs in rarely. */
const CHALLENGES_PER_IP_PER_10_MINUTES = 120;

/** A SEP-10 challenge for the user's own Stellar account, named for the app's site; nothing is stored until used. */
export function createWalletSignInChallenge(
  deps: Pick<Deps, 'db' | 'secrets' | 'limits' | 'sep10'>,
): Handler<'createWalletSignInChallenge'> {
  const sep10 = appSep10(deps);
  const perIp = createAbuseLimiter(deps, deps.limits?.store ?? 'memory', {
    name: 'user_sep10_challenge_ip',
    points: CHALLENGES_PER_IP_PER_10_MINUTES,
    durationSeconds: 600,
  });
  return async (req) => {
    const { appId, network } = req.auth.apiKey!;
    // 1. abuse limit per app and network
    await perIp.consume(`${appId}:${req.ip}`);
    // 2. the app offers wallet sign-in (403 AUTH_PROVIDER_DISABLED)
    await requireStellarSignIn(deps.db, appId);
    // 3. validate what the contract's pattern cannot (the StrKey checksum)
    const { account } = req.query;
    if (!StrKey.isValidEd25519PublicKey(account)) {
      throw new AppError('VALIDATION_ERROR', {
        message: 'Request validation failed',
        details: { fieldErrors: { 'query.account': ['must be a Stellar G-address (checksum)'] } },
      });
    }
    // 4. respond with a challenge signed by the service, for the site the request comes from (the gate allowed it)
    const origin = typeof req.headers.origin === 'string' ? req.headers.origin : undefined;
    const issuer = sep10.issuer(network);
    const { transaction, expiresAt } = issuer.issue(account, sep10.homeDomainFor(origin));
    return {
      content: { transaction, networkPassphrase: issuer.networkPassphrase, expiresAt: expiresAt.toISOString() },
    };
  };
}
