import type { Deps } from '../../domain/deps';
import { AppError } from '../../domain/errors';
import { operatorView } from '../../domain/operators/operators';
import { completeOperatorSignIn, tokensView } from '../../domain/operators/signIn';
import { rpcAccountSigners } from '../../domain/sep10/accountSigners';
import { createSep10, DEFAULT_SEP10_SETTINGS } from '../../domain/sep10/challenges';
import { findOrCreateOperatorByStellarAccount, markChallengeUsed } from '../../domain/sep10/store';
import { sessionServiceFor } from '../../domain/sessions/sessions';
import { createAbuseLimiter } from '../../domain/limits/abuseLimits';
import type { Handler } from '../types';

/** Verifications per client IP per 10 minutes: each may read the chain and checks several signatures. */
const VERIFIES_PER_IP_PER_10_MINUTES = 60;

/**
 * Exchanges a signed SEP-10 challenge for a Dashboard session bound to the key of the request's DPoP proof; the
 * operator with that Stellar account is created at its first sign-in.
 */
export function verifySep10Challenge(
  deps: Pick<Deps, 'db' | 'clock' | 'secrets' | 'limits' | 'sessionSettings' | 'sep10' | 'stellar'>,
): Handler<'verifySep10Challenge'> {
  const settings = deps.sep10 ?? DEFAULT_SEP10_SETTINGS;
  const sep10 = createSep10(deps.secrets, settings);
  const accountSigners = rpcAccountSigners(deps.stellar?.rpcUrls[settings.network], settings.network);
  const sessions = sessionServiceFor(deps);
  const perIp = createAbuseLimiter(deps, deps.limits?.store ?? 'memory', {
    name: 'sep10_verify_ip',
    points: VERIFIES_PER_IP_PER_10_MINUTES,
    durationSeconds: 600,
  });
  return async (req) => {
    const now = deps.clock.now();
    // 1. abuse limit per network
    await perIp.consume(req.ip);
    // 2. the challenge: issued by this service, unexpired, signed by enough of the account's keys (WALLET_AUTH_FAILED;
    // STELLAR_UNAVAILABLE when the account cannot be read)
    const challenge = await sep10.verify(req.body.transaction, { now, accountSigners });
    // 3. in one transaction: the challenge used up (of concurrent verifications one wins), the operator found or
    // created, the session started; a failure leaves the challenge usable
    const { operator, tokens } = await deps.db.transaction(async (trx) => {
      if (!(await markChallengeUsed(trx, challenge)))
        throw new AppError('WALLET_AUTH_FAILED', { message: 'The challenge was already used; ask for a new one' });
      const operator = await findOrCreateOperatorByStellarAccount(trx, challenge.account);
      const tokens = await completeOperatorSignIn(trx, sessions, {
        operator,
        jkt: req.auth.dpopJkt!,
        method: 'sep10',
        now,
      });
      return { operator, tokens };
    });
    // 4. respond
    return { content: { tokens: tokensView(tokens), operator: operatorView(operator) } };
  };
}
