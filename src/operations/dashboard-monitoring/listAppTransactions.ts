import type { Deps } from '../../domain/deps';
import { requireAppAccess } from '../../domain/apps/access';
import {
  DEFAULT_APP_TX_LIMIT,
  exportAppTransactions,
  listAppTransactions as readAppTransactions,
  type AppTxFilters,
} from '../../domain/transactions/appTransactions';
import { requireOperator } from '../operator';
import type { Handler } from '../types';

/**
 * The app's transactions, newest first, for any member: filters by status, type, asset and creation window; offset or
 * cursor paging in the envelope, or (`format=csv`) a CSV download of up to 10,000 rows, sent without the envelope.
 */
export function listAppTransactions(deps: Pick<Deps, 'db'>): Handler<'listAppTransactions'> {
  return async (req) => {
    // 1. authorize: any member of the app
    const { operatorId } = requireOperator(req.auth);
    const { app } = await requireAppAccess(deps.db, operatorId, req.path.appId);
    // 2. the filters (the window and the cursor are checked by the domain, which reads them)
    const q = req.query ?? {};
    const filters: AppTxFilters = {
      ...(q.status !== undefined ? { status: q.status } : {}),
      ...(q.type !== undefined ? { type: q.type } : {}),
      ...(q.asset !== undefined ? { asset: q.asset } : {}),
      ...(q.from !== undefined ? { from: q.from } : {}),
      ...(q.to !== undefined ? { to: q.to } : {}),
    };
    // 3a. the export: limit, offset and cursor do not apply
    if (q.format === 'csv') {
      const csv = await exportAppTransactions(deps.db, { appId: app.id, filters });
      return {
        raw: { contentType: 'text/csv', body: csv },
        headers: { 'Content-Disposition': `attachment; filename="transactions-${app.id}.csv"` },
      };
    }
    // 3b. one page and the total
    const limit = q.limit ?? DEFAULT_APP_TX_LIMIT;
    const page = await readAppTransactions(deps.db, {
      appId: app.id,
      filters,
      limit,
      offset: q.offset ?? 0,
      ...(q.cursor !== undefined ? { cursor: q.cursor } : {}),
    });
    // 4. respond
    return {
      content: {
        transactions: page.records,
        total: page.total,
        limit,
        offset: page.offset,
        nextCursor: page.nextCursor,
      },
    };
  };
}
