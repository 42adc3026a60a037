// Ramps (issue 20): the app's fiat on- and off-ramp providers, the quotes users asked for, the ramps they started,
// and the sandbox provider's local fiat ledger.
//
// `ramp_provider_settings`: one row per provider the app configured, with the assets users may ramp through it and,
// when the provider takes credentials, those credentials sealed under a data key of the key management.
//
// `ramp_quotes`: a provider's price for one user (rmq_...), valid until `expires_at`; amounts as exact decimal text.
//
// `ramp_transactions`: a ramp started from a quote (rmt_...). `quote_id` is unique: starting a quote twice answers the
// one ramp. `payment` is where the provider asked for the asset of an off-ramp; `payment_tx_id` the service's
// transaction that sent it (history, fee-bump and all), recorded before it is submitted, so it is sent once.
//
// `sandbox_fiat_ledger`: the bank side of the sandbox provider: a deposit the developer confirmed (an on-ramp's fiat
// in) and a payout (an off-ramp's fiat out), one row each, so a sandbox ramp moves money on both sides with a record.
import type { Knex } from 'knex';

const STATUSES = [
  'pending_kyc',
  'awaiting_deposit',
  'awaiting_signature',
  'processing',
  'completed',
  'failed',
  'expired',
];

export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('ramp_provider_settings', (t) => {
    t.text('app_id').notNullable().references('id').inTable('apps');
    t.text('provider_id').notNullable();
    t.boolean('enabled').notNullable();
    t.specificType('assets', 'text[]').notNullable();
    t.binary('credentials_sealed');
    t.binary('credentials_data_key');
    t.text('kms_key_id');
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.primary(['app_id', 'provider_id']);
  });
  await db.schema.createTable('ramp_quotes', (t) => {
    t.text('id').primary(); // rmq_...
    t.text('app_id').notNullable().references('id').inTable('apps');
    t.text('user_id').notNullable().references('id').inTable('users');
    t.text('wallet_id').notNullable().references('id').inTable('wallets');
    t.text('provider_id').notNullable();
    t.text('direction').notNullable().checkIn(['on', 'off'], 'ramp_quotes_direction_check');
    t.text('fiat_currency').notNullable();
    t.text('asset').notNullable();
    t.text('amount_in').notNullable().checkIn(['fiat', 'crypto'], 'ramp_quotes_amount_in_check');
    t.text('amount').notNullable();
    t.text('fiat_amount').notNullable();
    t.text('crypto_amount').notNullable();
    t.text('fee').notNullable();
    t.text('min_amount').notNullable();
    t.text('max_amount').notNullable();
    t.text('provider_ref');
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
  });
  await db.schema.createTable('ramp_transactions', (t) => {
    t.text('id').primary(); // rmt_...
    t.text('app_id').notNullable().references('id').inTable('apps');
    t.text('user_id').notNullable().references('id').inTable('users');
    t.text('wallet_id').notNullable().references('id').inTable('wallets');
    t.text('quote_id').notNullable().unique().references('id').inTable('ramp_quotes');
    t.text('provider_id').notNullable();
    t.text('status').notNullable().checkIn(STATUSES, 'ramp_transactions_status_check');
    t.text('provider_ref');
    t.text('kyc_url');
    t.jsonb('deposit_instructions');
    t.jsonb('pending_signature');
    t.jsonb('payment');
    t.timestamp('payment_claimed_at', { useTz: true }); // set once, by whoever sends the off-ramp payment
    t.text('payment_tx_id'); // transactions.id of the off-ramp payment the service sent
    t.text('stellar_tx_hash');
    t.text('failure_code');
    t.text('failure_reason');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.index(['app_id', 'created_at', 'id']);
    t.index(['provider_id', 'provider_ref']);
  });
  // What the ramps job refreshes: the ramps not final yet.
  await db.raw(
    `create index ramp_transactions_open_idx on ramp_transactions (updated_at)
     where status not in ('completed', 'failed', 'expired')`,
  );
  await db.schema.createTable('sandbox_fiat_ledger', (t) => {
    t.bigIncrements('id');
    t.text('app_id').notNullable().references('id').inTable('apps');
    t.text('ramp_tx_id').notNullable().references('id').inTable('ramp_transactions');
    t.text('kind').notNullable().checkIn(['deposit', 'payout'], 'sandbox_fiat_ledger_kind_check');
    t.text('amount').notNullable();
    t.text('currency').notNullable();
    t.text('reference').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.unique(['ramp_tx_id', 'kind']); // one deposit and one payout per ramp, whatever retries happen
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('sandbox_fiat_ledger');
  await db.schema.dropTable('ramp_transactions');
  await db.schema.dropTable('ramp_quotes');
  await db.schema.dropTable('ramp_provider_settings');
}
