// The bundled contract at /openapi.json and an API reference rendered from it at /docs (Redoc's standalone bundle,
// served locally so the page works without a CDN).
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { Router } from 'express';
import { docsContentSecurityPolicy } from './securityHeaders';

const require = createRequire(import.meta.url);

export function docsRouter(document: object): Router {
  const router = Router();
  const json = JSON.stringify(document);
  const redocJs = readFileSync(require.resolve('redoc/bundles/redoc.standalone.js'), 'utf8');
  const page = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Onboard API reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><style>body{margin:0}</style></head>
<body><div id="redoc"></div><script src="/docs/redoc.standalone.js"></script><script src="/docs/init.js"></script>
</body></html>`;
  // In a file of its own, not inline: the page's CSP allows scripts from this origin only.
  const init = `Redoc.init('/openapi.json', { hideDownloadButton: false, expandResponses: '200,201' }, document.getElementById('redoc'));\n`;
  router.get('/openapi.json', (_req, res) => {
    res.type('application/json').send(json);
  });
  router.get('/docs', docsContentSecurityPolicy, (_req, res) => {
    res.type('html').send(page);
  });
  router.get('/docs/init.js', (_req, res) => {
    res.type('application/javascript').send(init);
  });
  router.get('/docs/redoc.standalone.js', (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=86400');
    res.type('application/javascript').send(redocJs);
  });
  return router;
}
