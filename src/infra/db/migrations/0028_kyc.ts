// KYC (issue 20): the app's identity-verification providers and its users' verifications.
//
// `kyc_provider_settings`: one row per provider the app configured, with its levels and, when the provider takes
// credentials, those credentials sealed under a data key of the key management (as wallet keys are), never in clear.
//
// `kyc_verifications`: one row per verification a user started: the provider, the level, the session the user was sent
// to (its id, its expiry, the provider's own reference) and the status, `pending` until the provider decides.
import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('kyc_provider_settings', (t) => {
    t.text('app_id').notNullable().references('id').inTable('apps');
    t.text('provider_id').notNullable();
    t.boolean('enabled').notNullable();
    t.specificType('levels', 'text[]').notNullable();
    t.binary('credentials_sealed'); // AES-GCM under the data key below; null: none stored
    t.binary('credentials_data_key'); // the data key, wrapped by the key management
    t.text('kms_key_id');
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.primary(['app_id', 'provider_id']);
  });
  await db.schema.createTable('kyc_verifications', (t) => {
    t.text('id').primary(); // kyv_...
    t.text('app_id').notNullable().references('id').inTable('apps');
    t.text('user_id').notNullable().references('id').inTable('users');
    t.text('provider_id').notNullable();
    t.text('level').notNullable().checkIn(['basic', 'intermediate', 'enhanced'], 'kyc_verifications_level_check');
    t.text('status').notNullable().checkIn(['pending', 'approved', 'rejected'], 'kyc_verifications_status_check');
    t.text('session_id').notNullable().unique(); // kys_...
    t.timestamp('session_expires_at', { useTz: true }).notNullable();
    t.text('provider_ref'); // the provider's own id for the verification
    t.timestamp('decided_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.index(['user_id', 'created_at']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('kyc_verifications');
  await db.schema.dropTable('kyc_provider_settings');
}
