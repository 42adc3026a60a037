import type { Deps } from '../../domain/deps';
import {
  appScope,
  EMAIL_CODE_SETTINGS,
  issueEmailCode,
  normalizeEmail,
  withdrawEmailCode,
} from '../../domain/emailCodes/emailCodes';
import { requireEmailSignIn } from '../../domain/oauth/appProviders';
import { createAbuseLimiter } from '../../domain/limits/abuseLimits';
import { requireKeyApp } from '../keyApp';
import type { Handler } from '../types';

/** Codes asked for per client IP per hour, per app (many addresses from one network is an enumeration or spam pattern). */
export const SENDS_PER_IP_PER_HOUR = 30;

/**
 * Emails an end user of the key's app a sign-in code. The answer never says whether the address belongs to a user
 * (the first successful verification creates one), so it cannot be used to discover the app's users.
 */
export function startEmailSignIn(
  deps: Pick<Deps, 'db' | 'clock' | 'secrets' | 'mailer' | 'limits'>,
): Handler<'startEmailSignIn'> {
  const perIp = createAbuseLimiter(deps, deps.limits?.store ?? 'memory', {
    name: 'user_email_start_ip',
    points: SENDS_PER_IP_PER_HOUR,
    durationSeconds: 3600,
  });
  return async (req) => {
    const { appId } = req.auth.apiKey!;
    const email = normalizeEmail(req.body.email);
    const scope = appScope(appId);
    // 1. abuse limits: per app and network, then per address (one code per 60 s, inside issueEmailCode)
    await perIp.consume(`${appId}:${req.ip}`);
    const app = await requireKeyApp(deps.db, appId);
    // 2. the app offers email sign-in (403 AUTH_PROVIDER_DISABLED)
    await requireEmailSignIn(deps.db, appId);
    const issued = await issueEmailCode(deps.db, deps.secrets, { scope, email, now: deps.clock.now() });
    // 3. send, outside any transaction; a failed send withdraws the code so the user can retry at once
    try {
      await deps.mailer.send({
        to: email,
        subject: `Your ${app.name} sign-in code: ${issued.code}`,
        text: signInText(app.name, issued.code),
        kind: 'user-sign-in-code',
      });
    } catch (err) {
      await withdrawEmailCode(deps.db, { scope, email, issued });
      throw err;
    }
    // 4. respond
    return {
      content: {
        sent: true,
        expiresInSeconds: EMAIL_CODE_SETTINGS.ttlSeconds,
        resendAfterSeconds: issued.resendAfterSeconds,
      },
    };
  };
}

function signInText(appName: string, code: string): string {
  const minutes = EMAIL_CODE_SETTINGS.ttlSeconds / 60;
  return [
    `Your sign-in code for ${appName} is ${code}.`,
    '',
    `It expires in ${minutes} minutes and works once. If you did not ask for it, ignore this email: nobody can sign in without the code.`,
  ].join('\n');
}
