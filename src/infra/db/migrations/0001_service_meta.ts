// Instance-wide facts (e.g. when the schema was first created), kept as key -> JSON value.
import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('service_meta', (t) => {
    t.text('key').primary();
    t.jsonb('value').notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
  });
  await db('service_meta').insert({ key: 'created_at', value: JSON.stringify(new Date().toISOString()) });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('service_meta');
}
