// What the contract layer costs per request: the service's GET /health (routing, envelope, logging); a POST that is
// authenticated (a real secret key), rate-limited, counted against the testnet quota and refused by validation (400);
// the same POST valid, answered by a stand-in for its handler that does no I/O (200: the gate, the router, validation
// and the envelope, which is what the "authenticated, validated POST" measures, as the 501 of the unbuilt
// handler did when the goal was set); and the same POST valid, which its real handler answers after one indexed read
// (404). Baselines in the same run: a bare Express GET /health answering the same JSON, a bare Express POST that parses
// the same JSON body and answers at once, and one that makes the same read through its own pool of the same size (what
// one database round trip costs on this machine, without the service around it); all log through the service's own
// request logger. Rounds alternate the targets so machine noise hits them alike; the medians and the medians of each
// round's ratios are recorded. Traffic stays on 127.0.0.1.
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
import { serveWithHandlers } from '../tests/support/service';
import { median, medianRoundRatio, recordReport, sized } from './support';

// Many short rounds rather than a few long ones: the machine's slow spells last seconds, and a ratio is taken within a
// round, between samples seconds apart.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? sized(10, 1));
const SECONDS = Number(process.env.BENCH_SECONDS ?? sized(2, 0.5));
const CONNECTIONS = 10;

interface Target {
  name: string;
  url: string;
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
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
  // The floor of a POST: the same JSON body parsed, answered at once.
  bare.post('/v1/wallets/answer', express.json(), (req, res) => {
    const { publicKey } = req.body as { publicKey?: unknown };
    res.json({ content: { publicKey, startingBalance: '0' }, code: 'SERVER_WALLET_FUNDED', success: true });
  });
  const bareServer = bare.listen(0, '127.0.0.1');
  await new Promise((r) => bareServer.once('listening', r));
  const bareUrl = `http://127.0.0.1:${(bareServer.address() as AddressInfo).port}`;

  // The service's own app on the same deps, its fundWallet replaced by a stand-in that answers without I/O.
  const standIn = await serveWithHandlers(service.deps, {
    fundWallet: async (req) => ({ content: { publicKey: req.body.publicKey, startingBalance: '0' } }),
  });
  const unknownWallet = JSON.stringify({ publicKey: 'GCQ53WWRBL6HVSDNRMZKFZD7SP5DKYC6JFWSRLPQCVGD6Y42TYIN73Q2' });
  const targets: Target[] = [
    { name: 'baseline: bare Express GET /health', url: `${bareUrl}/health`, method: 'GET' },
    {
      name: 'baseline POST: bare Express POST, the same JSON body parsed, answered at once (200)',
      url: `${bareUrl}/v1/wallets/answer`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: unknownWallet,
    },
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
      name: 'service POST /v1/wallets/fund, valid body, a stand-in handler without I/O (gate + limits + validation + envelope -> 200)',
      url: `${standIn.url}/v1/wallets/fund`,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-api-key': secret.key },
      body: unknownWallet,
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
    await standIn.close();
    await bareDb.destroy();
    await service.close();
    await db.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }

  const roundsOf = (t: Target) => samples.get(t.name)!.map((m) => m.rps);
  const [bareGet, barePost, bareRead, serviceHealth] = [targets[0]!, targets[1]!, targets[2]!, targets[3]!];
  /** The median over rounds of t's throughput against the baseline's in the same round. */
  const ratio = (t: Target, baseline: Target) => medianRoundRatio(roundsOf(t), roundsOf(baseline)).toFixed(2);
  const rows = targets.map((t) => {
    const s = samples.get(t.name)!;
    return `| ${t.name} | ${Math.round(median(roundsOf(t)))} | ${median(s.map((m) => m.p50))} | ${median(s.map((m) => m.p99))} | ${ratio(t, bareGet)} | ${ratio(t, barePost)} | ${ratio(t, bareRead)} | ${ratio(t, serviceHealth)} |`;
  });
  const gate = targets[5]!;
  const perRound = roundsOf(gate).map((rps, r) => (rps / roundsOf(bareGet)[r]!).toFixed(2));
  const date = new Date().toISOString().slice(0, 10);
  const report = [
    `# HTTP foundation: cost of the contract layer (${date})`,
    '',
    `Command: \`BENCH=http-foundation make bench\` (bench/http-foundation.ts), autocannon ${CONNECTIONS} connections, ${SECONDS} s per sample, ${ROUNDS} alternating rounds; req/s and latencies are medians over rounds, ratios the median of each round's ratio.`,
    `Machine: ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}; load generator in the same process (shared, noisy machine: read the ratios).`,
    '',
    '| target | req/s (median) | p50 ms | p99 ms | vs bare GET /health | vs bare POST | vs bare POST with the read | vs service GET /health |',
    '|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    `**Gate ratio**: an authenticated, validated POST (the stand-in handler) runs at ${ratio(gate, bareGet)} of bare Express GET /health (each round: ${perRound.join(', ')}) and at ${ratio(gate, barePost)} of a bare Express POST with the same body.`,
    '',
  ].join('\n');
  recordReport(`${date}-http-foundation.md`, report);
}
