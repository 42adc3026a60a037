// Distribution pushes (issue 19, item 4): an operator pays an amount of an asset to a list of up to 10,000 of the
// app's users, batched into transactions by the push runner (domain/distribution/pushRunner.ts).
//
// `distribution_pushes`: what is paid to each recipient, by whom (the audit log has the actor), and whether any
// recipient is still open (`running`) or all are settled (`completed`).
//
// `distribution_push_recipients`: one row per recipient in the order the push named them (`position`), written with
// the push before anything is sent. Unresolvable ones are `skipped` at once. The runner takes `pending` rows as
// `queued` with a lease (nothing sent yet: a lapsed lease puts them back), records each one's envelope as `submitted`
// before sending (so a crash after sending is reconciled with the chain by that hash, never paid twice), and settles
// them `paid` or `failed` (retryable: back to `pending`).
import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('distribution_pushes', (t) => {
    t.text('id').primary(); // dps_...
    t.text('app_id').notNullable().references('id').inTable('apps');
    t.text('network').notNullable(); // the app's
    t.text('name').notNullable();
    t.text('asset').notNullable(); // 'native' or CODE:ISSUER
    t.bigInteger('amount_stroops').notNullable();
    t.text('status').notNullable().checkIn(['running', 'completed'], 'distribution_pushes_status_check');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.timestamp('completed_at', { useTz: true });
    t.index(['app_id', 'created_at', 'id']);
  });
  await db.raw(`alter table distribution_pushes add constraint distribution_pushes_amount_check
     check (amount_stroops > 0)`);
  // the runner: pushes with work left, oldest first
  await db.raw(`create index distribution_pushes_running on distribution_pushes (created_at) where status = 'running'`);

  await db.schema.createTable('distribution_push_recipients', (t) => {
    t.text('push_id').notNullable().references('id').inTable('distribution_pushes');
    t.integer('position').notNullable(); // the order the push named them
    t.text('kind')
      .notNullable()
      .checkIn(['userId', 'externalId', 'walletAddress'], 'distribution_push_recipients_kind_check');
    t.text('value').notNullable(); // as named
    t.text('user_id').references('id').inTable('users'); // resolved; null when skipped as not found
    t.text('wallet_id').references('id').inTable('wallets');
    t.text('wallet_address');
    t.text('status')
      .notNullable()
      .checkIn(
        ['pending', 'queued', 'submitted', 'paid', 'failed', 'skipped'],
        'distribution_push_recipients_status_check',
      );
    t.timestamp('lease_until', { useTz: true }); // queued: the runner that took it is presumed dead after this
    t.text('tx_id'); // the payment's transactions record, once paid
    t.text('tx_hash'); // the fee-bump it was recorded in before sending (hex)
    t.text('envelope_xdr'); // that envelope, resent verbatim when recovering
    t.timestamp('valid_until', { useTz: true }); // its time bound
    t.text('failure_code'); // why it failed or was skipped
    t.integer('attempts').notNullable().defaultTo(0);
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.primary(['push_id', 'position']);
  });
  // counts by status, and the runner's next pending rows of a push
  await db.raw(
    `create index distribution_push_recipients_status on distribution_push_recipients (push_id, status, position)`,
  );
  // recovery: rows taken or sent but not settled
  await db.raw(`create index distribution_push_recipients_open on distribution_push_recipients (updated_at)
     where status in ('queued', 'submitted')`);
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('distribution_push_recipients');
  await db.schema.dropTable('distribution_pushes');
}
