// The client library's cost to an app (issue 16), each against a floor measured in the same run:
//   1. size: @onboard/core bundled for a browser (Vite library build, minified, then gzip -9), for what a frontend
//      imports (createOnboard) and for everything (the webhook verifiers too); @onboard/react's own share (React
//      itself excluded, as the app has it anyway).
//   2. overhead of one authenticated call: `onboard.api.getWallet()` (a fresh ES256 DPoP proof with `ath`, the
//      access token, the outcome) against a bare fetch of the same URL with the same headers, to a local server that
//      answers at once; alternating blocks of BENCH_SDK_CALLS (2000) calls each, medians of the block medians.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'vite';
import { createDpopSigner, createOnboard, memoryKeyStore, memoryStorage } from '../sdk/core/src/index';
import { projectRoot } from '../src/paths';
import { percentile, recordReport, sized } from './support';

const CALLS = Number(process.env.BENCH_SDK_CALLS ?? sized(2000, 20));
const BLOCKS = sized(5, 1);
const PUB = `pub_testnet_${'BenchOnlyNotARealKey'.padEnd(32, '0')}`;
const G = 'GCQ53WWRBL6HVSDNRMZKFZD7SP5DKYC6JFWSRLPQCVGD6Y42TYIN73Q2';

interface Size {
  name: string;
  minified: number;
  gzip: number;
}

