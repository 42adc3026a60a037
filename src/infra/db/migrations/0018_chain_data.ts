// Chain data stored without loss and without failing (issue #23, finding 1).
//
// `transactions.memo_base64`: a text memo's exact bytes (up to 28 arbitrary bytes on the chain); `memo` keeps the
// display form (domain/text/safeText.ts).
// `chain_quarantine`: a transaction the ledger follower read but could not record, kept with its raw XDR and the
// error, so that one bad item is set aside and the follower goes on (at most one row per network and hash).
import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('transactions', (t) => {
    t.text('memo_base64');
  });
  await db.schema.createTable('chain_quarantine', (t) => {
    t.bigIncrements('id');
    t.text('network').notNullable();
    t.integer('ledger').notNullable();
    t.text('hash').notNullable();
    t.text('envelope_xdr');
    t.text('result_xdr');
    t.text('error').notNullable(); // what failed (a message, never a secret)
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.unique(['network', 'hash']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('chain_quarantine');
  await db.schema.alterTable('transactions', (t) => {
    t.dropColumn('memo_base64');
  });
}
