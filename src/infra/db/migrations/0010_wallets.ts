// Custodial wallets and the audit log (issue #6).
//
// `wallets`: an end user's wallet (one per user per network) or one of an app's wallets (role global, funding, gas or
// distribution; one per role). The secret seed is stored only encrypted: AES-256-GCM under the wallet's own data key
// (`sealed_secret`), the data key only wrapped by the key management (`wrapped_data_key`, `kms_key_id`), both bound to
// the encryption context {appId, walletId, network}. No cascading deletes: a wallet row is the only copy of a key that
// may hold funds. `funding_state` and `funded_at` belong to the chain side (activation and funding).
//
// `audit_log`: append-only; the database itself refuses UPDATE, DELETE and TRUNCATE, so no code path can rewrite it.
import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('wallets', (t) => {
    t.text('id').primary();
    t.text('app_id').notNullable().references('id').inTable('apps');
    t.text('user_id').references('id').inTable('users'); // null for an app wallet
    t.text('role').checkIn(['global', 'funding', 'gas', 'distribution'], 'wallets_role_check'); // null for a user wallet
    t.text('network').notNullable().checkIn(['testnet', 'mainnet'], 'wallets_network_check');
    t.text('public_key').notNullable().unique(); // G-address
    t.binary('sealed_secret').notNullable();
    t.binary('wrapped_data_key').notNullable();
    t.text('kms_key_id').notNullable();
    t.text('funding_state')
      .notNullable()
      .defaultTo('unfunded')
      .checkIn(['unfunded', 'activating', 'funded'], 'wallets_funding_state_check');
    t.timestamp('funded_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.check('(user_id is null) <> (role is null)', [], 'wallets_owner_check');
    t.check(`(funding_state = 'funded') = (funded_at is not null)`, [], 'wallets_funded_at_check');
    t.index(['app_id', 'created_at']);
  });
  await db.raw(
    'create unique index wallets_one_per_user_network on wallets (user_id, network) where user_id is not null',
  );
  await db.raw('create unique index wallets_one_per_app_role on wallets (app_id, role) where role is not null');

  await db.schema.createTable('audit_log', (t) => {
    t.text('id').primary();
    t.text('app_id').notNullable().references('id').inTable('apps');
    t.text('action').notNullable(); // `<object>.<verb>`: key.decrypt, api_key.created, member.added...
    t.text('actor_type').notNullable().checkIn(['operator', 'user', 'api_key', 'system'], 'audit_log_actor_type_check');
    t.text('actor_id'); // operator, user or API key id; null for the system
    t.text('wallet_id').references('id').inTable('wallets');
    t.text('purpose'); // why a key was decrypted (tx.sign, wallet.activate...)
    t.text('ip'); // the client address of the request that caused it; null for background work
    t.jsonb('details').notNullable().defaultTo('{}'); // ids of what changed (never a secret)
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.check(`(actor_type = 'system') = (actor_id is null)`, [], 'audit_log_actor_check');
    t.check('char_length(purpose) <= 200', [], 'audit_log_purpose_check'); // the contract's bound on `purpose`
    // newest first per app, optionally per action or wallet; (created_at, id) is the keyset of the cursor
    t.index(['app_id', 'created_at', 'id']);
    t.index(['app_id', 'action', 'created_at', 'id']);
    t.index(['wallet_id', 'created_at', 'id']);
  });
  await db.raw(`
    create function audit_log_append_only() returns trigger language plpgsql as $$
    begin
      raise exception 'audit_log is append-only: % is not allowed', tg_op;
    end $$`);
  await db.raw(
    'create trigger audit_log_no_change before update or delete on audit_log for each row execute function audit_log_append_only()',
  );
  await db.raw(
    'create trigger audit_log_no_truncate before truncate on audit_log for each statement execute function audit_log_append_only()',
  );
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('audit_log');
  await db.raw('drop function audit_log_append_only()');
  await db.schema.dropTable('wallets');
}
