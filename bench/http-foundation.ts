// What the contract layer costs per request: the service's GET /health (routing, envelope, logging), a POST that is
// authenticated (a real secret key), rate-limited, counted against the testnet quota and refused by validation (400),
// and the same POST valid, which its handler answers after one indexed read (404). Baselines in the same run: a bare
// Express GET /health answering the same JSON, and a bare Express POST that parses the same JSON body and makes the
// same read through its own pool of the same size (what one database round trip costs on this machine, without the
// service around it); both log through the service's own request logger. Rounds alternate the targets so machine
// noise hits them alike; the medians and their ratios are recorded. Traffic stays on 127.0.0.1.
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import autocannon from 'autocannon';
import express from 'express';
import { pino } from 'pino';
import { loadConfig } from '../src/config';
import { createDb } from '../src/infra/db/database';
import { startEmbeddedPostgres } from '../src/infra/db/embeddedPostgres';
import { freePort } from '../src/infra/freePort';
import { startService } from '../src/service';
import { createApiKey } from '../src/domain/apiKeys/apiKeys';
import { createApp, createOperator } from '../src/domain/apps/store';
import { findWalletByPublicKey } from '../src/domain/wallets/store';
import { requestLogger } from '../src/http/requestLog';
import { recordReport, sized } from './support';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? sized(3, 1));
const SECONDS = Number(process.env.BENCH_SECONDS ?? sized(5, 0.5));
const CONNECTIONS = 10;

interface Target {
  name: string;
  url: string;
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

async function measure(t: Target): Promise<{ rps: number; p50: number; p99: number; non2xx: number }> {
  const r = await autocannon({
    url: t.url,
    method: t.method,
    headers: t.headers,
    body: t.body,
    connections: CONNECTIONS,
    duration: SECONDS,
  });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx };
}

export async function runHttpFoundation(): Promise<void> {
  const silent = pino({ level: 'silent' });
  const dataDir = mkdtempSync(join(tmpdir(), 'onboard-bench-pg-'));
  const db = await startEmbeddedPostgres({ dataDir, port: await freePort(), database: 'bench', persistent: false });
  const service = await startService(
    loadConfig({
      PORT: '0',
      DATABASE_URL: db.url,
      LOG_LEVEL: 'silent',
      LOCALNET: 'off',
      // The limits are applied (the per-minute count and the testnet quota upsert are part of the gate's cost) but set
      // high enough that the benchmark's traffic is never refused.
      RATE_LIMIT_PER_KEY_PER_MINUTE: '1000000000',
      TESTNET_DAILY_QUOTA: '1000000000',
    }),
    silent,
  );
  // A real secret key, so the gate does its database lookup as in production.
  const operator = await createOperator(service.deps.db, { email: 'bench@example.com' });
  const app = await createApp(service.deps.db, { name: 'Bench app', network: 'testnet', ownerOperatorId: operator.id });
  const secret = await createApiKey(service.deps.db, { appId: app.id, type: 'secret', network: 'testnet' });

  const bare = express();
  bare.use(requestLogger(silent));
  bare.get('/health', (_req, res) => {
    res.json({ content: { status: 'ok', version: '0.1.0', uptimeSeconds: 1 }, code: 'HEALTHY', success: true });
  });
  // The read alone: the service's own query function on a pool of its own (the service's default size, 10).
  const bareDb = createDb(db.url);
  bare.post('/v1/wallets/fund', express.json(), async (req, res) => {
    const wallet = await findWalletByPublicKey(bareDb, String((req.body as { publicKey?: unknown }).publicKey));
    if (wallet) res.json({ content: { publicKey: wallet.publicKey }, code: 'SERVER_WALLET_FUNDED', success: true });
    else res.status(404).json({ code: 'WALLET_NOT_FOUND', message: 'No wallet of this app has that public key' });
  });
  const bareServer = bare.listen(0, '127.0.0.1');
  await new Promise((r) => bareServer.once('listening', r));
  const bareUrl = `http://127.0.0.1:${(bareServer.address() as AddressInfo).port}`;

  const unknownWallet = JSON.stringify({ publicKey: 'GCQ53WWRBL6HVSDNRMZKFZD7SP5DKYC6JFWSRLPQCVGD6Y42TYIN73Q2' });
  const targets: Target[] = [
    { name: 'baseline: bare Express GET /health', url: `${bareUrl}/health`, method: 'GET' },
    {
      name: 'baseline with the read: bare Express POST, JSON body, the same indexed read (own pool) -> 404',
      url: `${bareUrl}/v1/wallets/fund`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: unknownWallet,
    },
    { name: 'service GET /health', url: `${service.url}/health`, method: 'GET' },
    {
      name: 'service POST /v1/wallets/fund, invalid body (gate + limits + validation -> 400)',
      url: `${service.url}/v1/wallets/fund`,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-api-key': secret.key },
      body: JSON.stringify({ publicKey: 'GABC' }),
    },
    {
      // The gate's cost on a near no-op (issue 4): key lookup, rate limit and testnet quota, validation, then one
      // indexed read that finds no such wallet (404; it was the 501 of an unbuilt handler until issue 6).
      name: 'service POST /v1/wallets/fund, unknown wallet (gate + limits + validation + one read -> 404)',
      url: `${service.url}/v1/wallets/fund`,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-api-key': secret.key },
      body: unknownWallet,
    },
  ];
  const samples = new Map(targets.map((t) => [t.name, [] as Awaited<ReturnType<typeof measure>>[]]));
  try {
    // warm-up: JIT, openapi-backend's lazy validator compilation, both pools
    for (const t of targets.slice(1)) await measure(t);
    for (let round = 1; round <= ROUNDS; round++) {
      for (const t of targets) {
        const m = await measure(t);
        samples.get(t.name)!.push(m);
        console.log(
          `round ${round}/${ROUNDS}  ${t.name}: ${Math.round(m.rps)} req/s, p50 ${m.p50} ms, p99 ${m.p99} ms`,
        );
      }
    }
  } finally {
    bareServer.close();
    await bareDb.destroy();
    await service.close();
    await db.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }

  const baseline = median(samples.get(targets[0]!.name)!.map((m) => m.rps));
  const withRead = median(samples.get(targets[1]!.name)!.map((m) => m.rps));
  const unauthenticated = median(samples.get(targets[2]!.name)!.map((m) => m.rps));
  const rows = targets.map((t) => {
    const s = samples.get(t.name)!;
    const rps = median(s.map((m) => m.rps));
    return `| ${t.name} | ${Math.round(rps)} | ${median(s.map((m) => m.p50))} | ${median(s.map((m) => m.p99))} | ${(rps / baseline).toFixed(2)} | ${(rps / withRead).toFixed(2)} | ${(rps / unauthenticated).toFixed(2)} |`;
  });
  const date = new Date().toISOString().slice(0, 10);
  const report = [
    `# HTTP foundation: cost of the contract layer (${date})`,
    '',
    `Command: \`make bench\` (bench/http-foundation.ts), autocannon ${CONNECTIONS} connections, ${SECONDS} s per sample, ${ROUNDS} alternating rounds, medians.`,
    `Machine: ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}; load generator in the same process (shared, noisy machine: read the ratios).`,
    '',
    '| target | req/s (median) | p50 ms | p99 ms | vs bare GET /health | vs bare POST with the read | vs service GET /health |',
    '|---|---|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
  recordReport(`${date}-http-foundation.md`, report);
}
