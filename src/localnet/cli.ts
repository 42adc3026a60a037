// npm run localnet -- --port 8000 [--host 127.0.0.1] [--ledger-seconds 5|manual] [--data-dir .data/localnet]
//                     [--passphrase "..."] [--retention-ledgers 120960] [--max-tx-set-size 1000] [--no-friendbot]
// Runs localnet standalone so frontends and other Stellar tools (stellar-cli, wallets, the JS SDK) can point at it.
import { parseArgs } from 'node:util';
import { startLocalnet } from './index';

const USAGE = `usage: npm run localnet -- [--port 8000] [--host 127.0.0.1] [--ledger-seconds 5|manual]
                            [--data-dir DIR] [--passphrase "Test SDF Network ; September 2015"]
                            [--retention-ledgers 120960] [--max-tx-set-size 1000] [--no-friendbot]`;

function fail(message: string): never {
  process.stderr.write(`${message}\n${USAGE}\n`);
  process.exit(2);
}

const { values } = (() => {
  try {
    return parseArgs({
      options: {
        port: { type: 'string', default: '8000' },
        host: { type: 'string', default: '127.0.0.1' },
        'ledger-seconds': { type: 'string', default: '5' },
        'data-dir': { type: 'string' },
        passphrase: { type: 'string' },
        'retention-ledgers': { type: 'string' },
        'max-tx-set-size': { type: 'string' },
        'no-friendbot': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
    });
  } catch (err) {
    return fail(err instanceof Error ? err.message : String(err));
  }
})();

if (values.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}

const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`--port must be 0..65535, got ${values.port}`);
const seconds = values['ledger-seconds'];
const ledgerCloseMs = seconds === 'manual' ? 'manual' : Number(seconds) * 1000;
if (ledgerCloseMs !== 'manual' && !(ledgerCloseMs > 0))
  fail(`--ledger-seconds must be a positive number or "manual", got ${seconds}`);
const retention = values['retention-ledgers'] === undefined ? undefined : Number(values['retention-ledgers']);
if (retention !== undefined && !(Number.isInteger(retention) && retention > 0))
  fail(`--retention-ledgers must be a positive integer`);
// A small ledger (a handful of operations) shows surge pricing: a full queue refuses low bids, higher ones evict.
const maxTxSetSize = values['max-tx-set-size'] === undefined ? undefined : Number(values['max-tx-set-size']);
if (maxTxSetSize !== undefined && !(Number.isInteger(maxTxSetSize) && maxTxSetSize > 0))
  fail(`--max-tx-set-size must be a positive integer (operations per ledger)`);

const localnet = await startLocalnet({
  port,
  host: values.host,
  ledgerCloseMs,
  dataDir: values['data-dir'],
  networkPassphrase: values.passphrase,
  retentionLedgers: retention,
  ...(maxTxSetSize !== undefined ? { engineConfig: { maxTxSetSize } } : {}),
  friendbot: !values['no-friendbot'],
  log: (msg) => process.stderr.write(`${new Date().toISOString()} ${msg}\n`),
}).catch((err: unknown) => fail(`localnet did not start: ${err instanceof Error ? err.message : String(err)}`));

process.stdout.write(
  [
    'Onboard localnet is running (a Stellar RPC compatible local network; WASM contract code is not executed)',
    `  RPC URL:       ${localnet.rpcUrl}`,
    values['no-friendbot'] ? '  Friendbot:     off' : `  Friendbot URL: ${localnet.friendbotUrl}`,
    `  Passphrase:    ${localnet.networkPassphrase}`,
    `  Root account:  ${localnet.engine.rootKeypair().publicKey()} (secret: Keypair.master(passphrase))`,
    `  Ledgers:       ${ledgerCloseMs === 'manual' ? `closed on demand: POST ${localnet.rpcUrl.replace(/\/rpc$/, '/localnet/close-ledger')} (friendbot closes one itself)` : `every ${seconds} s`}`,
    `  State:         ${values['data-dir'] ? `persisted in ${values['data-dir']}` : 'in memory (lost on exit; use --data-dir to keep it)'}`,
    'Ctrl-C stops it.',
    '',
  ].join('\n'),
);

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    process.stdout.write('\nstopping localnet...\n');
    localnet.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`stop failed: ${err instanceof Error ? err.message : String(err)}\n`);
        process.exit(1);
      },
    );
  });
}
