// The gate caches live sessions in each process (src/domain/sessions/sessionCache.ts). This trigger tells every
// process, by NOTIFY on channel `onboard_sessions` with the session's id, whenever a session's row changes or goes:
// a sign-out, a revocation (all of a user's sessions, a refresh token reused), a refresh. A trigger rather than calls
// in the code paths, so that no way of ending a session can leave a process accepting its tokens.
import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.raw(`
    create function onboard_session_changed() returns trigger language plpgsql as $$
    begin
      perform pg_notify('onboard_sessions', case when tg_op = 'DELETE' then old.id else new.id end);
      return null;
    end $$;
    create trigger sessions_notify
      after update or delete on sessions
      for each row execute function onboard_session_changed();
  `);
}

export async function down(db: Knex): Promise<void> {
  await db.raw(`
    drop trigger if exists sessions_notify on sessions;
    drop function if exists onboard_session_changed();
  `);
}
