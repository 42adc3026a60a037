// One live record per sequence number of a wallet's built transactions (issue 21): a build takes its number without a
// lock, reading the wallet's highest live number and writing its record in one statement; this index refuses the
// second of two builds that read the same number, which then takes the next (domain/transactions/sequences.ts). It
// replaces the per-wallet advisory lock that serialized builds from the read to their commit.
//
// Client transactions keep the number they were brought with, so they are not in it. Under the lock, a number whose
// record had passed its time bound could be taken again while that record was still unsettled: before the index is
// built, such an older record, which can no longer be applied, gives its number up (seq_num null: it still settles by
// its hash, and no record waits for its turn behind it).
import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.raw(`
    update transactions t set seq_num = null
    from transactions newer
    where t.origin = 'built' and newer.origin = 'built'
      and t.wallet_id = newer.wallet_id and t.seq_num = newer.seq_num
      and t.stage in ('built', 'signed', 'submitted') and newer.stage in ('built', 'signed', 'submitted')
      and (t.created_at, t.id) < (newer.created_at, newer.id)
  `);
  await db.raw(
    `create unique index transactions_wallet_built_live_seq on transactions (wallet_id, seq_num)
     where seq_num is not null and origin = 'built' and stage in ('built', 'signed', 'submitted')`,
  );
}

export async function down(db: Knex): Promise<void> {
  await db.raw('drop index if exists transactions_wallet_built_live_seq');
}
