// Token distribution (issue 19): rules an app's users claim, and every claim.
//
// `distribution_rules`: what may be claimed (asset, amount per claim in stroops, validity window, total allocation,
// per-user rate limit) and `claimed_count`, the claims that hold part of the allocation (reserved, submitted or paid;
// a released claim gives its part back). A claim locks its rule's row (SELECT ... FOR UPDATE) while it checks the
// allocation and the user's claims in the rate-limit period and reserves, so the allocation and the rate limit hold
// however many claims arrive at once and in however many processes. A deleted rule keeps its row (`deleted_at`): its
// claims stay in the history.
//
// `distribution_claims`: one row per claim, written as `reserved` in the rule's transaction before anything is sent,
// then `submitted` with the payment's transaction record, and `paid` or `released` (the payment failed: its part of
// the allocation and of the user's rate limit is given back). A claim whose outcome is unknown (the process died after
// sending) is reconciled with the chain by its transaction record, never paid twice.
import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('distribution_rules', (t) => {
    t.text('id').primary(); // dst_...
    t.text('app_id').notNullable().references('id').inTable('apps');
    t.text('network').notNullable(); // the app's
    t.text('name').notNullable();
    t.text('asset').notNullable(); // 'native' or CODE:ISSUER
    t.bigInteger('amount_per_claim_stroops').notNullable();
    t.integer('total_allocation'); // claims in all; null: unlimited
    t.integer('claimed_count').notNullable().defaultTo(0);
    t.timestamp('valid_from', { useTz: true });
    t.timestamp('valid_until', { useTz: true });
    t.integer('rate_limit_max_claims'); // null with the period: one claim per user ever
    t.integer('rate_limit_period_seconds');
    t.boolean('enabled').notNullable().defaultTo(true);
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.timestamp('deleted_at', { useTz: true });
    t.index(['app_id', 'created_at', 'id']);
  });
  await db.raw(`alter table distribution_rules add constraint distribution_rules_amount_check
     check (amount_per_claim_stroops > 0)`);
  await db.raw(`alter table distribution_rules add constraint distribution_rules_allocation_check
     check (claimed_count >= 0 and (total_allocation is null or claimed_count <= total_allocation))`);
  await db.raw(`alter table distribution_rules add constraint distribution_rules_rate_limit_check
     check ((rate_limit_max_claims is null) = (rate_limit_period_seconds is null))`);
  await db.raw(`alter table distribution_rules add constraint distribution_rules_window_check
     check (valid_from is null or valid_until is null or valid_from < valid_until)`);

  await db.schema.createTable('distribution_claims', (t) => {
    t.text('id').primary(); // dcl_...
    t.text('rule_id').notNullable().references('id').inTable('distribution_rules');
    t.text('app_id').notNullable().references('id').inTable('apps');
    t.text('user_id').notNullable().references('id').inTable('users');
    t.text('wallet_id').notNullable().references('id').inTable('wallets');
    t.text('asset').notNullable();
    t.bigInteger('amount_stroops').notNullable(); // the rule's amount when claimed
    t.text('status')
      .notNullable()
      .checkIn(['reserved', 'submitted', 'paid', 'released'], 'distribution_claims_status_check');
    t.text('request_key'); // the claim request's Idempotency-Key: a retry after a crash finds this claim
    t.text('tx_id'); // the payment's transactions record, once settled
    t.text('tx_hash'); // the fee-bump it was recorded in before sending (hex)
    t.text('envelope_xdr'); // that envelope, resent verbatim when recovering
    t.timestamp('valid_until', { useTz: true }); // its time bound: after it, an unapplied envelope is dead
    t.text('failure_code'); // why it was released
    t.timestamp('created_at', { useTz: true }).notNullable(); // the claim time the rate limit counts
    t.timestamp('updated_at', { useTz: true }).notNullable();
  });
  // the rate limit: a user's live claims of a rule in the period
  await db.raw(`create index distribution_claims_user on distribution_claims (rule_id, user_id, created_at)
     where status <> 'released'`);
  await db.raw(`create unique index distribution_claims_request on distribution_claims (user_id, request_key)
     where request_key is not null`);
  // recovery: claims not yet settled
  await db.raw(`create index distribution_claims_open on distribution_claims (updated_at)
     where status in ('reserved', 'submitted')`);
  // A claim's payment is its own kind of transaction in the histories.
  await db.raw('alter table transactions drop constraint transactions_origin_check');
  await db.raw(`alter table transactions add constraint transactions_origin_check
     check (origin in ('built', 'client', 'activation', 'external', 'distribution'))`);
}

export async function down(db: Knex): Promise<void> {
  await db.raw('alter table transactions drop constraint transactions_origin_check');
  await db.raw(`alter table transactions add constraint transactions_origin_check
     check (origin in ('built', 'client', 'activation', 'external'))`);
  await db.schema.dropTable('distribution_claims');
  await db.schema.dropTable('distribution_rules');
}
