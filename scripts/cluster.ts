// `make cluster`: the service as a cluster on one machine, for tests, demos and fault experiments (issue 22): three API
// processes and two workers on one PostgreSQL and one local chain, behind a proxy that balances as a load balancer
// does: round robin over the API processes whose readiness (GET /ready) answers 200.
//
//   api-1       src/main.ts, WORKERS=off: starts the embedded PostgreSQL and the localnet (the cluster's database and
//               chain, in CLUSTER_DATA_DIR), runs the migrations and the demo seed.
//   api-2, -3   src/main.ts, WORKERS=off, LOCALNET=off: DATABASE_URL and STELLAR_TESTNET_RPC_URL point at api-1's.
//   worker-1,-2 src/worker.ts: every background job, attached to the same database and chain.
//   proxy       CLUSTER_PORT: each request to the next ready API process (a connection refused goes to the next one),
//               the answer names who served it (X-Onboard-Backend); readiness polled every 500 ms. It sets
//               X-Forwarded-For to the client's address, which the API processes trust (TRUST_PROXY=loopback).
// All share one data directory, so one service secret and one local master key. Limits are shared through PostgreSQL
// (RATE_LIMIT_STORE=postgres) unless the environment says otherwise (RATE_LIMIT_STORE=redis with REDIS_URL).
// Ctrl-C or SIGTERM: the proxy stops taking requests, the workers and API processes drain and stop, api-1 (which owns
// the database and the chain) last. A process that dies is reported and left dead: that is what fault tests look at.
//
// The proxy is written here on node:http: what it has to do (readiness-aware round robin, the next backend on a refused
// connection, a header naming the backend) is the balancing itself; a proxy library would only stream the bytes,
// which node:http's pipe does in a few lines.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import { join, resolve } from 'node:path';
import { embeddedDatabaseUrl } from '../src/infra/db/embeddedPostgres';
import { projectRoot as root } from '../src/paths';
import { CLUSTER_API_PROCESSES } from './clusterProcess';

const env = process.env;
const dataDir = resolve(env.CLUSTER_DATA_DIR || join(root, '.data', 'cluster'));
const proxyPort = Number(env.CLUSTER_PORT || 3000);
const apiBasePort = Number(env.CLUSTER_API_BASE_PORT || 3101);
const pgPort = Number(env.EMBEDDED_PG_PORT || 54339);
const localnetPort = Number(env.LOCALNET_PORT || 8010);
const API_PROCESSES = CLUSTER_API_PROCESSES;
const WORKERS = 2;
/** How often the proxy asks each API process whether it is ready. */
const READINESS_POLL_MS = 500;
/** How long start-up waits for api-1 (a first run creates the database cluster and seeds the demo app). */
const FIRST_READY_TIMEOUT_MS = 180_000;
const OTHERS_READY_TIMEOUT_MS = 120_000;
/** How long stopping waits for a process after SIGTERM before it is killed. */
const STOP_TIMEOUT_MS = 20_000;

interface Member {
  name: string;
  child: ChildProcess;
  /** The API port; absent for a worker. */
  port?: number;
  ready: boolean;
  exited: boolean;
}

const members: Member[] = [];
let stopping = false;

function say(line: string): void {
  process.stdout.write(`[cluster] ${line}\n`);
}

/** Starts one process of the cluster, its output prefixed with its name. */
function start(name: string, script: string, extraEnv: Record<string, string>, port?: number): Member {
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, script)], {
    cwd: root,
    env: {
      ...env,
      ONBOARD_DATA_DIR: dataDir,
      EMBEDDED_PG_PORT: String(pgPort),
      LOCALNET_PORT: String(localnetPort),
      RATE_LIMIT_STORE: env.RATE_LIMIT_STORE || 'postgres',
      PUBLIC_URL: env.PUBLIC_URL || `http://127.0.0.1:${proxyPort}`,
      // The proxy (on this machine) names the client in X-Forwarded-For: the per-address limits count clients.
      TRUST_PROXY: env.TRUST_PROXY || 'loopback',
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    // A process group of its own: Ctrl-C in the terminal reaches this script only, which stops the cluster in order
    // (the workers must not lose api-1's database while they stop).
    detached: true,
  });
  const member: Member = { name, child, ...(port !== undefined ? { port } : {}), ready: false, exited: false };
  const prefix = (stream: NodeJS.WritableStream) => (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) if (line) stream.write(`[${name}] ${line}\n`);
  };
  child.stdout.on('data', prefix(process.stdout));
  child.stderr.on('data', prefix(process.stderr));
  child.on('exit', (code, signal) => {
    member.exited = true;
    member.ready = false;
    if (!stopping) say(`${name} (pid ${child.pid}) exited (${signal ?? `code ${code}`}); the proxy leaves it out`);
  });
  members.push(member);
  return member;
}

