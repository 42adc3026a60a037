import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import express, { type RequestHandler } from 'express';
import helmet from 'helmet';
import { securityHeaders, staticHeadersOf } from './securityHeaders';

/** The headers an Express app with `middleware` answers GET /v1/x with (Date, Connection and the like left out). */
async function answeredHeaders(middleware: RequestHandler[]): Promise<Record<string, string>> {
  const app = express();
  app.disable('x-powered-by');
  app.use(...middleware);
  app.get('/v1/x', (_req, res) => void res.status(204).end());
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/x`);
    const headers = Object.fromEntries(res.headers);
    for (const name of ['date', 'connection', 'keep-alive']) delete headers[name];
    return headers;
  } finally {
    server.close();
  }
}

describe('security headers taken from helmet once', () => {
  for (const https of [false, true]) {
    test(`the answer carries exactly the headers helmet itself sets (https ${https}), and Cache-Control on the API`, async () => {
      const options = {
        contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"] } },
        strictTransportSecurity: https ? { maxAge: 31_536_000 } : false,
      } as const;
      const live = await answeredHeaders([helmet(options)]);
      const once = staticHeadersOf(helmet(options));
      assert.deepEqual(Object.fromEntries(once.map(([n, v]) => [n.toLowerCase(), v])), live);
      const served = await answeredHeaders(securityHeaders({ https }));
      assert.equal(served['cache-control'], 'no-store');
      assert.equal(served['x-frame-options'], 'DENY');
      assert.equal(
        served['content-security-policy'],
        "default-src 'none';frame-ancestors 'none';base-uri 'none';form-action 'none'",
      );
      assert.equal('strict-transport-security' in served, https);
      assert.ok(Object.keys(served).length >= 12, Object.keys(served).join(', '));
    });
  }

  test('a middleware that does not pass the request on at once is refused', () => {
    assert.throws(() => staticHeadersOf(() => undefined), /did not pass the request on/);
  });
});
