// The DPoP replay table becomes UNLOGGED: a proof's jti only has to be remembered while the proof could still be
// accepted (its iat window, RFC 9449 section 11.1), so its insert need not wait for the disk, and a transaction that
// writes only unlogged tables commits without a WAL flush: one statement per proof, no fsync. After a crash PostgreSQL
// empties the table; src/domain/sessions/dpop.ts keeps replay protection exact across that by binding its nonces to the
// database server's start time (a proof accepted before the restart no longer has a valid nonce).
import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.raw('alter table dpop_proof_jtis set unlogged');
}

export async function down(db: Knex): Promise<void> {
  await db.raw('alter table dpop_proof_jtis set logged');
}
