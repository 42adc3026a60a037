// Idempotency-Key records (src/http/idempotency.ts): one row per caller and key, claimed while the first request runs
// and holding its answer for 24 hours. The answer is stored encrypted (it can hold a secret shown once, such as a new
// API key); the request is stored only as a fingerprint.
import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('idempotency_keys', (t) => {
    t.text('scope').notNullable(); // the caller: operator:<operatorId>, user:<userId> or key:<keyId>
    t.text('key').notNullable(); // the client's Idempotency-Key (visible ASCII, up to 255)
    t.text('operation_id').notNullable();
    t.text('request_hash').notNullable(); // hex SHA-256 of the canonical request
    t.uuid('lock_id').notNullable(); // the claim of the request that runs (or ran) the operation
    t.timestamp('locked_at', { useTz: true }).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('completed_at', { useTz: true }); // null while the request is in flight
    t.binary('answer'); // AES-256-GCM sealed answer, set on completion
    t.primary(['scope', 'key']);
    t.index(['created_at']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('idempotency_keys');
}
