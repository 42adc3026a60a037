// Indexes for the Dashboard's metrics (getAppMetrics) at a million transactions per app: the window's transactions
// are read from one index alone (index-only scan: time, status, stage, fee and its payer, ledger, user, result code),
// sessions and funded wallets by app and time, so the answer costs a range scan, not a table scan.
import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.raw(
    `create index transactions_app_metrics on transactions (app_id, created_at)
       include (status, stage, fee_stroops, fee_source, ledger, user_id, result_code)`,
  );
  // failures by result code read only the failed ones
  await db.raw(
    `create index transactions_app_failures on transactions (app_id, created_at) include (result_code)
       where status = 'FAILED'`,
  );
  await db.raw(`create index sessions_user_app_created on sessions (app_id, created_at) where audience = 'user'`);
  await db.raw(
    `create index sessions_user_app_refreshed on sessions (app_id, last_refreshed_at)
       where audience = 'user' and last_refreshed_at is not null`,
  );
  await db.raw(
    'create index wallets_app_funded on wallets (app_id, funded_at) where funded_at is not null and user_id is not null',
  );
}

export async function down(db: Knex): Promise<void> {
  await db.raw('drop index transactions_app_metrics');
  await db.raw('drop index transactions_app_failures');
  await db.raw('drop index sessions_user_app_created');
  await db.raw('drop index sessions_user_app_refreshed');
  await db.raw('drop index wallets_app_funded');
}
