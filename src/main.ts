// `make run`: config -> dependencies -> app -> listen, on embedded defaults when no URLs are configured.
import { pino } from 'pino';
import { ConfigError, loadConfig } from './config';
import { seedDemoOnFirstRun } from './cli/demoSeed';
import { ServiceSecretError } from './infra/secrets/serviceSecret';
import { KmsConfigError } from './infra/kms/keyManagement';
import { startService } from './service';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`configuration error: ${err.message}`);
      process.exit(2);
    }
    throw err;
  }
  const log = pino({ level: config.logLevel });
  let service;
  try {
    service = await startService(config, log);
  } catch (err) {
    if (err instanceof ServiceSecretError || err instanceof KmsConfigError) {
      console.error(`configuration error: ${err.message}`);
      process.exit(2);
    }
    throw err;
  }
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
  process.stdout.write(
    [
      '',
      `Onboard ${service.deps.version} is listening on ${service.url}`,
      `  database:   ${service.databaseDescription}${service.migrationsApplied.length ? ` (applied ${service.migrationsApplied.length} migrations)` : ''}`,
      `  stellar:    ${networks}`,
      `  keys:       ${service.deps.kms.description}`,
      `  API docs:   ${service.url}/docs   (contract: ${service.url}/openapi.json)`,
      `  try:        curl -s ${service.url}/health ; curl -s ${service.url}/ready`,
      '  stop with Ctrl-C',
      '',
    ].join('\n') + '\n',
  );
  if (config.demoSeed) {
    await seedDemoOnFirstRun(service.deps, (line) => process.stdout.write(`${line}\n`), service.url);
  }
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    await service.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
