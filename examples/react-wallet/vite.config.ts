// The example app's Vite configuration. The client library is taken from its sources in this repository (aliases),
// so the example always runs the library as it is now. The app reads its settings at run time from
// /onboard.config.json: in dev mode this config serves that file from the environment (`. .data/demo-keys.env`
// sets ONBOARD_URL and ONBOARD_PUBLISHABLE_KEY; ONBOARD_MOCK=1 points it at the Prism mock of `npm run mock`;
// ONBOARD_DEV_WALLET=1 offers sign-in with a development Stellar wallet); a built copy gets the file written next to
// index.html by whoever serves it.
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';

const here = fileURLToPath(new URL('.', import.meta.url));
const repo = fileURLToPath(new URL('../..', import.meta.url));
/**
 * The Prism mock (`npm run mock`) checks no signature, so any well-formed publishable key does there. Its answers
 * carry the contract's example CORS headers, which no browser accepts cross-origin, so the page calls its own origin
 * and the dev server forwards /v1 to the mock.
 */
const MOCK_URL = 'http://127.0.0.1:4010';
const MOCK = {
  baseUrl: 'http://localhost:5173',
  publishableKey: `pub_testnet_${'MockOnlyNotARealKey'.padEnd(32, '0')}`,
};

function runtimeConfig(): Plugin {
  return {
    name: 'onboard-runtime-config',
    configureServer(server) {
      server.middlewares.use('/onboard.config.json', (_req, res) => {
        const config =
          process.env.ONBOARD_MOCK === '1'
            ? MOCK
            : {
                baseUrl: process.env.ONBOARD_URL,
                publishableKey: process.env.ONBOARD_PUBLISHABLE_KEY,
                devWallet: process.env.ONBOARD_DEV_WALLET === '1',
              };
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(config));
      });
    },
  };
}

export default defineConfig({
  root: here,
  plugins: [react(), runtimeConfig()],
  resolve: {
    alias: {
      '@onboard/core/dev-wallet': `${repo}sdk/core/src/devWallet.ts`,
      '@onboard/core': `${repo}sdk/core/src/index.ts`,
      '@onboard/react/styles.css': `${repo}sdk/react/styles.css`,
      '@onboard/react': `${repo}sdk/react/src/index.ts`,
    },
  },
  // The dev origin the demo app allows (make run seeds it with http://localhost:5173).
  server: {
    port: 5173,
    strictPort: true,
    fs: { allow: [repo] },
    ...(process.env.ONBOARD_MOCK === '1' ? { proxy: { '/v1': MOCK_URL } } : {}),
  },
  // The dev wallet's chunk carries @stellar/stellar-sdk (loaded only when the dev wallet is offered).
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: true, chunkSizeWarningLimit: 1500 },
});
