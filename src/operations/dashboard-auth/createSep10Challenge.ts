import { StrKey } from '@stellar/stellar-sdk';
import type { Deps } from '../../domain/deps';
import { AppError } from '../../domain/errors';
import { createSep10, DEFAULT_SEP10_SETTINGS } from '../../domain/sep10/challenges';
import { createAbuseLimiter } from '../../domain/limits/abuseLimits';
import type { Handler } from '../types';

/** Challenges per client IP per 10 minutes: each costs the service a signature, and a person signs in rarely. */
const CHALLENGES_PER_IP_PER_10_MINUTES = 120;

/** Issues a SEP-10 challenge for a Stellar account to sign; nothing is stored until it is used. */
export function createSep10Challenge(
  deps: Pick<Deps, 'db' | 'secrets' | 'limits' | 'sep10'>,
): Handler<'createSep10Challenge'> {
  const sep10 = createSep10(deps.secrets, deps.sep10 ?? DEFAULT_SEP10_SETTINGS);
  const perIp = createAbuseLimiter(deps, deps.limits?.store ?? 'memory', {
    name: 'sep10_challenge_ip',
    points: CHALLENGES_PER_IP_PER_10_MINUTES,
    durationSeconds: 600,
  });
  return async (req) => {
    // 1. abuse limit per network
    await perIp.consume(req.ip);
    // 2. validate what the contract's pattern cannot (the StrKey checksum)
    const { account } = req.query;
    if (!StrKey.isValidEd25519PublicKey(account)) {
      throw new AppError('VALIDATION_ERROR', {
        message: 'Request validation failed',
        details: { fieldErrors: { 'query.account': ['must be a Stellar G-address (checksum)'] } },
      });
    }
    // 3. respond with a challenge signed by the service
    return { content: { transaction: sep10.issue(account), networkPassphrase: sep10.networkPassphrase } };
  };
}
