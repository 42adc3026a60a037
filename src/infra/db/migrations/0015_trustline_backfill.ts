// Trustlines for assets enabled after wallets were funded (issue #6). When an app's settings gain an asset, every
// funded user wallet of the app needs a sponsored trustline for it; `trustline_backfills` holds one row per wallet and
// asset until the line is on the ledger, so the work survives a restart and is shared between instances.
// `lease_until` says which instance works on a row; `tx_hash` is recorded before the envelope is sent, so a line found
// on the ledger after a crash is known to be ours (and its `trustline.added` event is still owed).
import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('trustline_backfills', (t) => {
    t.text('wallet_id').notNullable().references('id').inTable('wallets');
    t.text('asset').notNullable(); // CODE:ISSUER
    t.text('app_id').notNullable().references('id').inTable('apps');
    t.text('status')
      .notNullable()
      .defaultTo('pending')
      .checkIn(['pending', 'added'], 'trustline_backfills_status_check');
    t.integer('attempts').notNullable().defaultTo(0);
    t.text('tx_hash'); // the latest attempt's, recorded before sending
    t.integer('ledger'); // where the line was added
    t.text('last_error'); // TRUSTLINE_FAILED or INSUFFICIENT_FUNDS_FOR_TRUSTLINE, with the reason
    t.timestamp('next_attempt_at', { useTz: true }).notNullable();
    t.timestamp('lease_until', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.primary(['wallet_id', 'asset']);
    t.index(['app_id']);
  });
  await db.raw(
    "create index trustline_backfills_due on trustline_backfills (next_attempt_at) where status = 'pending'",
  );
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('trustline_backfills');
}
