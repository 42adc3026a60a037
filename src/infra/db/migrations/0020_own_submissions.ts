// `own_submissions`: the hashes of transactions the service is about to submit without a `transactions` row of their
// own yet (wallet activations, trustline backfills), registered before they are sent. The ledger follower leaves these
// to the step that sent them (which records the activation with its history), so the service's own work never
// appears as an outside transaction, whichever of the two reads the ledger first. Pruned after eight days (past the
// RPC's seven-day retention window, beyond which the follower cannot read them again).
import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('own_submissions', (t) => {
    t.text('network').notNullable();
    t.text('hash').notNullable(); // hex: the fee-bump's hash, and the inner transaction's too
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.primary(['network', 'hash']);
    t.index(['created_at']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('own_submissions');
}
