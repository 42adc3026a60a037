import type { Deps } from '../../domain/deps';
import { requireAppAccess } from '../../domain/apps/access';
import { domainsFieldErrors, getAppDomains, replaceAppDomains } from '../../domain/apps/domains';
import { AppError } from '../../domain/errors';
import { requireOperator } from '../operator';
import type { Handler } from '../types';

/** Replaces both Domains lists at once; the gate uses the new origins from the next request. */
export function updateAppDomains(deps: Pick<Deps, 'db'>): Handler<'updateAppDomains'> {
  return async (req) => {
    // 1. authenticate and authorize (any member of an active app)
    const { operatorId } = requireOperator(req.auth);
    await requireAppAccess(deps.db, operatorId, req.path.appId);
    // 2. validate: exact forms only, since both lists are matched as strings
    const fieldErrors = domainsFieldErrors(req.body);
    if (Object.keys(fieldErrors).length)
      throw new AppError('VALIDATION_ERROR', { message: 'Request validation failed', details: { fieldErrors } });
    // 3. replace both lists in one transaction: never half of a change
    const stored = await deps.db.transaction(async (trx) => {
      await replaceAppDomains(trx, req.path.appId, req.body);
      return getAppDomains(trx, req.path.appId);
    });
    // 4. respond
    return { content: stored };
  };
}
