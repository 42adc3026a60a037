// Limits (issue #4): the durable per-key, per-UTC-day request count of testnet keys, and the table of
// rate-limiter-flexible's PostgreSQL store (RATE_LIMIT_STORE=postgres), in the library's own layout, created here so
// the schema stays under our migrations (the limiter is built with tableCreated: true).
import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('api_key_daily_usage', (t) => {
    t.text('key_id').notNullable().references('id').inTable('api_keys').onDelete('CASCADE');
    t.date('day').notNullable(); // the UTC day
    t.integer('count').notNullable();
    t.primary(['key_id', 'day']);
  });
  await db.raw(`create table rate_limit_points (
    key varchar(255) primary key,
    points integer not null default 0,
    expire bigint
  )`);
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('rate_limit_points');
  await db.schema.dropTable('api_key_daily_usage');
}
