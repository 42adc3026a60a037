import type { Deps } from '../../domain/deps';
import { AppError } from '../../domain/errors';
import { createAbuseLimiter } from '../../domain/limits/abuseLimits';
import { requireStellarSignIn } from '../../domain/oauth/appProviders';
import { rpcAccountSigners } from '../../domain/sep10/accountSigners';
import { appSep10 } from '../../domain/sep10/appChallenges';
import { markChallengeUsed } from '../../domain/sep10/store';
import { walletView } from '../../domain/funding/userWallets';
import { completeUserSignIn, sdkSignInView, type UserSignInDeps } from '../../domain/users/signIn';
import { insertExternalWallet } from '../../domain/wallets/custody';
import { requireKeyApp } from '../keyApp';
import type { Handler } from '../types';

/** Verifications per client IP per 10 minutes, per app: each may read the chain and checks several signatures. */
const VERIFIES_PER_IP_PER_10_MINUTES = 60;

/**
 * Exchanges a signed SEP-10 challenge for an SDK session bound to the key of the request's DPoP proof. The user is
 * the account's (created at its first sign-in) and the user's wallet is that account, in the user's own custody.
 */
export function verifyWalletSignIn(
  deps: UserSignInDeps & Pick<Deps, 'limits' | 'sep10' | 'stellar'>,
): Handler<'verifyWalletSignIn'> {
  const sep10 = appSep10(deps);
  const perIp = createAbuseLimiter(deps, deps.limits?.store ?? 'memory', {
    name: 'user_sep10_verify_ip',
    points: VERIFIES_PER_IP_PER_10_MINUTES,
    durationSeconds: 600,
  });
  return async (req) => {
    const { appId, network } = req.auth.apiKey!;
    const now = deps.clock.now();
    // 1. abuse limit per app and network; the app and its wallet sign-in setting
    await perIp.consume(`${appId}:${req.ip}`);
    const app = await requireKeyApp(deps.db, appId);
    await requireStellarSignIn(deps.db, appId);
    // 2. the challenge: this service's, for one of the app's home domains, unexpired, signed by enough of the
    // account's keys (WALLET_AUTH_FAILED; STELLAR_UNAVAILABLE when the account cannot be read)
    const challenge = await sep10.issuer(network).verify(req.body.transaction, {
      now,
      homeDomains: await sep10.homeDomainsOf(appId),
      accountSigners: rpcAccountSigners(deps.stellar?.rpcUrls[network], network),
    });
    // 3. the user of the account, its wallet (the account itself), and a session; the challenge is used up in the
    // session's transaction, so a failure before leaves it usable and of concurrent uses exactly one signs in
    const userAgent = req.headers['user-agent'];
    const result = await completeUserSignIn(deps, {
      app,
      identity: { provider: 'stellar', subject: challenge.account, email: null },
      jkt: req.auth.dpopJkt!,
      client: { ip: req.ip, ...(userAgent ? { userAgent } : {}) },
      wallet: async (userId) =>
        walletView(
          await insertExternalWallet(deps, {
            appId,
            userId,
            network,
            publicKey: challenge.account,
            existsOnLedger: challenge.existsOnLedger,
          }),
        ),
      inSessionTransaction: async (trx) => {
        if (!(await markChallengeUsed(trx, challenge)))
          throw new AppError('WALLET_AUTH_FAILED', { message: 'The challenge was already used; ask for a new one' });
      },
    });
    return { content: sdkSignInView(result) };
  };
}
