// Per-wallet sequence numbers (issue #23): N concurrent payments from one wallet are N transactions.
//
// `transactions.seq_num`: the inner transaction's sequence number (built and client transactions of a service wallet).
// A build reserves the wallet's next number under a per-wallet advisory lock (domain/transactions/sequences.ts):
// 1 + max(the chain's sequence, the highest number of the wallet's live records), in the database transaction that
// inserts the record, so a reserved number always has its record and two builds never share one, on any number of
// instances.
// `transactions.sent_at`: when the RPC first accepted the envelope (PENDING or DUPLICATE). A transaction is sent only
// once every lower live record of its wallet has been accepted, so the ledger applies them in sequence order.
import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('transactions', (t) => {
    t.bigInteger('seq_num');
    t.timestamp('sent_at', { useTz: true });
  });
  // The live records of a wallet, by sequence: what a reservation and a turn check read.
  await db.raw(
    `create index transactions_wallet_live_seq on transactions (wallet_id, seq_num)
     where seq_num is not null and stage in ('built', 'signed', 'submitted')`,
  );
}

export async function down(db: Knex): Promise<void> {
  await db.raw('drop index if exists transactions_wallet_live_seq');
  await db.schema.alterTable('transactions', (t) => {
    t.dropColumn('seq_num');
    t.dropColumn('sent_at');
  });
}
