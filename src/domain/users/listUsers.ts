// The Dashboard's Users page: an app's users newest first, searched by email, externalId or userId (exactly or by
// prefix) or by a wallet's G-address, paged by offset or, at constant cost for deep pages, by a cursor. A cursor names
// the last user of a page; the next page is the users ordered after it, (created_at, id) descending, on the index
// (app_id, created_at, id).
import type { Knex } from 'knex';
import { toUser, type User, type UserRow } from './users';
import { invalidCursor } from '../paging/cursor';

export interface UserPageRequest {
  search?: string;
  limit: number;
  offset: number;
  cursor?: string;
}

export interface UserPage {
  users: User[];
  /** Users matching the search. */
  total: number;
  /** The cursor of the next page, or null on the last page. */
  nextCursor: string | null;
}

function encodeCursor(userId: string): string {
  return Buffer.from(JSON.stringify({ after: userId })).toString('base64url');
}

function decodeCursor(cursor: string): string {
  try {
    const after = (JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { after?: unknown }).after;
    if (typeof after === 'string' && /^usr_[0-9A-Za-z]+$/.test(after)) return after;
  } catch {
    // answered below, like any other cursor this list did not make
  }
  throw invalidCursor();
}

/** LIKE's wildcards (and its escape character) taken literally. */
function likePrefix(value: string): string {
  return `${value.replace(/[\\%_]/g, '\\$&')}%`;
}

export async function listAppUsers(db: Knex, appId: string, page: UserPageRequest): Promise<UserPage> {
  const matching = (query: Knex.QueryBuilder): Knex.QueryBuilder => {
    query.where('u.app_id', appId);
    const search = page.search;
    if (search !== undefined) {
      query.where((q) => {
        q.where('u.email', 'like', likePrefix(search.toLowerCase()))
          .orWhere('u.external_id', 'like', likePrefix(search))
          .orWhere('u.id', 'like', likePrefix(search))
          .orWhereIn(
            'u.id',
            db('wallets').select('user_id').where({ app_id: appId, public_key: search }).whereNotNull('user_id'),
          );
      });
    }
    return query;
  };

  const rowsQuery = matching(db('users as u'))
    .select<UserRow[]>('u.*')
    .orderBy([
      { column: 'u.created_at', order: 'desc' },
      { column: 'u.id', order: 'desc' },
    ])
    .limit(page.limit + 1);
  if (page.cursor !== undefined) {
    const after = decodeCursor(page.cursor);
    if (!(await db('users').where({ app_id: appId, id: after }).first('id'))) throw invalidCursor();
    // Compared in SQL, so the timestamp keeps its full (microsecond) precision.
    rowsQuery.whereRaw('(u.created_at, u.id) < (select created_at, id from users where id = ?)', [after]);
  } else {
    rowsQuery.offset(page.offset);
  }
  const [rows, counted] = await Promise.all([
    rowsQuery,
    matching(db('users as u')).count<{ n: string | number }[]>({ n: '*' }),
  ]);
  const users = rows.slice(0, page.limit).map(toUser);
  return {
    users,
    total: Number(counted[0]?.n ?? 0),
    nextCursor: rows.length > page.limit ? encodeCursor(users.at(-1)!.id) : null,
  };
}
