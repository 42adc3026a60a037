import type { Deps } from '../../domain/deps';
import { userVerification } from '../../domain/kyc/verifications';
import type { Handler } from '../types';
import { sessionUserApp } from './sessionApp';

/** One of the session user's verifications, with its status (410 when its session expired undecided). */
export function getKycVerification(deps: Pick<Deps, 'db' | 'clock'>): Handler<'getKycVerification'> {
  return async (req) => {
    // 1. the session user and their app
    const { userId, app } = await sessionUserApp(deps, req.auth);
    // 2. read and respond
    return {
      content: await userVerification(deps, { appId: app.id, userId, verificationId: req.path.verificationId }),
    };
  };
}
