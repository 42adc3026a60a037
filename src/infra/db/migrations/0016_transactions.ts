// Sponsored transactions (issue #7): the fee-bump policy, the transactions the service built, signed, sponsored or saw
// on the chain, and each wallet's history.
//
// `fee_policies`: one row per app that changed its policy; no row means the defaults (FeePolicy.yaml).
//
// `daily_op_counts`: sponsored operations per user per UTC day. A submission reserves its operations with one
// conditional upsert (`ops + n <= cap`), so concurrent submissions never overshoot the cap: the cap bounds the
// fee-bumps the gas wallet signs. Only a claim given back before its fee-bump was signed releases its operations.
//
// `transactions`: one row per transaction, whoever made it.
//   origin   built       built by the service (buildTransaction, runTransaction)
//            client      an unsigned or signed XDR the client brought (signTransaction, submitTransaction)
//            activation  a wallet activation or trustline backfill (the funding flow)
//            external    seen on the chain by the ledger follower, made outside the service
//   status   PENDING (built or submitted, not confirmed), SUCCESS, FAILED: the contract's history status.
//   stage    where the service is with it: built -> signed -> submitted -> confirmed | failed; `denied` when the fee
//            policy refused it (status FAILED, result_code the denial's error code).
//   hash     the hash the user sees: the inner transaction's until a fee-bump is signed, then the fee-bump's.
//   inner_hash  the inner transaction's hash (sponsored ones), to find a resubmitted signed XDR.
// The confirmation worker scans `stage = 'submitted'` rows by `next_check_at`, and expires unsent ones by `valid_until`.
//
// `tx_history`: the history of each wallet: one row per (wallet, transaction), with the wallet's own view of it (a
// payment is `sent` for its source and `received` for a destination wallet of the service). Paged newest first on
// (wallet_id, created_at desc, transaction_id desc); `wallet_history_counts` keeps each wallet's total, updated in the
// same transaction as the rows, so `total` costs one primary-key read at any depth.
//
// `ledger_followers`: where the ledger follower (getTransactions) is on each network.
import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('fee_policies', (t) => {
    t.text('app_id').primary().references('id').inTable('apps');
    t.bigInteger('max_fee_stroops').notNullable();
    t.integer('daily_ops_cap'); // null: no cap
    t.specificType('approved_assets', 'text[]').notNullable().defaultTo('{}'); // empty: any configured asset and XLM
    t.bigInteger('gas_minimum_stroops').notNullable();
    t.boolean('allow_account_merge').notNullable().defaultTo(false);
    t.specificType('account_merge_destinations', 'text[]').notNullable().defaultTo('{}');
    t.timestamp('updated_at', { useTz: true }).notNullable();
  });

  await db.schema.createTable('daily_op_counts', (t) => {
    t.text('app_id').notNullable();
    t.text('user_id').notNullable();
    t.date('day').notNullable(); // UTC
    t.integer('ops').notNullable();
    t.primary(['app_id', 'user_id', 'day']);
  });

  await db.schema.createTable('transactions', (t) => {
    t.text('id').primary(); // tx_...
    t.text('app_id').notNullable().references('id').inTable('apps');
    t.text('network').notNullable();
    t.text('wallet_id').references('id').inTable('wallets'); // the service's wallet that is its source; null: external
    t.text('user_id'); // the end user whose session made it
    t.text('origin').notNullable().checkIn(['built', 'client', 'activation', 'external'], 'transactions_origin_check');
    t.text('status').notNullable().checkIn(['PENDING', 'SUCCESS', 'FAILED'], 'transactions_status_check');
    t.text('stage')
      .notNullable()
      .checkIn(['built', 'signed', 'submitted', 'confirmed', 'failed', 'denied'], 'transactions_stage_check');
    t.text('operation').notNullable(); // the main operation (StellarOperationType)
    t.integer('ops_count').notNullable();
    t.text('summary').notNullable(); // one line, the source's view: "Sent 10 USDC to GA2U...W27N"
    t.text('summary_title');
    t.jsonb('summary_lines');
    t.text('source_account').notNullable();
    t.text('destination'); // account or contract; null when none
    t.text('asset'); // the asset moved (`native` or CODE:ISSUER); null when none
    t.text('amount'); // decimal string; null when none
    t.text('memo'); // JSON of the TxMemo, when any
    t.jsonb('cosigners'); // app wallet roles that must co-sign the inner transaction (['funding'] for a sponsored trustline)
    t.text('unsigned_xdr'); // the inner transaction as built (no signatures)
    t.text('signed_xdr'); // the inner transaction with the user's signature
    t.text('inner_hash');
    t.text('hash').notNullable();
    t.text('envelope_xdr'); // what was submitted (the fee-bump for sponsored transactions)
    t.bigInteger('fee_stroops'); // the fee-bump fee the gas wallet pays (or paid, once confirmed)
    t.text('fee_source'); // the gas wallet's G-address
    t.text('result_code'); // Horizon-style (tx_success, op_underfunded...) or, when denied, the policy's error code
    t.integer('ledger');
    t.timestamp('valid_until', { useTz: true }); // the inner transaction's maxTime
    t.timestamp('next_check_at', { useTz: true }); // when the confirmation worker looks at it next
    t.integer('checks').notNullable().defaultTo(0);
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.timestamp('submitted_at', { useTz: true });
    t.timestamp('confirmed_at', { useTz: true });
  });
  await db.raw('create unique index transactions_hash on transactions (network, hash)');
  // one record per transaction: an identical build (same sequence, time bounds, operation) is the same transaction
  await db.raw(
    'create unique index transactions_inner_hash on transactions (network, inner_hash) where inner_hash is not null',
  );
  await db.raw(`create index transactions_to_confirm on transactions (next_check_at) where stage = 'submitted'`);
  // built or signed but never submitted: dead once past their time bound (the worker marks them FAILED tx_too_late)
  await db.raw(`create index transactions_unsent on transactions (valid_until) where stage in ('built', 'signed')`);
  await db.raw('create index transactions_app_recent on transactions (app_id, created_at desc, id desc)');
  await db.raw('create index transactions_wallet on transactions (wallet_id) where wallet_id is not null');

  await db.schema.createTable('tx_history', (t) => {
    t.text('wallet_id').notNullable().references('id').inTable('wallets');
    t.text('transaction_id').notNullable().references('id').inTable('transactions');
    t.text('direction').notNullable().checkIn(['sent', 'received'], 'tx_history_direction_check');
    t.text('summary').notNullable(); // the wallet's own view: "Received 10 USDC from GBX4...H4KQ"
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.primary(['wallet_id', 'transaction_id']);
  });
  await db.raw('create index tx_history_newest on tx_history (wallet_id, created_at desc, transaction_id desc)');

  await db.schema.createTable('wallet_history_counts', (t) => {
    t.text('wallet_id').primary().references('id').inTable('wallets');
    t.bigInteger('records').notNullable();
  });

  await db.schema.createTable('ledger_followers', (t) => {
    t.text('network').primary();
    t.integer('next_ledger').notNullable(); // the first ledger not read yet
    t.timestamp('updated_at', { useTz: true }).notNullable();
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('ledger_followers');
  await db.schema.dropTable('wallet_history_counts');
  await db.schema.dropTable('tx_history');
  await db.schema.dropTable('transactions');
  await db.schema.dropTable('daily_op_counts');
  await db.schema.dropTable('fee_policies');
}
