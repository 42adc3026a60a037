// `make run`: config -> dependencies -> app -> listen, on embedded defaults when no URLs are configured.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { DEFAULT_DASHBOARD_SETTINGS } from './config';
import { closeOnSignals, loadConfigOrExit } from './processLifecycle';
import { seedDemoOnFirstRun } from './cli/demoSeed';
import { ServiceSecretError } from './infra/secrets/serviceSecret';
import { KmsConfigError } from './infra/kms/keyManagement';
import { startService } from './service';
import { EmbeddedPostgresError } from './infra/db/embeddedPostgres';

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const log = pino({ level: config.logLevel });
  const progress = (line: string) => process.stdout.write(`${line}\n`);
  let seeded!: () => void;
  const seedDone = new Promise<void>((resolve) => (seeded = resolve));
  let service;
  try {
    service = await startService(config, log, { onProgress: progress, sponsorScanAfter: seedDone });
  } catch (err) {
    if (err instanceof ServiceSecretError || err instanceof KmsConfigError) {
      console.error(`configuration error: ${err.message}`);
      process.exit(2);
    }
    if (err instanceof EmbeddedPostgresError) {
      console.error(`error: ${err.message}`);
      process.exit(1);
    }
    throw err;
  }
  // The demo seed runs before the banner (its lines as they happen), so that the banner can say what is true once it
  // is done: the first run waits for a few ledgers here (friendbot, the demo USDC).
  const keysFile = join(config.dataDir, 'demo-keys.env');
  if (config.demoSeed) {
    progress('checking the demo app...');
    await seedDemoOnFirstRun(service.deps, progress, service.url, { keysFile });
  }
  seeded();
  const describeNetwork = (n: 'testnet' | 'mainnet'): string => {
    if (n === 'testnet' && service.localnet && config.localnet) {
      const cadence =
        config.localnet.ledgerCloseMs === 'manual'
          ? 'closes on demand'
          : `a ledger every ${config.localnet.ledgerCloseMs / 1000} s`;
      return `testnet: localnet (in-process) ${service.localnet.rpcUrl}, friendbot ${service.localnet.friendbotUrl}, ${cadence}, state in ${config.localnet.dataDir}`;
    }
    return `${n}: ${config.stellarRpcUrls[n] ?? `not configured (set STELLAR_${n.toUpperCase()}_RPC_URL)`}`;
  };
  const networks = (['testnet', 'mainnet'] as const).map(describeNetwork).join('\n              ');
  const applied = service.migrationsApplied.length;
  const keysLine = existsSync(keysFile)
    ? `  demo keys:  ${keysFile} (dev only): . ${keysFile}   then see the README's tour`
    : undefined;
  const dashboardLine = existsSync(join(config.dashboard.dir, 'index.html'))
    ? `  dashboard:  ${service.url}/dashboard/`
    : config.dashboard.dir === DEFAULT_DASHBOARD_SETTINGS.dir
      ? '  dashboard:  not built: npm run dashboard:build (make run builds it when its sources change)'
      : `  dashboard:  not built: no index.html in ${config.dashboard.dir} (DASHBOARD_DIR)`;
  process.stdout.write(
    [
      '',
      `Onboard ${service.deps.version} is listening on ${service.url}`,
      `  database:   ${service.databaseDescription}, ${service.migrationsTotal} migrations${applied ? ` (${applied} applied now)` : ''}`,
      `  stellar:    ${networks}`,
      `  keys:       ${service.deps.kms.description}`,
      `  mail:       ${service.deps.mailer.description}`,
      ...(keysLine ? [keysLine] : []),
      dashboardLine,
      `  API docs:   ${service.url}/docs   (contract: ${service.url}/openapi.json)`,
      `  try:        curl -s ${service.url}/health ; curl -s ${service.url}/ready`,
      '  stop with Ctrl-C',
      '',
    ].join('\n') + '\n',
  );
  closeOnSignals(() => service.close(), log, 'service');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
