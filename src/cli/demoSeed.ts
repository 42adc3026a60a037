// The first `make run` on an empty database creates a demo operator, a testnet app and its keys, and prints them
// once (with a curl line) so a newcomer can call the API at once. Only the process that records the seed in
// service_meta does it, so two instances starting together on one database seed once.
import type { Deps } from '../deps';
import { findApp } from '../domain/apps/store';
import { fundAppWalletFromFriendbot, type TreasuryDeps } from '../domain/treasury/treasury';
import { runAdminCommand } from './adminCommands';

export const DEMO_OWNER_EMAIL = 'demo@onboard.local';
export const DEMO_ORIGIN = 'http://localhost:5173';

/** Seeds the demo app when the database has no app yet; returns whether it did. */
export async function seedDemoOnFirstRun(deps: Pick<Deps, 'db' | 'kms' | 'clock'> & TreasuryDeps, out: (line: string) => void, baseUrl: string): Promise<boolean> {
  const { db } = deps;
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
    deps,
    ['create-app', '--name', 'Demo app', '--network', 'testnet', '--owner-email', DEMO_OWNER_EMAIL, '--origin', DEMO_ORIGIN],
    (line) => out(`  ${line}`),
    { baseUrl },
  );
  // The demo app funds its users at sign-in (Immediate mode), so its wallet needs XLM: friendbot, best effort.
  const row = (await db('apps').orderBy('created_at', 'desc').first('id')) as { id: string } | undefined;
  const app = row && (await findApp(db, row.id));
  if (app) {
    const funded = await fundAppWalletFromFriendbot(deps, app).catch(() => false);
    out(funded ? '  app wallet: funded from friendbot' : '  app wallet: not funded (friendbot unavailable); top it up before users sign in');
  }
  return true;
}
