// SEP-10 operator sign-in (issue #5): one operator per Stellar account, and the challenges already used to sign in,
// kept until they expire so that a signed challenge works once.
import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('operators', (t) => {
    t.unique(['stellar_account'], { indexName: 'operators_stellar_account_unique' });
  });
  await db.schema.createTable('sep10_used_challenges', (t) => {
    t.text('challenge_hash').primary(); // hex transaction hash of the challenge (network-bound, signatures excluded)
    t.timestamp('expires_at', { useTz: true }).notNullable(); // the challenge's maxTime
    t.index(['expires_at']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('sep10_used_challenges');
  await db.schema.alterTable('operators', (t) => {
    t.dropUnique(['stellar_account'], 'operators_stellar_account_unique');
  });
}
