// Soroban auth allowlist rows (issue 18): what `POST /v1/tx/sign-auth-entry` may sign for an app's users. One row per
// allowed contract (a C-address, or '*' for any contract) with its exact, case-sensitive function names (or ['*'] for
// any function). Rows belong to the app and so to its network (an app's network is fixed when it is created); they are
// listed oldest first, hence the (app_id, created_at, id) index. Changes are audited (audit_log), not versioned here.
import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('auth_policy_rows', (t) => {
    t.text('id').primary(); // apr_...
    t.text('app_id').notNullable().references('id').inTable('apps');
    t.text('contract').notNullable(); // C-address or '*'
    t.specificType('functions', 'text[]').notNullable();
    t.text('label');
    t.boolean('enabled').notNullable().defaultTo(true);
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.index(['app_id', 'created_at', 'id']);
  });
  // The one shape rule the database can hold: an any-contract row carries only the any-function wildcard.
  await db.raw(
    `alter table auth_policy_rows add constraint auth_policy_rows_wildcard_check
     check (contract <> '*' or functions = array['*'])`,
  );
  await db.raw(`alter table auth_policy_rows add constraint auth_policy_rows_functions_check
     check (cardinality(functions) between 1 and 100)`);
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('auth_policy_rows');
}
