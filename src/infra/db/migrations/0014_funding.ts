// The chain side of wallets (issue #6): activations and the event outbox.
//
// `wallet_activations`: one row per wallet that was ever asked to be activated, beside `wallets.funding_state`
// (unfunded -> activating -> funded). It records the intent before anything is submitted (the signed envelope and its
// hash, and the time bound after which it can never be applied) and the outcome after (ledger, reserve locked), so a
// crash between submission and confirmation is reconciled with the chain instead of guessed. `lease_until` says who
// works on it: a request or a recovery loop sets it while it drives the activation; an `activating` wallet whose lease
// has run out belongs to whichever instance's recovery loop claims it next.
//
// `funding_channels`: channel accounts per funding wallet (ACTIVATION_CHANNELS): transaction sources that let several
// batches of activations from one funding wallet land in the same ledger. Their keys are derived from the service
// secret, so only their lease is stored: an instance leases one while its batch is in flight.
//
// `outbox_events`: webhook-ready events (wallet.activated, trustline.added, sponsor.balance.low...) written in the
// same transaction as the change that caused them; a later worker delivers them.
import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('wallet_activations', (t) => {
    t.text('wallet_id').primary().references('id').inTable('wallets');
    t.text('app_id').notNullable().references('id').inTable('apps');
    // what asked for it: the Server API, the Dashboard's Fund action, an Immediate-mode sign-in
    t.text('trigger').notNullable().checkIn(['server_api', 'dashboard', 'sign_in'], 'wallet_activations_trigger_check');
    t.jsonb('requested_by').notNullable(); // the audit actor who asked: {type, id}
    t.integer('attempts').notNullable().defaultTo(0);
    t.text('tx_hash'); // hex; the latest attempt's
    t.text('envelope_xdr'); // the latest attempt's signed envelope (public data), resent verbatim when recovering
    t.timestamp('valid_until', { useTz: true }); // the envelope's maxTime: after it, an unapplied envelope is dead
    t.timestamp('lease_until', { useTz: true });
    t.timestamp('next_attempt_at', { useTz: true }).notNullable();
    t.text('last_error');
    t.integer('ledger'); // where the activation was applied
    t.bigInteger('reserve_stroops'); // what the funding wallet locked for it
    t.text('sponsor_public_key'); // the funding wallet that sponsors it
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.index(['app_id']);
  });
  // what the recovery loop scans: activating wallets whose next attempt is due
  await db.raw('create index wallet_activations_due on wallet_activations (next_attempt_at) where ledger is null');

  await db.schema.createTable('funding_channels', (t) => {
    t.text('sponsor_public_key').notNullable(); // the funding wallet it serves
    t.integer('position').notNullable();
    t.text('public_key').notNullable();
    t.timestamp('lease_until', { useTz: true });
    t.primary(['sponsor_public_key', 'position']);
  });

  await db.schema.createTable('outbox_events', (t) => {
    t.text('id').primary(); // evt_...
    t.text('app_id').notNullable().references('id').inTable('apps');
    t.text('type').notNullable(); // the webhook event name: wallet.activated, trustline.added...
    t.jsonb('data').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('delivered_at', { useTz: true });
    t.index(['app_id', 'created_at']);
  });
  await db.raw('create index outbox_events_undelivered on outbox_events (created_at) where delivered_at is null');
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('outbox_events');
  await db.schema.dropTable('funding_channels');
  await db.schema.dropTable('wallet_activations');
}
