import type { Deps } from '../../domain/deps';
import { requireAppAccess } from '../../domain/apps/access';
import { kycSettingsOf } from '../../domain/kyc/settings';
import { requireOperator } from '../operator';
import type { Handler } from '../types';

/** The app's KYC providers and levels; credentials only as `credentialsSet`. */
export function getKycSettings(deps: Pick<Deps, 'db' | 'kyc'>): Handler<'getKycSettings'> {
  return async (req) => {
    // 1. authenticate and authorize (any member of an active app)
    const { operatorId } = requireOperator(req.auth);
    const { app } = await requireAppAccess(deps.db, operatorId, req.path.appId);
    // 2. respond
    return { content: { providers: await kycSettingsOf(deps, app) } };
  };
}
