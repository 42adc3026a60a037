// What DPoP costs per request (issue 5): an operator's GET /api/v1/me (access token + DPoP proof + live session +
// two reads) against authenticated requests without DPoP (a secret-key request through the gate, limits and
// validation that reads nothing; a secret-key GET that reads in two round trips as /me does) and the unauthenticated
// GET /health, alternating in the same run; proofs signed with ES256 (the client library's keys) and EdDSA. Proofs
// are single use, so each request takes a proof signed beforehand (with the server's current nonce) from a pool;
// signing is the client's cost and is kept out of the measured window. In-process figures for the two verification
// steps alone complete it, and each target's CPU per request, in this process and in PostgreSQL, says where it goes.
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { pino } from 'pino';
import { loadConfig } from '../src/config';
import { createApiKey } from '../src/domain/apiKeys/apiKeys';
import { createApp, createOperator } from '../src/domain/apps/store';
import { OPERATOR_SESSION_POLICY } from '../src/domain/operators/operators';
import { createDpopVerifier } from '../src/domain/sessions/dpop';
import { findOrCreateUser, setExternalId } from '../src/domain/users/users';
import { createSessionService, DEFAULT_SESSION_SETTINGS } from '../src/domain/sessions/sessions';
import { reachableDataDir, startEmbeddedPostgres } from '../src/infra/db/embeddedPostgres';
import { freePort } from '../src/infra/freePort';
import { startService } from '../src/service';
import { createDpopKey, dpopProof } from '../tests/support/dpop';
import { median, medianRoundRatio, postgresCpuMicros, recordReport, sized } from './support';

// Many short rounds rather than a few long ones: the machine's slow spells last seconds, and a ratio is taken within a
// round, between samples seconds apart.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? sized(10, 1));
const SECONDS = Number(process.env.BENCH_SECONDS ?? sized(2, 0.5));
const CONNECTIONS = 10;
/** Proofs signed per sample: more than a sample can use on this machine. */
const POOL = Number(process.env.BENCH_PROOFS ?? sized(20_000, 1_000));
/** Calls timed in process for each of the two verification steps alone. */
const VERIFICATIONS = sized(2000, 50);

