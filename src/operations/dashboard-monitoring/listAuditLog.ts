import type { Deps } from '../../domain/deps';
import { requireAppAccess } from '../../domain/apps/access';
import { isCursorOfApp, listAuditLog as readAuditLog } from '../../domain/audit/auditLog';
import { decodeCursor } from '../../domain/audit/cursor';
import { invalidCursor } from '../../domain/paging/cursor';
import { requireOperator } from '../operator';
import type { Handler } from '../types';

/** The contract's default page size (components/parameters/Limit.yaml). */
const DEFAULT_LIMIT = 20;

/** The app's audit log, newest first, for any member; filters by action and wallet; offset or cursor paging. */
export function listAuditLog(deps: Pick<Deps, 'db'>): Handler<'listAuditLog'> {
  return async (req) => {
    // 1. authorize: any member of the app
    const { operatorId } = requireOperator(req.auth);
    const { app } = await requireAppAccess(deps.db, operatorId, req.path.appId);
    // 2. validate what the schema cannot: a cursor this list handed out, for this app
    const limit = req.query?.limit ?? DEFAULT_LIMIT;
    const cursor = req.query?.cursor === undefined ? undefined : decodeCursor(req.query.cursor);
    if (req.query?.cursor !== undefined && (!cursor || !(await isCursorOfApp(deps.db, app.id, cursor))))
      throw invalidCursor();
    // 3. read one page and the total
    const page = await readAuditLog(deps.db, {
      appId: app.id,
      ...(req.query?.action !== undefined ? { action: req.query.action } : {}),
      ...(req.query?.walletId !== undefined ? { walletId: req.query.walletId } : {}),
      limit,
      offset: req.query?.offset ?? 0,
      ...(cursor ? { cursor } : {}),
    });
    // 4. respond
    return {
      content: {
        entries: page.entries.map((e) => ({
          auditId: e.id,
          action: e.action,
          actor: e.actor,
          walletId: e.walletId,
          purpose: e.purpose,
          ip: e.ip,
          createdAt: e.createdAt.toISOString(),
        })),
        total: page.total,
        limit,
        offset: page.offset,
        nextCursor: page.nextCursor,
      },
    };
  };
}
