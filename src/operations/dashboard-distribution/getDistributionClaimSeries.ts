import type { Deps } from '../../domain/deps';
import { requireAppAccess } from '../../domain/apps/access';
import { claimSeries, DEFAULT_SERIES_DAYS } from '../../domain/distribution/claimSeries';
import { requireOperator } from '../operator';
import type { Handler } from '../types';

/** The app's paid claims per UTC day and rule over the last `days` days, today included, for any member. */
export function getDistributionClaimSeries(deps: Pick<Deps, 'db' | 'clock'>): Handler<'getDistributionClaimSeries'> {
  return async (req) => {
    // 1. authorize: any member of an active app
    const { operatorId } = requireOperator(req.auth);
    const { app } = await requireAppAccess(deps.db, operatorId, req.path.appId);
    // 2. the span as applied (the request validator holds `days` to 1..90)
    const days = req.query?.days ?? DEFAULT_SERIES_DAYS;
    // 3. read and respond
    return { content: await claimSeries(deps.db, { appId: app.id, days, now: deps.clock.now() }) };
  };
}