export async function runSessions(): Promise<void> {
  const silent = pino({ level: 'silent' });
  const dataDir = mkdtempSync(join(tmpdir(), 'onboard-bench-sessions-'));
  const pgDir = mkdtempSync(join(tmpdir(), 'onboard-bench-pg-'));
  const pg = await startEmbeddedPostgres({
    dataDir: pgDir,
    port: await freePort(),
    database: 'bench',
    persistent: false,
  });
  const service = await startService(
    loadConfig({
      PORT: '0',
      DATABASE_URL: pg.url,
      LOG_LEVEL: 'silent',
      LOCALNET: 'off',
      ONBOARD_DATA_DIR: dataDir,
      DEMO_SEED: 'off',
      RATE_LIMIT_PER_KEY_PER_MINUTE: '1000000000',
      TESTNET_DAILY_QUOTA: '1000000000',
    }),
    silent,
  );
  const { db, secrets } = service.deps;
  const operator = await createOperator(db, { email: 'bench@example.com' });
  const app = await createApp(db, { name: 'Bench app', network: 'testnet', ownerOperatorId: operator.id });
  const secret = await createApiKey(db, { appId: app.id, type: 'secret', network: 'testnet' });
  const sessions = createSessionService(secrets, DEFAULT_SESSION_SETTINGS);
  const verifier = createDpopVerifier(db, secrets);
  await verifier.ready();
  // One operator session per proof algorithm: ES256 is what the client library's keys sign with, EdDSA the other
  // algorithm the gate advertises.
  const sessionFor = async (alg: 'ES256' | 'EdDSA') => {
    const key = await createDpopKey(alg);
    const tokens = await sessions.start(db, {
      audience: 'operator',
      subjectId: operator.id,
      jkt: key.jkt,
      authMethod: 'email',
      policy: OPERATOR_SESSION_POLICY,
      now: new Date(),
    });
    return { alg, key, tokens };
  };
  const bound = [await sessionFor('ES256'), await sessionFor('EdDSA')];
  const meUrl = `${service.url}/api/v1/me`;
  // A user of the app for the secret-key GET that reads in the database as /api/v1/me does.
  const user = await findOrCreateUser(db, {
    appId: app.id,
    identity: { provider: 'email', subject: 'user@example.com', email: 'user@example.com' },
    now: new Date(),
  });
  await setExternalId(db, app.id, user.id, 'bench-user');

  type Bound = (typeof bound)[number];
  const signPool = async ({ key, tokens }: Bound, n: number) => {
    const nonce = verifier.currentNonce(new Date());
    return Promise.all(
      Array.from({ length: n }, () =>
        dpopProof(key, { method: 'GET', url: meUrl, accessToken: tokens.accessToken, nonce }),
      ),
    );
  };

  // Where a request's CPU goes: this process (the service and the load generator) and the PostgreSQL server.
  type Sample = { rps: number; p50: number; p99: number; non2xx: number; processUs: number; postgresUs?: number };
  const pgDataDir = reachableDataDir(pgDir);
  const run = async (opts: autocannon.Options): Promise<Sample> => {
    const [cpu0, pg0] = [process.cpuUsage(), postgresCpuMicros(pgDataDir)];
    const r = await autocannon({ connections: CONNECTIONS, duration: SECONDS, ...opts });
    const [cpu, pg1] = [process.cpuUsage(cpu0), postgresCpuMicros(pgDataDir)];
    const n = Math.max(1, r.requests.total);
    return {
      rps: r.requests.average,
      p50: r.latency.p50,
      p99: r.latency.p99,
      non2xx: r.non2xx,
      processUs: (cpu.user + cpu.system) / n,
      ...(pg0 !== undefined && pg1 !== undefined ? { postgresUs: (pg1 - pg0) / n } : {}),
    };
  };
  const targets: { name: string; measure(): Promise<Sample> }[] = [
    { name: 'unauthenticated GET /health', measure: () => run({ url: `${service.url}/health` }) },
    {
      name: 'secret key, no DPoP: POST /v1/wallets/fund, invalid body (gate + limits + validation -> 400)',
      measure: () =>
        run({
          url: `${service.url}/v1/wallets/fund`,
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-service-api-key': secret.key },
          body: JSON.stringify({ publicKey: 'GABC' }),
        }),
    },
    {
      name: 'secret key, no DPoP: GET /v1/users/{externalId} (gate + limits + the user, then its providers and wallets: two round trips)',
      measure: () => run({ url: `${service.url}/v1/users/bench-user`, headers: { 'x-service-api-key': secret.key } }),
    },
    ...bound.map((session) => ({
      name: `operator session + DPoP (${session.alg} proofs): GET /api/v1/me (token, proof, jti insert, live session, the operator, then their apps: two round trips)`,
      measure: async () => {
        const proofs = await signPool(session, POOL);
        let i = 0;
        return run({
          url: meUrl,
          requests: [
            {
              method: 'GET',
              setupRequest: (req) => ({
                ...req,
                headers: {
                  ...req.headers,
                  authorization: `DPoP ${session.tokens.accessToken}`,
                  dpop: proofs[i++ % proofs.length]!,
                },
              }),
            },
          ],
        });
      },
    })),
  ];

  const samples = new Map(targets.map((t) => [t.name, [] as Sample[]]));
  const verifyUs = new Map<string, number>();
  let tokenUs: number;
  let firstTokenUs: number;
  try {
    for (const t of targets) await t.measure(); // warm-up
    for (let round = 1; round <= ROUNDS; round++) {
      for (const t of targets) {
        const m = await t.measure();
        samples.get(t.name)!.push(m);
        console.log(
          `round ${round}/${ROUNDS}  ${t.name}: ${Math.round(m.rps)} req/s, p50 ${m.p50} ms, p99 ${m.p99} ms, non-2xx ${m.non2xx}, CPU per request ${m.processUs.toFixed(0)} us here, ${m.postgresUs?.toFixed(0) ?? '-'} us PostgreSQL`,
        );
      }
    }
    // In process: the two verification steps alone, per call.
    const N = VERIFICATIONS;
    let t0: bigint;
    for (const session of bound) {
      const proofs = await signPool(session, N);
      const accessToken = session.tokens.accessToken;
      t0 = process.hrtime.bigint();
      for (const proof of proofs)
        await verifier.verify({ proof, method: 'GET', url: meUrl, accessToken, now: new Date() });
      verifyUs.set(session.alg, Number(process.hrtime.bigint() - t0) / 1000 / N);
    }
    const { tokens, key } = bound[0]!;
    t0 = process.hrtime.bigint();
    for (let j = 0; j < N; j++) await sessions.tokens.verify(tokens.accessToken, 'operator', new Date());
    tokenUs = Number(process.hrtime.bigint() - t0) / 1000 / N;
    // A token seen for the first time: N distinct tokens of the same session, each verified once.
    const fresh = await Promise.all(
      Array.from({ length: N }, () =>
        sessions.tokens.sign(
          { audience: 'operator', subjectId: operator.id, sessionId: tokens.sessionId, jkt: key.jkt },
          new Date(),
          900,
        ),
      ),
    );
    t0 = process.hrtime.bigint();
    for (const token of fresh) await sessions.tokens.verify(token, 'operator', new Date());
    firstTokenUs = Number(process.hrtime.bigint() - t0) / 1000 / N;
  } finally {
    await service.close();
    await pg.stop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(pgDir, { recursive: true, force: true });
  }

  const rpsOf = (t: { name: string }) => median(samples.get(t.name)!.map((m) => m.rps));
  const roundsOf = (t: { name: string }) => samples.get(t.name)!.map((m) => m.rps);
  /** The median over rounds of t's throughput against the baseline's in the same round. */
  const ratio = (t: { name: string }, baseline: { name: string }) =>
    medianRoundRatio(roundsOf(t), roundsOf(baseline)).toFixed(2);
  const [health, keyed, keyedRead] = [targets[0]!, targets[1]!, targets[2]!];
  const rows = targets.map((t) => {
    const s = samples.get(t.name)!;
    const pgUs = s.every((m) => m.postgresUs !== undefined) ? median(s.map((m) => m.postgresUs!)).toFixed(0) : '-';
    return `| ${t.name} | ${Math.round(rpsOf(t))} | ${median(s.map((m) => m.p50))} | ${median(s.map((m) => m.p99))} | ${ratio(t, keyed)} | ${ratio(t, keyedRead)} | ${ratio(t, health)} | ${median(s.map((m) => m.processUs)).toFixed(0)} | ${pgUs} |`;
  });
  const date = new Date().toISOString().slice(0, 10);
  const dpopRatios = bound.map((session, i) => {
    const dpop = targets[3 + i]!;
    const perRound = roundsOf(dpop).map((rps, r) => (rps / roundsOf(keyedRead)[r]!).toFixed(2));
    return (
      `with ${session.alg} proofs at ${ratio(dpop, keyedRead)} of a secret-key GET that reads in two round trips as ` +
      `it does (each round: ${perRound.join(', ')}), and at ${ratio(dpop, keyed)} of a secret-key request without ` +
      'DPoP that reads nothing in the database'
    );
  });
  const report = [
    `# Sessions: what DPoP costs per request (${date})`,
    '',
    `Command: \`BENCH=sessions make bench\` (bench/sessions.ts), autocannon ${CONNECTIONS} connections, ${SECONDS} s per sample, ${ROUNDS} alternating rounds; req/s and latencies are medians over rounds, ratios the median of each round's ratio; proofs (ES256 and EdDSA) signed before each sample.`,
    `Machine: ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}; load generator in the same process (shared, noisy machine: read the ratios).`,
    '',
    '| target | req/s (median) | p50 ms | p99 ms | vs secret-key request without DPoP | vs secret-key GET with reads | vs unauthenticated GET /health | CPU per request, this process (service + load generator), us | CPU per request, PostgreSQL, us |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    `**DPoP ratio**: an operator request with its access token and DPoP proof runs ${dpopRatios.join('; ')}.`,
    `In process, one proof verification (decode, the signature by the embedded key, claims, nonce, the atomic jti insert in PostgreSQL) takes ${bound.map((b) => `${verifyUs.get(b.alg)!.toFixed(0)} µs (${b.alg})`).join(', ')} and one access-token verification (EdDSA) ${firstTokenUs.toFixed(0)} µs the first time a process sees the token, ${tokenUs.toFixed(0)} µs after (its verified claims are kept; expiry and audience checked again), on one thread.`,
    '',
  ].join('\n');
  recordReport(`${date}-sessions.md`, report);
}
