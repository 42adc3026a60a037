// localnet: a local Stellar network that speaks the Stellar RPC JSON-RPC API (so @stellar/stellar-sdk's rpc.Server
// works against it unchanged), with a friendbot, a close cadence, a retention window and optional persistence.
// startLocalnet assembles it: engine (ledger rules) + history + close loop + HTTP server (+ state directory).
// It uploads WASM, creates contracts and runs the Stellar Asset Contract, but executes no WASM (engine/sorobanHost.ts).
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Networks } from '@stellar/stellar-sdk';
import { LedgerEngine, type ClosedLedger, type EngineConfig } from './engine';
import { Friendbot } from './friendbot/friendbot';
import { FeeStats } from './history/feeStats';
import { DEFAULT_RETENTION_LEDGERS, HistoryStore } from './history/historyStore';
import { LedgerCloser, type CloseCadence } from './ledgerCloser';
import { StateDir } from './persistence/stateDir';
import { createLocalnetServer } from './rpc/httpServer';
import { createDispatcher } from './rpc/jsonRpc';
import { buildMethods, RPC_METHODS } from './rpc/methods';

export interface LocalnetOptions {
  /** TCP port; 0 (the default) picks a free one. */
  port?: number;
  /** Interface to bind; default 127.0.0.1. */
  host?: string;
  /** Default: the testnet passphrase, so localnet plays testnet. */
  networkPassphrase?: string;
  /** Milliseconds between ledger closes (default 5000, like the public networks), or 'manual': close on closeLedger(). */
  ledgerCloseMs?: number | 'manual';
  /** Ledgers of transaction history kept (Stellar RPC's history-retention-window; default 120960 = 7 days). */
  retentionLedgers?: number;
  /** Persist the ledger state and history there and reload them on start; without it, state lives in memory only. */
  dataDir?: string;
  /** Serve friendbot at /friendbot and advertise it in getNetwork (default true). */
  friendbot?: boolean;
  /** Ledger-header values and limits for a fresh network (ignored when a dataDir already holds a network). */
  engineConfig?: Omit<EngineConfig, 'networkPassphrase'>;
  log?: (msg: string) => void;
}

export interface Localnet {
  /** JSON-RPC endpoint: `new rpc.Server(rpcUrl, { allowHttp: true })`. */
  rpcUrl: string;
  friendbotUrl: string;
  networkPassphrase: string;
  /** The ledger engine itself, for set-up in tests (installContract, rootKeypair...). */
  engine: LedgerEngine;
  /** Closes a ledger now (whatever the cadence) and returns it. */
  closeLedger(): Promise<ClosedLedger>;
  /** Stops the close loop and the server, then writes the final state when persisting. */
  stop(): Promise<void>;
}

/** Stellar RPC calls a ledger stale after 30 s (max-healthy-ledger-latency). */
const MAX_HEALTHY_LEDGER_LATENCY_MS = 30_000;

function localnetVersion(): string {
  try {
    return (
      JSON.parse(readFileSync(fileURLToPath(new URL('../../package.json', import.meta.url)), 'utf8')) as {
        version: string;
      }
    ).version;
  } catch {
    return '0.0.0';
  }
}

/** How a client reaches a server bound to `host`: a wildcard bind is reached through loopback. */
function hostForUrls(host: string, port: number): string {
  const h = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return h.includes(':') ? `[${h}]:${port}` : `${h}:${port}`;
}

