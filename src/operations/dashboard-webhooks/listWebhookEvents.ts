import type { Deps } from '../../domain/deps';
import { requireAppAccess } from '../../domain/apps/access';
import { decodeCursor, invalidCursor } from '../../domain/paging/cursor';
import { isEventCursorOfApp, listWebhookEvents as readEvents } from '../../domain/webhooks/eventLog';
import { requireOperator } from '../operator';
import type { Handler } from '../types';

/** The contract's default page size (components/parameters/Limit.yaml). */
const DEFAULT_LIMIT = 20;

/** The webhook event log, newest first, for any member; filters by status and type; offset or cursor paging. */
export function listWebhookEvents(deps: Pick<Deps, 'db'>): Handler<'listWebhookEvents'> {
  return async (req) => {
    // 1. authorize: any member of the app
    const { operatorId } = requireOperator(req.auth);
    const { app } = await requireAppAccess(deps.db, operatorId, req.path.appId);
    // 2. validate what the schema cannot: a cursor this list handed out, for this app
    const limit = req.query?.limit ?? DEFAULT_LIMIT;
    const cursor = req.query?.cursor === undefined ? undefined : decodeCursor(req.query.cursor, 'evt');
    if (req.query?.cursor !== undefined && (!cursor || !(await isEventCursorOfApp(deps.db, app.id, cursor))))
      throw invalidCursor();
    // 3. read one page and the total
    const page = await readEvents(deps.db, {
      appId: app.id,
      ...(req.query?.status !== undefined ? { status: req.query.status } : {}),
      ...(req.query?.event !== undefined ? { event: req.query.event } : {}),
      limit,
      offset: req.query?.offset ?? 0,
      ...(cursor ? { cursor } : {}),
    });
    // 4. respond
    return {
      content: { events: page.events, total: page.total, limit, offset: page.offset, nextCursor: page.nextCursor },
    };
  };
}
