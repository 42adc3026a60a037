// The tenant model: operators, apps (with owner and members), API keys (hashed, never in clear) and allowed origins.
import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('operators', (t) => {
    t.text('id').primary();
    t.text('email').unique(); // nullable: an operator may sign in with a Stellar account only
    t.text('stellar_account');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
  });
  await db.schema.createTable('apps', (t) => {
    t.text('id').primary();
    t.text('name').notNullable();
    t.text('network').notNullable().checkIn(['testnet', 'mainnet'], 'apps_network_check');
    t.text('status').notNullable().defaultTo('active').checkIn(['active', 'archived'], 'apps_status_check');
    t.text('owner_operator_id').notNullable().references('id').inTable('operators');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('archived_at', { useTz: true });
  });
  await db.schema.createTable('app_members', (t) => {
    t.text('app_id').notNullable().references('id').inTable('apps').onDelete('CASCADE');
    t.text('operator_id').notNullable().references('id').inTable('operators').onDelete('CASCADE');
    t.text('role').notNullable().checkIn(['owner', 'admin', 'developer'], 'app_members_role_check');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.primary(['app_id', 'operator_id']);
    t.index(['operator_id']);
  });
  await db.schema.createTable('api_keys', (t) => {
    t.text('id').primary();
    t.text('app_id').notNullable().references('id').inTable('apps').onDelete('CASCADE');
    t.text('type').notNullable().checkIn(['publishable', 'secret'], 'api_keys_type_check');
    t.text('network').notNullable().checkIn(['testnet', 'mainnet'], 'api_keys_network_check');
    t.text('display_prefix').notNullable();
    t.text('key_hash').notNullable().unique(); // hex SHA-256 of the whole key; the gate looks keys up by it
    t.text('label');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('last_used_at', { useTz: true });
    t.timestamp('expires_at', { useTz: true });
    t.timestamp('revoked_at', { useTz: true });
    t.index(['app_id']);
  });
  await db.schema.createTable('app_origins', (t) => {
    t.text('app_id').notNullable().references('id').inTable('apps').onDelete('CASCADE');
    t.text('origin').notNullable(); // normalized: scheme://host[:port], lower case, no trailing slash
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.primary(['app_id', 'origin']);
  });
}

export async function down(db: Knex): Promise<void> {
  for (const table of ['app_origins', 'api_keys', 'app_members', 'apps', 'operators']) await db.schema.dropTable(table);
}
