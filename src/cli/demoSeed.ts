// The first `make run` on an empty database creates a demo operator, a testnet app and its keys, and prints them
// once (with a curl line) so a newcomer can call the API at once. Only the process that records the seed in
// service_meta does it, so two instances starting together on one database seed once.
import type { Knex } from 'knex';
import { runAdminCommand } from './adminCommands';

export const DEMO_OWNER_EMAIL = 'demo@onboard.local';
export const DEMO_ORIGIN = 'http://localhost:5173';

/** Seeds the demo app when the database has no app yet; returns whether it did. */
export async function seedDemoOnFirstRun(db: Knex, out: (line: string) => void, baseUrl: string): Promise<boolean> {
  const existing = await db('apps').count<{ count: string }[]>({ count: '*' });
  if (Number(existing[0]?.count ?? 0) > 0) return false;
  const claimed = await db('service_meta')
    .insert({ key: 'demo_seeded', value: JSON.stringify(new Date().toISOString()) })
    .onConflict('key')
    .ignore()
    .returning('key');
  if (claimed.length === 0) return false;
  out('First run: a demo operator, testnet app and keys were created. The keys are shown only now:');
  await runAdminCommand(
    db,
    ['create-app', '--name', 'Demo app', '--network', 'testnet', '--owner-email', DEMO_OWNER_EMAIL, '--origin', DEMO_ORIGIN],
    (line) => out(`  ${line}`),
    { baseUrl },
  );
  return true;
}
