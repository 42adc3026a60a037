import type { Deps } from '../../domain/deps';
import {
  EMAIL_CODE_SETTINGS,
  issueEmailCode,
  normalizeEmail,
  OPERATOR_SCOPE,
  withdrawEmailCode,
} from '../../domain/emailCodes/emailCodes';
import { createAbuseLimiter } from '../../domain/limits/abuseLimits';
import type { Handler } from '../types';

/** Codes asked for per client IP per hour (many addresses from one network is an enumeration or spam pattern). */
const SENDS_PER_IP_PER_HOUR = 30;

/**
 * Emails an operator a sign-in code. The answer never says whether the address belongs to an operator (the first
 * sign-in creates one), so it cannot be used to discover accounts.
 */
export function startOperatorEmailSignIn(
  deps: Pick<Deps, 'db' | 'clock' | 'secrets' | 'mailer' | 'limits' | 'log'>,
): Handler<'startOperatorEmailSignIn'> {
  const perIp = createAbuseLimiter(deps, deps.limits?.store ?? 'memory', {
    name: 'operator_email_start_ip',
    points: SENDS_PER_IP_PER_HOUR,
    durationSeconds: 3600,
  });
  return async (req) => {
    const email = normalizeEmail(req.body.email);
    // 1. abuse limits: per network, then per address (one code per 60 s, inside issueEmailCode)
    await perIp.consume(req.ip);
    const issued = await issueEmailCode(deps.db, deps.secrets, { scope: OPERATOR_SCOPE, email, now: deps.clock.now() });
    // 2. send, outside any transaction; a failed send withdraws the code so the operator can retry at once
    try {
      await deps.mailer.send({
        to: email,
        subject: `Your Onboard sign-in code: ${issued.code}`,
        text: signInText(issued.code),
        kind: 'operator-sign-in-code',
      });
    } catch (err) {
      await withdrawEmailCode(deps.db, { scope: OPERATOR_SCOPE, email, issued });
      throw err;
    }
    // 3. respond
    return {
      content: {
        sent: true,
        expiresInSeconds: EMAIL_CODE_SETTINGS.ttlSeconds,
        resendAfterSeconds: issued.resendAfterSeconds,
      },
    };
  };
}

function signInText(code: string): string {
  const minutes = EMAIL_CODE_SETTINGS.ttlSeconds / 60;
  return [
    `Your Onboard Dashboard sign-in code is ${code}.`,
    '',
    `It expires in ${minutes} minutes and works once. If you did not ask for it, ignore this email: nobody can sign in without the code.`,
  ].join('\n');
}
