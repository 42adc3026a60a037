// Webhook `v1a` signatures (Standard Webhooks, Ed25519), for apps that ask for them: the app's signing key, sealed
// like the HMAC secret (the service must read it to sign), and its public key, which the API publishes.
import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('webhook_endpoints', (t) => {
    t.boolean('asymmetric').notNullable().defaultTo(false);
    t.binary('signing_key_sealed'); // the Ed25519 private key (PKCS#8 DER, base64), sealed
    t.text('public_key'); // whpk_ + base64 of the raw 32-byte public key
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('webhook_endpoints', (t) => {
    t.dropColumn('asymmetric');
    t.dropColumn('signing_key_sealed');
    t.dropColumn('public_key');
  });
}
