import type { Deps } from '../../domain/deps';
import { normalizeEmail, OPERATOR_SCOPE, verifyEmailCode } from '../../domain/emailCodes/emailCodes';
import { findOrCreateOperatorByEmail } from '../../domain/apps/store';
import { operatorView } from '../../domain/operators/operators';
import { completeOperatorSignIn, tokensView } from '../../domain/operators/signIn';
import { sessionServiceFor } from '../../domain/sessions/sessions';
import { createAbuseLimiter } from '../../domain/limits/abuseLimits';
import type { Handler } from '../types';

/** Verifications per client IP per 10 minutes: the per-code limit (5) stops guessing one code, this stops spraying. */
const VERIFIES_PER_IP_PER_10_MINUTES = 30;

/** Exchanges an emailed code for a Dashboard session bound to the key of the request's DPoP proof. */
export function verifyOperatorEmailSignIn(
  deps: Pick<Deps, 'db' | 'clock' | 'secrets' | 'limits' | 'sessionSettings'>,
): Handler<'verifyOperatorEmailSignIn'> {
  const sessions = sessionServiceFor(deps);
  const perIp = createAbuseLimiter(deps, deps.limits?.store ?? 'memory', {
    name: 'operator_email_verify_ip',
    points: VERIFIES_PER_IP_PER_10_MINUTES,
    durationSeconds: 600,
  });
  return async (req) => {
    const email = normalizeEmail(req.body.email);
    const now = deps.clock.now();
    // 1. abuse limit per network; the code itself allows 5 wrong attempts
    await perIp.consume(req.ip);
    // 2. the code (EMAIL_CODE_INVALID for wrong, expired, used or used-up codes, without saying which)
    await verifyEmailCode(deps.db, deps.secrets, { scope: OPERATOR_SCOPE, email, code: req.body.code, now });
    // 3. the operator (created at the first sign-in) and a session bound to the proof's key
    const operator = await findOrCreateOperatorByEmail(deps.db, email);
    const tokens = await completeOperatorSignIn(deps.db, sessions, {
      operator,
      jkt: req.auth.dpopJkt!,
      method: 'email',
      now,
    });
    return { content: { tokens: tokensView(tokens), operator: operatorView(operator) } };
  };
}
