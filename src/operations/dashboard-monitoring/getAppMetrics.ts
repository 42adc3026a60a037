import type { Deps } from '../../domain/deps';
import { requireAppAccess } from '../../domain/apps/access';
import { appMetrics, metricsWindow } from '../../domain/monitoring/appMetrics';
import { requireOperator } from '../operator';
import type { Handler } from '../types';

/** The app's usage and spend over a window, with a series for charts; any member may read it. */
export function getAppMetrics(deps: Pick<Deps, 'db' | 'clock'>): Handler<'getAppMetrics'> {
  return async (req) => {
    // 1. authorize: any member of the app
    const { operatorId } = requireOperator(req.auth);
    const { app } = await requireAppAccess(deps.db, operatorId, req.path.appId);
    // 2. the window as applied (defaults, order, at most 366 days)
    const { from, to } = metricsWindow(req.query ?? {}, deps.clock.now());
    // 3. respond
    return { content: await appMetrics(deps.db, { appId: app.id, from, to }) };
  };
}