async function bundleSize(name: string, entry: string, external: string[] = []): Promise<Size> {
  // Inside the project, so that bare imports (jose) resolve from its node_modules.
  mkdirSync(join(projectRoot, 'node_modules', '.cache'), { recursive: true });
  const dir = mkdtempSync(join(projectRoot, 'node_modules', '.cache', 'onboard-size-'));
  try {
    const file = join(dir, 'entry.ts');
    writeFileSync(file, entry);
    await build({
      configFile: false,
      logLevel: 'silent',
      root: dir,
      resolve: {
        alias: {
          '@onboard/core': join(projectRoot, 'sdk/core/src/index.ts'),
          '@onboard/react': join(projectRoot, 'sdk/react/src/index.ts'),
        },
      },
      build: {
        outDir: join(dir, 'out'),
        minify: true,
        lib: { entry: file, formats: ['es'], fileName: 'bundle' },
        rollupOptions: { external },
      },
    });
    const out = join(
      dir,
      'out',
      readdirSync(join(dir, 'out')).find((f) => /\.m?js$/.test(f))!,
    );
    const code = readFileSync(out);
    return { name, minified: code.length, gzip: gzipSync(code, { level: 9 }).length };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

async function callOverhead() {
  const wallet = JSON.stringify({
    success: true,
    code: 'WALLET_FOUND',
    content: {
      walletId: 'wal_01BENCH',
      publicKey: G,
      network: 'testnet',
      funded: true,
      createdAt: new Date().toISOString(),
    },
  });
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json', 'dpop-nonce': 'bench-nonce' });
    res.end(wallet);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  // A signed-in device: a key pair in the key store and a session record bound to it.
  const pair = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify']);
  const keyStore = memoryKeyStore();
  await keyStore.save(pair);
  const storage = memoryStorage();
  const now = Date.now();
  await storage.set(
    `onboard:${PUB}`,
    JSON.stringify({
      v: 1,
      jkt: (await createDpopSigner(pair)).jkt,
      accessToken: 'a'.repeat(600),
      refreshToken: 'r'.repeat(43),
      sessionId: 'ses_01BENCH',
      accessExpiresAt: now + 3_600_000,
      refreshExpiresAt: now + 86_400_000,
      user: { userId: 'usr_01BENCH', email: 'bench@example.com' },
      wallet: {
        walletId: 'wal_01BENCH',
        publicKey: G,
        network: 'testnet',
        funded: true,
        createdAt: new Date().toISOString(),
      },
    }),
  );
  const client = createOnboard({ publishableKey: PUB, baseUrl, storage, keyStore });
  await client.ready();
  if (client.auth.get().step !== 'authenticated') throw new Error('the bench session was not restored');
  const signer = await createDpopSigner(pair);
  const proof = await signer.proof('GET', `${baseUrl}/v1/wallet`, { accessToken: 'a'.repeat(600) });

  const timed = async (call: () => Promise<unknown>): Promise<number[]> => {
    const out: number[] = [];
    for (let i = 0; i < CALLS; i++) {
      const t = performance.now();
      await call();
      out.push(performance.now() - t);
    }
    return out;
  };
  const bare = () =>
    fetch(`${baseUrl}/v1/wallet`, {
      headers: { 'x-service-api-key': PUB, authorization: `DPoP ${'a'.repeat(600)}`, dpop: proof },
    }).then((r) => r.json());
  const sdk = async () => {
    const out = await client.api.getWallet();
    if (!out.ok) throw new Error(JSON.stringify(out));
  };
  const sign = () => signer.proof('GET', `${baseUrl}/v1/wallet`, { accessToken: 'a'.repeat(600), nonce: 'n' });
  await timed(bare); // warm-up
  await timed(sdk);
  const medians = { bare: [] as number[], sdk: [] as number[], sign: [] as number[] };
  const all = { bare: [] as number[], sdk: [] as number[] };
  for (let b = 0; b < BLOCKS; b++) {
    const x = await timed(bare);
    const y = await timed(sdk);
    const z = await timed(sign);
    all.bare.push(...x);
    all.sdk.push(...y);
    medians.bare.push(percentile(x, 50));
    medians.sdk.push(percentile(y, 50));
    medians.sign.push(percentile(z, 50));
  }
  client.destroy();
  await new Promise<void>((r) => server.close(() => r()));
  return {
    bare: { p50: percentile(medians.bare, 50), p99: percentile(all.bare, 99) },
    sdk: { p50: percentile(medians.sdk, 50), p99: percentile(all.sdk, 99) },
    sign: percentile(medians.sign, 50),
  };
}

export async function runSdkClient(): Promise<void> {
  const sizes = [
    await bundleSize('@onboard/core, createOnboard only', "export { createOnboard } from '@onboard/core';"),
    await bundleSize('@onboard/core, everything', "export * from '@onboard/core';"),
    await bundleSize(
      'of which jose (the parts DPoP uses)',
      "export { SignJWT, exportJWK, calculateJwkThumbprint, generateKeyPair } from 'jose';",
    ),
    await bundleSize(
      'of which the generated client (every operation)',
      `export * from '${join(projectRoot, 'generated/client/sdk.gen.ts')}';`,
    ),
    await bundleSize('@onboard/react with @onboard/core (React excluded)', "export * from '@onboard/react';", [
      'react',
      'react/jsx-runtime',
      'react-dom',
    ]),
  ];
  for (const s of sizes) console.log(`${s.name}: ${kb(s.minified)} minified, ${kb(s.gzip)} gzip`);
  const calls = await callOverhead();
  const ms = (v: number) => `${v.toFixed(3)} ms`;
  console.log(
    `bare fetch p50 ${ms(calls.bare.p50)}; onboard.api p50 ${ms(calls.sdk.p50)}; one proof ${ms(calls.sign)}`,
  );

  const date = new Date().toISOString().slice(0, 10);
  const report = [
    `# Client library: bundle size and the cost of one authenticated call (${date})`,
    '',
    'Command: `BENCH=sdk-client make bench` (bench/sdkClient.ts).',
    `Machine: ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}.`,
    '',
    '## Bundle size (Vite library build, minified; gzip -9)',
    '',
    '| bundle | minified | gzip |',
    '|---|---|---|',
    ...sizes.map((s) => `| ${s.name} | ${kb(s.minified)} | ${kb(s.gzip)} |`),
    '',
    'The "of which" rows are bundled alone (shared helpers counted in each). Every operation of the generated client is',
    'kept (the low-level client binds them all by name, so none can be shaken out); "everything" adds the webhook',
    'verifiers (standardwebhooks), which a frontend does not import.',
    '',
    '## One authenticated call, client side',
    '',
    `A local server answering a fixed 200 at once; ${BLOCKS} alternating blocks of ${CALLS} sequential calls each; p50 is`,
    'the median of the block medians, p99 over all calls. Both send the same headers; the bare fetch reuses one proof.',
    '',
    '| measure | p50 | p99 |',
    '|---|---|---|',
    `| bare fetch + JSON (floor) | ${ms(calls.bare.p50)} | ${ms(calls.bare.p99)} |`,
    `| onboard.api.getWallet() (new proof, token, outcome) | ${ms(calls.sdk.p50)} | ${ms(calls.sdk.p99)} |`,
    `| overhead (difference) | ${ms(calls.sdk.p50 - calls.bare.p50)} (${(calls.sdk.p50 / calls.bare.p50).toFixed(2)}x) | |`,
    `| of which one ES256 proof with ath (signer.proof alone) | ${ms(calls.sign)} | |`,
    '',
  ].join('\n');
  recordReport(`${date}-sdk-client.md`, report);
}
