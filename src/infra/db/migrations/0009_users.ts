// End users (issue #5): per app, with the app's own id for them (externalId), their verified email, and the
// identities they signed in with (email, google, github). A new identity whose verified email matches a user of the
// app is linked to that user, so one person is one user whatever provider they use.
// End-user sessions also keep the client (IP address, user agent) of their last sign-in or refresh, for the user's
// list of sessions (a lost device is recognised by it).
import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('users', (t) => {
    t.text('id').primary();
    t.text('app_id').notNullable().references('id').inTable('apps').onDelete('CASCADE');
    t.text('external_id'); // the app's own id, unique within the app
    t.text('email'); // verified, lower case; unique within the app
    t.text('last_provider').notNullable().checkIn(['email', 'google', 'github'], 'users_last_provider_check');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('last_seen_at', { useTz: true });
    t.index(['app_id', 'created_at', 'id']); // the Dashboard's list: newest first, keyset paging
  });
  // text_pattern_ops: the same indexes serve uniqueness and the Dashboard's prefix search (LIKE 'abc%') whatever the
  // database's collation.
  await db.raw('create unique index users_app_external_id_unique on users (app_id, external_id text_pattern_ops)');
  await db.raw('create unique index users_app_email_unique on users (app_id, email text_pattern_ops)');
  await db.raw('create index users_app_id_prefix on users (app_id, id text_pattern_ops)');
  await db.schema.createTable('user_identities', (t) => {
    t.text('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.text('app_id').notNullable();
    t.text('provider').notNullable().checkIn(['email', 'google', 'github'], 'user_identities_provider_check');
    t.text('subject').notNullable(); // the email address, or the provider's stable account id (OIDC sub, GitHub id)
    t.text('email');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.primary(['app_id', 'provider', 'subject']);
    t.index(['user_id']);
  });
  await db.schema.alterTable('sessions', (t) => {
    t.text('client_ip');
    t.text('client_user_agent');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('sessions', (t) => {
    t.dropColumn('client_ip');
    t.dropColumn('client_user_agent');
  });
  await db.schema.dropTable('user_identities');
  await db.schema.dropTable('users');
}
