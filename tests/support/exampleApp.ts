// The example app (examples/react-wallet) for browser tests: built once with Vite into a temporary folder and served
// on a free local port with its settings (/onboard.config.json) and an SPA fallback, as a static host would.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { build } from 'vite';
import { projectRoot } from '../../src/paths';

export interface ServedExample {
  url: string;
  origin: string;
  stop(): Promise<void>;
}

export async function serveExample(settings: {
  baseUrl: string;
  publishableKey: string;
  devWallet?: boolean;
}): Promise<ServedExample> {
  const outDir = mkdtempSync(join(tmpdir(), 'onboard-example-'));
  await build({
    configFile: join(projectRoot, 'examples', 'react-wallet', 'vite.config.ts'),
    logLevel: 'warn',
    build: { outDir, emptyOutDir: true, sourcemap: false },
  });
  writeFileSync(join(outDir, 'onboard.config.json'), JSON.stringify(settings));
  const app = express();
  app.use(express.static(outDir));
  app.use((_req, res) => res.sendFile(join(outDir, 'index.html')));
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}/`,
    origin,
    stop: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(outDir, { recursive: true, force: true });
    },
  };
}
