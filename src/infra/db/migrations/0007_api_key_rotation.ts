// Key rotation (issue #4): a rotated key records when it was replaced and by which key, so the Dashboard can tell a
// key in its rotation overlap (`rotating`) from one that merely has an expiry date, and a key is replaced at most once.
import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('api_keys', (t) => {
    t.timestamp('rotated_at', { useTz: true });
    // unique: one successor per key and one predecessor per successor, whatever the application code does
    t.text('replaced_by_key_id').unique().references('id').inTable('api_keys');
    t.check('(rotated_at is null) = (replaced_by_key_id is null)', [], 'api_keys_rotation_check');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('api_keys', (t) => {
    t.dropChecks('api_keys_rotation_check');
    t.dropColumn('replaced_by_key_id');
    t.dropColumn('rotated_at');
  });
}
