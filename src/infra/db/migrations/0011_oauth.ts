// Google and GitHub sign-in (issue #5): the pending authorization-code flows (`oauth_states`: single use, 10 minutes,
// kept as an HMAC of the state so a database leak alone cannot finish anyone's sign-in), each app's sign-in
// providers with their client credentials (secrets sealed with AES-256-GCM under a key derived from the service
// secret: never in clear), and the operator's display name from their Google or GitHub profile.
import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('oauth_states', (t) => {
    t.binary('state_hash').primary(); // HMAC-SHA256 of the state
    t.text('provider').notNullable().checkIn(['google', 'github'], 'oauth_states_provider_check');
    t.text('audience').notNullable().checkIn(['operator', 'user'], 'oauth_states_audience_check'); // Dashboard or an app's users
    t.text('app_id').references('id').inTable('apps').onDelete('CASCADE'); // the app of a `user` flow
    t.check(`(audience = 'user') = (app_id is not null)`, [], 'oauth_states_app_check');
    t.text('redirect_uri').notNullable();
    t.text('code_challenge').notNullable(); // PKCE S256 challenge (public: it was in the authorization URL)
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.index(['expires_at']); // pruning
  });

  await db.schema.createTable('app_auth_providers', (t) => {
    t.text('app_id').notNullable().references('id').inTable('apps').onDelete('CASCADE');
    t.text('provider').notNullable().checkIn(['email', 'google', 'github'], 'app_auth_providers_provider_check');
    t.boolean('enabled').notNullable();
    t.text('client_id');
    t.binary('client_secret_sealed'); // nonce || tag || AES-256-GCM ciphertext, bound to (app, provider)
    t.check(
      `provider <> 'email' or (client_id is null and client_secret_sealed is null)`,
      [],
      'app_auth_providers_email_check',
    );
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.primary(['app_id', 'provider']);
  });

  await db.schema.alterTable('operators', (t) => {
    t.text('display_name'); // from the Google or GitHub profile; null for email-code and wallet operators
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('operators', (t) => {
    t.dropColumn('display_name');
  });
  await db.schema.dropTable('app_auth_providers');
  await db.schema.dropTable('oauth_states');
}