export async function startLocalnet(options: LocalnetOptions = {}): Promise<Localnet> {
  const log = options.log ?? (() => {});
  const networkPassphrase = options.networkPassphrase ?? Networks.TESTNET;
  const retentionLedgers = options.retentionLedgers ?? DEFAULT_RETENTION_LEDGERS;
  const cadence: CloseCadence =
    options.ledgerCloseMs === 'manual' ? 'manual' : { intervalMs: options.ledgerCloseMs ?? 5000 };
  if (cadence !== 'manual' && !(cadence.intervalMs > 0))
    throw new Error(`ledgerCloseMs must be a positive number or 'manual', got ${options.ledgerCloseMs}`);

  // 1. state: a previous run's (dataDir) or a fresh genesis with the root account
  const stateDir = options.dataDir
    ? new StateDir(options.dataDir, { networkPassphrase, retentionLedgers, log })
    : undefined;
  const loaded = stateDir?.load() ?? { ledgers: [] };
  const engine = new LedgerEngine(
    {
      // Time bounds are judged against the expected next close (core: 2 x the expected close time): use the cadence.
      ...(cadence === 'manual' ? {} : { expectedLedgerCloseSeconds: cadence.intervalMs / 1000 }),
      ...options.engineConfig,
      networkPassphrase,
    },
    loaded.snapshot,
  );
  const history = new HistoryStore(retentionLedgers);
  for (const l of loaded.ledgers) history.record(l);
  const latest = engine.latestLedger();
  if (history.size === 0 || history.latest().sequence !== latest.sequence) {
    history.record({
      sequence: latest.sequence,
      closeTime: latest.closeTime,
      hash: latest.hash,
      metadataXdr: latest.metadataXdr,
      transactions: [],
    });
  }
  const engineState = () => ({ snapshot: engine.snapshot(), latestLedger: engine.latestLedger().sequence });
  if (stateDir && !loaded.snapshot) {
    stateDir.rewriteHistory(history.ledgersFrom(0));
    stateDir.saveNow(engineState());
  }

  // 2. the close loop, persisting each ledger
  const closer = new LedgerCloser(
    {
      engine,
      history,
      nowMs: Date.now,
      log,
      onClosed: stateDir
        ? (_ledger, record) => {
            stateDir.appendLedger(record, () => history.ledgersFrom(0));
            stateDir.requestSave(engineState);
          }
        : undefined,
    },
    cadence,
  );

  // 3. RPC + friendbot over HTTP
  const host = options.host ?? '127.0.0.1';
  const settings = {
    retentionLedgers,
    maxHealthyLedgerLatencyMs:
      cadence === 'manual' ? undefined : Math.max(MAX_HEALTHY_LEDGER_LATENCY_MS, 3 * cadence.intervalMs),
    friendbotPath: options.friendbot === false ? undefined : '/friendbot',
    defaultHost: '', // set once the port is known
    version: localnetVersion(),
  };
  const methods = buildMethods({ engine, history, feeStats: new FeeStats(history), settings, nowMs: Date.now });
  const friendbot =
    options.friendbot === false
      ? undefined
      : new Friendbot({
          engine,
          log,
          waitForTransaction: (h) => closer.waitForTransaction(h),
          nextClose: () => closer.nextClose(),
        });
  const server = createLocalnetServer({
    rpc: createDispatcher(methods, (method, err) =>
      log(`localnet ${method}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`),
    ),
    friendbot: friendbot && ((addr) => friendbot.fund(addr)),
    closeLedger: () => {
      const l = closer.close();
      return { sequence: l.sequence, closeTime: l.closeTime, hash: l.hash, transactionCount: l.transactions.length };
    },
    describe: (reqHost) => {
      const base = `http://${reqHost || settings.defaultHost}`;
      return {
        name: 'Onboard localnet (Stellar RPC compatible)',
        rpcUrl: `${base}/rpc`,
        ...(settings.friendbotPath ? { friendbotUrl: `${base}${settings.friendbotPath}` } : {}),
        networkPassphrase,
        rootAccount: engine.rootKeypair().publicKey(),
        methods: RPC_METHODS,
        ledgerClose: cadence === 'manual' ? 'manual' : `${cadence.intervalMs} ms`,
        closeLedgerUrl: `${base}/localnet/close-ledger (POST)`,
        note: 'JSON-RPC 2.0 over POST. WASM uploads, contract creation and the Stellar Asset Contract are modelled; WASM contract code is not executed (see docs/localnet.md).',
      };
    },
    log,
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  settings.defaultHost = hostForUrls(host, port);
  const base = `http://${settings.defaultHost}`;

  // 4. ledgers: on a timer, with a first close at once if the latest ledger is stale (fresh genesis or old state)
  if (cadence !== 'manual') {
    if (Date.now() / 1000 - history.latest().closeTime > cadence.intervalMs / 1000) closer.close();
    closer.start();
  }
  log(
    `localnet: RPC ${base}/rpc, ${networkPassphrase}, ledger ${history.latest().sequence}, closes ${cadence === 'manual' ? 'on demand' : `every ${cadence.intervalMs} ms`}`,
  );

  let stopped = false;
  return {
    rpcUrl: `${base}/rpc`,
    friendbotUrl: `${base}/friendbot`,
    networkPassphrase,
    engine,
    closeLedger: async () => closer.close(),
    stop: async () => {
      if (stopped) return;
      stopped = true;
      closer.stop();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      if (stateDir) {
        await stateDir.flush();
        stateDir.saveNow(engineState());
      }
    },
  };
}