/** GET /ready of an API process: true on 200. */
function probeReady(port: number): Promise<boolean> {
  return new Promise((done) => {
    const req = request({ host: '127.0.0.1', port, path: '/ready', method: 'GET', timeout: 2_000 }, (res) => {
      res.resume();
      done(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => done(false));
    req.end();
  });
}

async function waitReady(member: Member, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probeReady(member.port!))) {
    if (member.exited) throw new Error(`${member.name} exited during start-up (see its output above)`);
    if (Date.now() > deadline) throw new Error(`${member.name} not ready after ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 250));
  }
  member.ready = true;
}

/** Keeps each API process's readiness current, so the proxy skips one that drains or died. */
function pollReadiness(): NodeJS.Timeout {
  return setInterval(() => {
    for (const m of members)
      if (m.port !== undefined && !m.exited) void probeReady(m.port).then((ok) => (m.ready = ok && !m.exited));
  }, READINESS_POLL_MS);
}

/** Methods without effects: one cut before any answer may be sent to the next process. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

let next = 0;
/** The ready API processes, starting after the one the last request went to. */
function rotation(): Member[] {
  const apis = members.filter((m) => m.port !== undefined);
  const start = next++ % apis.length;
  return [...apis.slice(start), ...apis.slice(0, start)].filter((m) => m.ready);
}

/** Forwards the request to the first backend of `candidates` that takes the connection. */
function forward(req: IncomingMessage, res: ServerResponse, body: Buffer, candidates: Member[]): void {
  const backend = candidates[0];
  if (!backend) {
    res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
    res.end(
      JSON.stringify({
        success: false,
        code: 'SERVICE_UNAVAILABLE',
        message: 'No API process of the cluster is ready',
      }),
    );
    return;
  }
  const upstream = request(
    {
      // A new connection each time: a kept-alive one to a process that died fails after the request went out, when
      // it can no longer be given to another process.
      agent: false,
      host: '127.0.0.1',
      port: backend.port,
      method: req.method,
      path: req.url,
      headers: { ...req.headers, 'x-forwarded-for': req.socket.remoteAddress ?? '' },
    },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, { ...answer.headers, 'x-onboard-backend': backend.name });
      answer.pipe(res);
    },
  );
  upstream.on('error', (err: NodeJS.ErrnoException) => {
    // The next process may take the request when it never reached this one (refused), or when it cannot have done
    // anything (a reset before any answer to a method without effects), as a load balancer's "next upstream" rule
    // does. A request with effects cut mid-way is a 502: its client retries with its Idempotency-Key.
    const neverArrived = err.code === 'ECONNREFUSED';
    const noEffects = SAFE_METHODS.has(req.method ?? '') && (err.code === 'ECONNRESET' || err.code === 'EPIPE');
    if (!res.headersSent && (neverArrived || noEffects)) {
      backend.ready = false;
      forward(req, res, body, candidates.slice(1));
    } else if (!res.headersSent) {
      res.writeHead(502, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          success: false,
          code: 'BAD_GATEWAY',
          message: `${backend.name} failed mid-request (${err.code ?? err.message})`,
        }),
      );
    } else res.destroy();
  });
  upstream.end(body);
}

function startProxy(): Promise<ReturnType<typeof createServer>> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => forward(req, res, Buffer.concat(chunks), rotation()));
  });
  return new Promise((done, fail) => {
    server.once('error', fail);
    server.listen(proxyPort, '127.0.0.1', () => done(server));
  });
}

/** SIGTERM to each member of `group` at once, SIGKILL to any still running after STOP_TIMEOUT_MS. */
async function stopGroup(group: Member[]): Promise<void> {
  await Promise.all(
    group
      .filter((m) => !m.exited)
      .map(
        (m) =>
          new Promise<void>((done) => {
            const kill = setTimeout(() => m.child.kill('SIGKILL'), STOP_TIMEOUT_MS);
            m.child.once('exit', () => {
              clearTimeout(kill);
              done();
            });
            m.child.kill('SIGTERM');
          }),
      ),
  );
}

async function main(): Promise<void> {
  mkdirSync(dataDir, { recursive: true });
  const databaseUrl = embeddedDatabaseUrl(pgPort, 'onboard');
  const rpcUrl = `http://127.0.0.1:${localnetPort}/rpc`;
  say(`data in ${dataDir}; PostgreSQL on ${pgPort}, localnet on ${localnetPort}`);
  say('starting api-1 (database, chain, migrations, demo seed)...');
  const first = start('api-1', 'src/main.ts', { PORT: String(apiBasePort), WORKERS: 'off' }, apiBasePort);
  await waitReady(first, FIRST_READY_TIMEOUT_MS);
  say(`starting api-2..${API_PROCESSES} and ${WORKERS} workers...`);
  const others: Member[] = [];
  for (let i = 2; i <= API_PROCESSES; i++) {
    const port = apiBasePort + i - 1;
    others.push(
      start(
        `api-${i}`,
        'src/main.ts',
        {
          PORT: String(port),
          WORKERS: 'off',
          DATABASE_URL: databaseUrl,
          LOCALNET: 'off',
          STELLAR_TESTNET_RPC_URL: rpcUrl,
          DEMO_SEED: 'off',
        },
        port,
      ),
    );
  }
  for (let i = 1; i <= WORKERS; i++) start(`worker-${i}`, 'src/worker.ts', {});
  await Promise.all(others.map((m) => waitReady(m, OTHERS_READY_TIMEOUT_MS)));
  const poller = pollReadiness();
  const proxy = await startProxy();
  const pids = Object.fromEntries(members.map((m) => [m.name, m.child.pid]));
  writeFileSync(join(dataDir, 'cluster-pids.json'), `${JSON.stringify(pids, null, 2)}\n`);
  say(`ready: http://127.0.0.1:${proxyPort} (round robin over ${API_PROCESSES} API processes)`);
  for (const m of members)
    say(`  ${m.name.padEnd(9)} pid ${m.child.pid}${m.port !== undefined ? `  http://127.0.0.1:${m.port}` : ''}`);
  say(`pids also in ${join(dataDir, 'cluster-pids.json')}; stop with Ctrl-C`);

  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    say(`${signal}: stopping (the proxy, then workers and api-2..${API_PROCESSES}, then api-1)...`);
    clearInterval(poller);
    proxy.close();
    await stopGroup(members.filter((m) => m !== first));
    await stopGroup([first]);
    say('stopped');
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch(async (err: unknown) => {
  say(`error: ${err instanceof Error ? err.message : String(err)}`);
  stopping = true;
  await stopGroup(members.slice().reverse());
  process.exit(1);
});
