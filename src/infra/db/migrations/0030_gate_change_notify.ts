// The gate caches API keys in each process (src/domain/apiKeys/keyCache.ts). These triggers tell every process, by
// NOTIFY on channel `onboard_gate` with the app's id, whenever something the gate decides on changes: a key revoked,
// expired or rotated, an app archived, restored or removed, an app's allowed origins edited. Triggers rather than calls
// in the code paths, so that no way of changing these rows (an operation, the admin CLI, a migration, SQL by hand) can
// leave a process serving a stale answer. PostgreSQL delivers a notification when the changing transaction commits and
// folds duplicates within it (one per app, however many rows changed).
//
// `last_used_at` is not among the watched columns: the gate writes it once a minute per key, and it decides nothing.
import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.raw(`
    create function onboard_gate_changed() returns trigger language plpgsql as $$
    begin
      perform pg_notify('onboard_gate', case when tg_op = 'DELETE' then old.app_id else new.app_id end);
      return null;
    end $$;
    create function onboard_gate_app_changed() returns trigger language plpgsql as $$
    begin
      perform pg_notify('onboard_gate', case when tg_op = 'DELETE' then old.id else new.id end);
      return null;
    end $$;
    create trigger api_keys_gate_notify
      after update of revoked_at, expires_at, app_id, type, network, key_hash or delete on api_keys
      for each row execute function onboard_gate_changed();
    create trigger app_origins_gate_notify
      after insert or update or delete on app_origins
      for each row execute function onboard_gate_changed();
    create trigger apps_gate_notify
      after update of status or delete on apps
      for each row execute function onboard_gate_app_changed();
  `);
}

export async function down(db: Knex): Promise<void> {
  await db.raw(`
    drop trigger if exists apps_gate_notify on apps;
    drop trigger if exists app_origins_gate_notify on app_origins;
    drop trigger if exists api_keys_gate_notify on api_keys;
    drop function if exists onboard_gate_app_changed();
    drop function if exists onboard_gate_changed();
  `);
}
