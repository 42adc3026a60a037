import type { Deps } from '../../domain/deps';
import { startKycSession as openKycSession } from '../../domain/kyc/verifications';
import type { Handler } from '../types';
import { sessionUserApp } from './sessionApp';

/** Opens a verification session for the session user with one of the app's providers. */
export function startKycSession(deps: Pick<Deps, 'db' | 'kms' | 'clock' | 'kyc'>): Handler<'startKycSession'> {
  return async (req) => {
    // 1. the session user and their app
    const { userId, app } = await sessionUserApp(deps, req.auth);
    // 2. the provider enabled at the level, the session opened and recorded (domain)
    const session = await openKycSession(deps, { app, userId, providerId: req.body.providerId, level: req.body.level });
    // 3. respond
    return { content: session };
  };
}
