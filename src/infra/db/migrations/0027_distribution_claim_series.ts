// The Distribution page's claims chart (getDistributionClaimSeries) reads an app's paid claims over up to 90 days,
// grouped by rule and UTC day: a partial index of the paid claims by app and time, carrying the rule, answers it from
// the index alone (a range scan), however many claims the app's other rules and statuses hold.
import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.raw(
    `create index distribution_claims_app_paid on distribution_claims (app_id, created_at) include (rule_id)
       where status = 'paid'`,
  );
}

export async function down(db: Knex): Promise<void> {
  await db.raw('drop index distribution_claims_app_paid');
}
