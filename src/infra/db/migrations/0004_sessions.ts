// Sessions (issues #4 and #5): one token machinery for operators (Dashboard) and end users (SDK API).
// A session is a refresh-token family bound to one DPoP key; each refresh rotates the family's token. Only hashes of
// refresh tokens are stored. dpop_proof_jtis is the replay cache of DPoP proofs (RFC 9449 section 11.1).
import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('sessions', (t) => {
    t.text('id').primary();
    t.text('audience').notNullable().checkIn(['operator', 'user'], 'sessions_audience_check');
    t.text('subject_id').notNullable(); // op_... or usr_...
    t.text('app_id').references('id').inTable('apps').onDelete('CASCADE'); // end-user sessions only
    t.text('jkt').notNullable(); // RFC 7638 thumbprint of the DPoP key the tokens are bound to
    t.text('auth_method').notNullable(); // email, google, github, sep10
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('last_refreshed_at', { useTz: true });
    t.timestamp('revoked_at', { useTz: true });
    t.text('revoked_reason'); // sign_out, sign_out_everywhere, refresh_token_reuse, revoked_by_user
    t.index(['audience', 'subject_id']);
  });
  await db.schema.createTable('refresh_tokens', (t) => {
    t.text('id').primary();
    t.text('session_id').notNullable().references('id').inTable('sessions').onDelete('CASCADE');
    t.text('token_hash').notNullable().unique(); // hex HMAC-SHA256 of the token under a key derived from the service secret
    t.text('parent_id'); // the token this one replaced
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('rotated_at', { useTz: true }); // null while this is the family's current token
    t.index(['session_id']);
  });
  await db.schema.createTable('dpop_proof_jtis', (t) => {
    t.text('jkt').notNullable();
    t.text('jti').notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.primary(['jkt', 'jti']);
    t.index(['expires_at']);
  });
}

export async function down(db: Knex): Promise<void> {
  for (const table of ['dpop_proof_jtis', 'refresh_tokens', 'sessions']) await db.schema.dropTable(table);
}
