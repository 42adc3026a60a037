// The first `make run` on an empty database creates a demo operator, a testnet app and its keys, and writes the keys
// to `<dataDir>/demo-keys.env` (mode 0600) so a newcomer can call the API at once (the README's tour sources it). Only the process that records the seed in
// service_meta does it, so two instances starting together on one database seed once. On localnet the demo app also
// gets a demo USDC (src/domain/treasury/demoUsdc.ts): configured as its asset, held by its distribution wallet. That
// step is idempotent and runs again at every start (a database seeded before it existed, friendbot down the first
// time), printing what it found or did.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Deps } from '../domain/deps';
import { findApp, updateAppSettings, type App } from '../domain/apps/store';
import { issueDemoUsdc, servedByLocalnet, type DemoUsdcDeps } from '../domain/treasury/demoUsdc';
import { fundAppWalletWithFriendbot, type TreasuryDeps } from '../domain/treasury/treasury';
import { createAppWithKeys, type CreatedApp } from './adminCommands';

export const DEMO_OWNER_EMAIL = 'demo@onboard.local';
export const DEMO_ORIGIN = 'http://localhost:5173';
export const DEMO_APP_NAME = 'Demo app';
export const DEMO_STARTING_BALANCE_XLM = '5';

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
 * The demo app's keys as shell lines, for `. .data/demo-keys.env` (the README's tour). Dev only: written once, when
 * the seed creates the keys (the only moment they exist in clear), mode 0600 in the data directory.
 */
export function writeDemoKeysFile(file: string, input: { baseUrl: string; created: CreatedApp }): void {
  const dataDir = dirname(file);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const lines = [
    '# Onboard demo app (dev only; created on first run). Source it: . .data/demo-keys.env',
    `export ONBOARD_URL=${input.baseUrl}`,
    `export ONBOARD_APP_ID=${input.created.app.id}`,
    `export ONBOARD_SECRET_KEY=${input.created.secret.key}`,
    `export ONBOARD_PUBLISHABLE_KEY=${input.created.publishable.key}`,
    `export ONBOARD_APP_WALLET=${input.created.wallet.publicKey}`,
    `export ONBOARD_DATA_DIR=${dataDir}`,
  ];
  writeFileSync(file, `${lines.join('\n')}\n`, { mode: 0o600 });
  chmodSync(file, 0o600); // an existing file keeps its mode on write: make sure
}

export interface DemoSeedOptions {
  /** Where to write the demo keys (`<dataDir>/demo-keys.env` for `make run`); absent: the keys are printed. */
  keysFile?: string;
}

/**
 * Seeds the demo app when the database has no app yet; returns whether it did. On a database that has apps, only
 * the demo app's demo USDC is checked again (and completed when something is missing).
 */
export async function seedDemoOnFirstRun(
  deps: DemoSeedDeps,
  out: (line: string) => void,
  baseUrl: string,
  opts: DemoSeedOptions = {},
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
  const created = await createAppWithKeys(deps, {
    name: DEMO_APP_NAME,
    network: 'testnet',
    ownerEmail: DEMO_OWNER_EMAIL,
    origins: [DEMO_ORIGIN],
  });
  // Demo users start with a little XLM of their own (sponsored reserves aside), so that the README's tour can make a
  // payment at once; a real app sets its starting balance in the Dashboard (default 0).
  await updateAppSettings(db, created.app.id, { startingBalanceXlm: DEMO_STARTING_BALANCE_XLM });
  out(`First run: a demo operator (${DEMO_OWNER_EMAIL}) and its testnet app were created.`);
  out(`  app:             ${created.app.id} "${created.app.name}"`);
  out(`  app wallet:      ${created.wallet.publicKey}`);
  out(`  allowed origin:  ${created.allowedOrigins.join(', ')}`);
  out(`  users start with ${DEMO_STARTING_BALANCE_XLM} XLM each (Immediate funding at sign-in)`);
  if (opts.keysFile) {
    writeDemoKeysFile(opts.keysFile, { baseUrl, created });
    out(`  keys:            written to ${opts.keysFile} (mode 0600; dev only): . ${opts.keysFile}`);
    out('                   list them any time with: npm run admin -- list-keys --app ' + created.app.id);
  } else {
    out(`  publishable key: ${created.publishable.key}`);
    out(`  secret key:      ${created.secret.key}`);
    out('  These keys are shown only now; only their hashes are stored.');
  }
  // The demo app funds its users at sign-in (Immediate mode), so its wallet needs XLM: friendbot, best effort. What
  // is said is what the chain answered: funded now, already there, or why not.
  const funding = await fundAppWalletWithFriendbot(deps, created.app).catch((err: unknown) => ({
    outcome: 'unavailable' as const,
    reason: err instanceof Error ? err.message : String(err),
  }));
  if (funding.outcome === 'funded') out('  app wallet:      funded from friendbot (10,000 XLM)');
  else if (funding.outcome === 'exists') out('  app wallet:      already on the ledger');
  else if (funding.outcome === 'unavailable')
    out(`  app wallet:      not funded (${funding.reason}); top it up before users sign in`);
  await seedDemoUsdc(deps, created.app, out);
  return true;
}
