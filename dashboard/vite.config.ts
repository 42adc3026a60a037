// The operators' dashboard: built into dashboard/dist and served by the service at /dashboard (src/http/dashboard.ts).
// `npm run dashboard:dev` serves it with hot reload on http://localhost:5174/dashboard/ and forwards the Dashboard API
// and the dashboard's runtime files (config.json, the dev outbox) to the running service (ONBOARD_URL, default
// http://127.0.0.1:8080, what `make run` listens on). The client library comes from its sources in this repository.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

const here = fileURLToPath(new URL('.', import.meta.url));
const repo = fileURLToPath(new URL('..', import.meta.url));
const service = process.env.ONBOARD_URL ?? 'http://127.0.0.1:8080';

export default defineConfig({
  root: here,
  base: '/dashboard/',
  plugins: [react()],
  resolve: {
    alias: {
      '@onboard/core/dev-wallet': `${repo}sdk/core/src/devWallet.ts`,
      '@onboard/core/operator': `${repo}sdk/core/src/operatorSession.ts`,
      '@onboard/core': `${repo}sdk/core/src/index.ts`,
    },
  },
  server: {
    port: 5174,
    strictPort: true,
    fs: { allow: [repo] },
    proxy: {
      '/api': service,
      '/dashboard/config.json': service,
      '/dashboard/dev': service,
    },
  },
  // The Stellar wallet sign-in's chunk carries @stellar/stellar-sdk (loaded only when an operator picks it).
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: true, chunkSizeWarningLimit: 1500 },
});
