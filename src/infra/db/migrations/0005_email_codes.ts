// Email sign-in codes (operators and apps' end users): one live code per (scope, email), a new code replacing the
// previous one in place. Only an HMAC of the code is stored (keyed with a key derived from the service secret), so a
// database leak alone does not allow an offline search of the 10^6 possible codes.
import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('email_codes', (t) => {
    t.text('scope').notNullable(); // `operator`, or `app:<appId>` for an app's end users
    t.text('email').notNullable(); // normalized: trimmed, lower case
    t.binary('code_hash').notNullable(); // HMAC-SHA256 over scope, email and code
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.integer('attempts').notNullable().defaultTo(0); // wrong guesses at the current code
    t.timestamp('consumed_at', { useTz: true }); // set by the one successful verification
    t.timestamp('sent_at', { useTz: true }).notNullable(); // when the current code was issued: the resend clock
    t.timestamp('created_at', { useTz: true }).notNullable(); // when the first code for this address (and scope) was issued
    t.primary(['scope', 'email']);
    t.index(['expires_at']); // pruning
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('email_codes');
}
