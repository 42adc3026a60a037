// The first `make run` on an empty database creates a demo operator, a testnet app and its keys, and prints them
// once (with a curl line) so a newcomer can call the API at once. Only the process that records the seed in
// service_meta does it, so two instances starting together on one database seed once. On localnet the demo app also
// gets a demo USDC (src/domain/treasury/demoUsdc.ts): configured as its asset, held by its distribution wallet. That
// step is idempotent and runs again at every start (a database seeded before it existed, friendbot down the first
// time), printing what it found or did.
import type { Deps } from '../domain/deps';
import { findApp, type App } from '../domain/apps/store';
import { issueDemoUsdc, servedByLocalnet, type DemoUsdcDeps } from '../domain/treasury/demoUsdc';
import { fundAppWalletFromFriendbot, type TreasuryDeps } from '../domain/treasury/treasury';
import { runAdminCommand } from './adminCommands';

export const DEMO_OWNER_EMAIL = 'demo@onboard.local';
export const DEMO_ORIGIN = 'http://localhost:5173';
export const DEMO_APP_NAME = 'Demo app';

export type DemoSeedDeps = Pick<Deps, 'db' | 'kms' | 'clock'> & TreasuryDeps & DemoUsdcDeps;

/** The seeded demo app: the demo operator's testnet app of that name (the oldest, should there be several). */
async function findDemoApp(db: Deps['db']): Promise<App | undefined> {
  const row = await db('apps as a')
    .join('app_members as m', 'm.app_id', 'a.id')
    .join('operators as o', 'o.id', 'm.operator_id')
    .where({ 'o.email': DEMO_OWNER_EMAIL, 'a.name': DEMO_APP_NAME, 'a.network': 'testnet', 'a.status': 'active' })
    .orderBy('a.created_at')
    .first<{ id: string } | undefined>('a.id');
  return row && findApp(db, row.id);
}

/** The demo USDC of the demo app, on localnet only; best effort (a failure is printed and logged, never thrown). */
export async function seedDemoUsdc(deps: DemoSeedDeps, app: App, out: (line: string) => void): Promise<void> {
  if (!(await servedByLocalnet(deps, app.network))) {
    out('  demo USDC: skipped (testnet is not served by localnet here)');
    deps.log.info({ appId: app.id }, 'demo USDC skipped: testnet is not served by localnet');
    return;
  }
  try {
    const { asset } = await issueDemoUsdc(deps, app, { progress: (line) => out(`  demo USDC: ${line}`) });
    out(`  demo USDC: ready (${asset})`);
  } catch (err) {
    deps.log.warn({ err, appId: app.id }, 'the demo USDC could not be issued');
    out(
      `  demo USDC: not issued (${err instanceof Error ? err.message : String(err)}); it is tried again at the next start`,
    );
  }
}

/**
 * Seeds the demo app when the database has no app yet; returns whether it did. On a database that has apps, only
 * the demo app's demo USDC is checked again (and completed when something is missing).
 */
export async function seedDemoOnFirstRun(
  deps: DemoSeedDeps,
  out: (line: string) => void,
  baseUrl: string,
): Promise<boolean> {
  const { db } = deps;
  const existing = await db('apps').count<{ count: string }[]>({ count: '*' });
  if (Number(existing[0]?.count ?? 0) > 0) {
    const demo = await findDemoApp(db);
    if (demo) await seedDemoUsdc(deps, demo, out);
    return false;
  }
  const claimed = await db('service_meta')
    .insert({ key: 'demo_seeded', value: JSON.stringify(new Date().toISOString()) })
    .onConflict('key')
    .ignore()
    .returning('key');
  if (claimed.length === 0) return false;
  out('First run: a demo operator, testnet app and keys were created. The keys are shown only now:');
  await runAdminCommand(
    deps,
    [
      'create-app',
      '--name',
      DEMO_APP_NAME,
      '--network',
      'testnet',
      '--owner-email',
      DEMO_OWNER_EMAIL,
      '--origin',
      DEMO_ORIGIN,
    ],
    (line) => out(`  ${line}`),
    { baseUrl },
  );
  // The demo app funds its users at sign-in (Immediate mode), so its wallet needs XLM: friendbot, best effort.
  const app = await findDemoApp(db);
  if (app) {
    const funded = await fundAppWalletFromFriendbot(deps, app).catch(() => false);
    out(
      funded
        ? '  app wallet: funded from friendbot'
        : '  app wallet: not funded (friendbot unavailable); top it up before users sign in',
    );
    await seedDemoUsdc(deps, app, out);
  }
  return true;
}
