// The example app (examples/react-wallet) for browser tests: built once with Vite into a temporary folder and served
// on a free local port with its settings (/onboard.config.json) and an SPA fallback, as a static host would.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express, { type RequestHandler } from 'express';
import { build } from 'vite';
import { projectRoot } from '../../src/paths';

export interface ServedExample {
  url: string;
  origin: string;
  stop(): Promise<void>;
}

/**
 * `baseUrl` is the service; `mockUrl` instead serves the API from the page's own origin, forwarded to a mock there
 * (as `ONBOARD_MOCK=1 npm run example` does through Vite's proxy): the Prism mock answers the contract's example
 * headers, whose Access-Control-Allow-Origin no browser would accept cross-origin.
 */
export async function serveExample(
  settings: { publishableKey: string; devWallet?: boolean; providers?: ('google' | 'github')[] } & (
    { baseUrl: string } | { mockUrl: string }
  ),
): Promise<ServedExample> {
  const outDir = mkdtempSync(join(tmpdir(), 'onboard-example-'));
  // Vite's build sets NODE_ENV=production for the whole process; the service and tools of the test must not see it.
  const nodeEnv = process.env.NODE_ENV;
  try {
    await build({
      configFile: join(projectRoot, 'examples', 'react-wallet', 'vite.config.ts'),
      logLevel: 'warn',
      build: { outDir, emptyOutDir: true, sourcemap: false },
    });
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
  }
  const app = express();
  if ('mockUrl' in settings) app.use(forwardTo(settings.mockUrl));
  app.use(express.static(outDir));
  app.use((_req, res) => res.sendFile(join(outDir, 'index.html')));
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { publishableKey, devWallet, providers } = settings;
  const baseUrl = 'baseUrl' in settings ? settings.baseUrl : origin;
  writeFileSync(join(outDir, 'onboard.config.json'), JSON.stringify({ baseUrl, publishableKey, devWallet, providers }));
  return {
    url: `${origin}/`,
    origin,
    stop: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(outDir, { recursive: true, force: true });
    },
  };
}

/** Forwards API requests (/v1/...) to `target` with their method, headers and body; answers what it answers. */
function forwardTo(target: string): RequestHandler {
  return (req, res, next) => {
    if (!req.path.startsWith('/v1/')) return next();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter((e): e is [string, string] => typeof e[1] === 'string' && e[0] !== 'host'),
      );
      const body = chunks.length ? Buffer.concat(chunks) : undefined;
      fetch(target + req.originalUrl, { method: req.method, headers, ...(body ? { body } : {}) })
        .then(async (answer) => {
          res.status(answer.status);
          for (const name of ['content-type', 'dpop-nonce', 'www-authenticate']) {
            const value = answer.headers.get(name);
            if (value) res.setHeader(name, value);
          }
          res.end(Buffer.from(await answer.arrayBuffer()));
        })
        .catch(next);
    });
  };
}
