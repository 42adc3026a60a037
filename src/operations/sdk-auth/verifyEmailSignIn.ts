import type { Deps } from '../../domain/deps';
import { appScope, normalizeEmail, releaseEmailCode, verifyEmailCode } from '../../domain/emailCodes/emailCodes';
import { completeUserSignIn, sdkSignInView, type UserSignInDeps } from '../../domain/users/signIn';
import { requireEmailSignIn } from '../../domain/oauth/appProviders';
import { createAbuseLimiter } from '../../domain/limits/abuseLimits';
import { requireKeyApp } from '../keyApp';
import type { Handler } from '../types';

/** Verifications per client IP per 10 minutes, per app: the per-code limit (5) stops guessing one code, this spraying. */
const VERIFIES_PER_IP_PER_10_MINUTES = 30;

/**
 * Exchanges an emailed code for an SDK session bound to the key of the request's DPoP proof; the first sign-in
 * creates the user and the wallet. A failure after the code was accepted gives the code back, so a retry works.
 */
export function verifyEmailSignIn(deps: UserSignInDeps & Pick<Deps, 'limits'>): Handler<'verifyEmailSignIn'> {
  const perIp = createAbuseLimiter(deps, deps.limits?.store ?? 'memory', {
    name: 'user_email_verify_ip',
    points: VERIFIES_PER_IP_PER_10_MINUTES,
    durationSeconds: 600,
  });
  return async (req) => {
    const { appId } = req.auth.apiKey!;
    const email = normalizeEmail(req.body.email);
    // 1. abuse limit per app and network; the code itself allows 5 wrong attempts
    await perIp.consume(`${appId}:${req.ip}`);
    const app = await requireKeyApp(deps.db, appId);
    // 2. the app still offers email sign-in (a code sent before it was turned off stays unused)
    await requireEmailSignIn(deps.db, appId);
    // 3. the code (EMAIL_CODE_INVALID for wrong, expired, used or used-up codes, without saying which)
    const consumed = await verifyEmailCode(deps.db, deps.secrets, {
      scope: appScope(appId),
      email,
      code: req.body.code,
      now: deps.clock.now(),
    });
    // 4. the user, the wallet and a session bound to the proof's key
    try {
      const userAgent = req.headers['user-agent'];
      const result = await completeUserSignIn(deps, {
        app,
        identity: { provider: 'email', subject: email, email },
        jkt: req.auth.dpopJkt!,
        client: { ip: req.ip, ...(userAgent ? { userAgent } : {}) },
      });
      return { content: sdkSignInView(result) };
    } catch (err) {
      // The code was right: what failed is the service's (the wallet, the chain, the database), so it goes back.
      await releaseEmailCode(deps.db, consumed).catch((releaseErr: unknown) =>
        req.log.error({ err: releaseErr }, 'could not give back an email code'),
      );
      throw err;
    }
  };
}
