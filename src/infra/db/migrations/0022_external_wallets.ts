// End users who sign in with their own Stellar wallet (SEP-10): their wallet is that account, in their custody. Such
// a wallet row holds no key material (the three key columns are null exactly for it), and `stellar` joins the sign-in
// providers of users, identities and app settings.
import type { Knex } from 'knex';

const PROVIDERS_BEFORE = `('email', 'google', 'github')`;
const PROVIDERS_AFTER = `('email', 'google', 'github', 'stellar')`;

async function setProviderChecks(db: Knex, list: string): Promise<void> {
  for (const [table, column, name] of [
    ['users', 'last_provider', 'users_last_provider_check'],
    ['user_identities', 'provider', 'user_identities_provider_check'],
    ['app_auth_providers', 'provider', 'app_auth_providers_provider_check'],
  ] as const) {
    await db.raw(`alter table ${table} drop constraint ${name}`);
    await db.raw(`alter table ${table} add constraint ${name} check (${column} in ${list})`);
  }
}

export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('wallets', (t) => {
    t.text('custody').notNullable().defaultTo('custodial');
    t.setNullable('sealed_secret');
    t.setNullable('wrapped_data_key');
    t.setNullable('kms_key_id');
  });
  await db.raw(`alter table wallets add constraint wallets_custody_check check (custody in ('custodial', 'external'))`);
  await db.raw(
    `alter table wallets add constraint wallets_custody_keys_check check (
       (custody = 'custodial') = (sealed_secret is not null and wrapped_data_key is not null and kms_key_id is not null)
     )`,
  );
  // Only a user's wallet can be external; an app's own wallets are always the service's.
  await db.raw(
    `alter table wallets add constraint wallets_external_user_check check (custody = 'custodial' or user_id is not null)`,
  );
  await setProviderChecks(db, PROVIDERS_AFTER);
}

export async function down(db: Knex): Promise<void> {
  await db('wallets').where({ custody: 'external' }).delete();
  await setProviderChecks(db, PROVIDERS_BEFORE);
  await db.raw('alter table wallets drop constraint wallets_external_user_check');
  await db.raw('alter table wallets drop constraint wallets_custody_keys_check');
  await db.raw('alter table wallets drop constraint wallets_custody_check');
  await db.schema.alterTable('wallets', (t) => {
    t.dropColumn('custody');
    t.dropNullable('sealed_secret');
    t.dropNullable('wrapped_data_key');
    t.dropNullable('kms_key_id');
  });
}
