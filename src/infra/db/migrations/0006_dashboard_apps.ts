// Dashboard apps, members and domains (issue #4): per-app settings on `apps`, member ids and invitation times on
// `app_members` (with at most one owner per app, enforced by the database), list order for allowed origins, and the
// apps' OAuth redirect URIs.
import type { Knex } from 'knex';
import { randomBytes } from 'node:crypto';

export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('apps', (t) => {
    t.text('funding_mode')
      .notNullable()
      .defaultTo('immediate')
      .checkIn(['immediate', 'deferred'], 'apps_funding_mode_check');
    // XLM with stroop precision: exact decimal arithmetic, never a float
    t.decimal('starting_balance_xlm', 20, 7).notNullable().defaultTo('0');
    t.check('starting_balance_xlm >= 0', [], 'apps_starting_balance_check');
    // issued assets as `CODE:ISSUER`, in the operator's order
    t.specificType('assets', 'text[]').notNullable().defaultTo('{}');
    t.integer('access_token_ttl_minutes').notNullable().defaultTo(15);
    t.check('access_token_ttl_minutes between 1 and 1440', [], 'apps_access_token_ttl_check');
    t.integer('refresh_token_ttl_days').notNullable().defaultTo(30);
    t.check('refresh_token_ttl_days between 1 and 365', [], 'apps_refresh_token_ttl_check');
  });

  await db.schema.alterTable('app_members', (t) => {
    t.text('id').unique();
    t.renameColumn('created_at', 'invited_at');
    t.timestamp('joined_at', { useTz: true }); // null until the invited operator signs in
  });
  // Members from before this migration were owners created with their app: invited and joined then.
  for (const row of await db('app_members').select<{ app_id: string; operator_id: string }[]>(
    'app_id',
    'operator_id',
  )) {
    await db('app_members').where(row).update({ id: memberId() });
  }
  await db('app_members')
    .whereNull('joined_at')
    .update({ joined_at: db.ref('invited_at') });
  await db.schema.alterTable('app_members', (t) => {
    t.dropNullable('id');
  });
  // Exactly one owner per app is the rule; the database refuses a second one whatever the application code does.
  await db.raw(`create unique index app_members_one_owner on app_members (app_id) where role = 'owner'`);

  await db.schema.alterTable('app_origins', (t) => {
    t.integer('position').notNullable().defaultTo(0); // the operator's order of the list
  });
  await db.schema.createTable('app_redirect_uris', (t) => {
    t.text('app_id').notNullable().references('id').inTable('apps').onDelete('CASCADE');
    t.text('uri').notNullable(); // exact: OAuth compares it as a string
    t.integer('position').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.primary(['app_id', 'uri']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('app_redirect_uris');
  await db.schema.alterTable('app_origins', (t) => {
    t.dropColumn('position');
  });
  await db.raw('drop index app_members_one_owner');
  await db.schema.alterTable('app_members', (t) => {
    t.dropColumn('joined_at');
    t.renameColumn('invited_at', 'created_at');
    t.dropColumn('id');
  });
  await db.schema.alterTable('apps', (t) => {
    t.dropChecks(['apps_starting_balance_check', 'apps_access_token_ttl_check', 'apps_refresh_token_ttl_check']);
    for (const column of [
      'funding_mode',
      'starting_balance_xlm',
      'assets',
      'access_token_ttl_minutes',
      'refresh_token_ttl_days',
    ])
      t.dropColumn(column);
  });
}

/**
 * A member id in the format of this migration's time (`mem_` and 22 base62 characters, as src/domain/ids.ts mints
 * them), written out here because a migration must read the same forever and so imports nothing of the service.
 */
function memberId(): string {
  const base62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  let out = '';
  while (out.length < 22) {
    for (const byte of randomBytes(30)) {
      if (byte >= 248 || out.length === 22) continue; // 248 = 4 x 62: every character equally likely
      out += base62[byte % 62];
    }
  }
  return `mem_${out}`;
}
