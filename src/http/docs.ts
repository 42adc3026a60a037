// The bundled contract at /openapi.json and an API reference rendered from it at /docs (Redoc's standalone bundle,
// served locally so the page works without a CDN). Each router is mounted on its own path (app.ts), so the paths
// here are relative to it and an API request never enters them.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { Router } from 'express';
import { docsContentSecurityPolicy } from './securityHeaders';

const require = createRequire(import.meta.url);

/** Mounted at /openapi.json: the bundled contract. */
export function contractRouter(document: object): Router {
  const router = Router();
  const json = JSON.stringify(document);
  router.get('/', (_req, res) => {
    res.type('application/json').send(json);
  });
  return router;
}

/** Mounted at /docs: the API reference page and its scripts. */
export function docsRouter(): Router {
  const router = Router();
  const redocJs = readFileSync(require.resolve('redoc/bundles/redoc.standalone.js'), 'utf8');
  const page = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Onboard API reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><style>body{margin:0}</style></head>
<body><div id="redoc"></div><script src="/docs/redoc.standalone.js"></script><script src="/docs/init.js"></script>
</body></html>`;
  // In a file of its own, not inline: the page's CSP allows scripts from this origin only.
  const init = `Redoc.init('/openapi.json', { hideDownloadButton: false, expandResponses: '200,201' }, document.getElementById('redoc'));\n`;
  router.get('/', docsContentSecurityPolicy, (_req, res) => {
    res.type('html').send(page);
  });
  router.get('/init.js', (_req, res) => {
    res.type('application/javascript').send(init);
  });
  router.get('/redoc.standalone.js', (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=86400');
    res.type('application/javascript').send(redocJs);
  });
  return router;
}
