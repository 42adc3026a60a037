import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createOnboardClient, OnboardConfigError } from '../src/index';

const KEY = `sec_testnet_${'TestOnlyNotARealKey0'.padEnd(32, '0')}`;
const PUB_MAINNET = `pub_mainnet_${'TestOnlyNotARealKey0'.padEnd(32, '0')}`;
const G = 'GCQ53WWRBL6HVSDNRMZKFZD7SP5DKYC6JFWSRLPQCVGD6Y42TYIN73Q2';

describe('@onboard/core client', () => {
  let server: Server;
  let baseUrl: string;
  const seen: { method?: string; url?: string; key?: string; body?: string }[] = [];
  before(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        seen.push({ method: req.method, url: req.url, key: req.headers['x-service-api-key'] as string, body });
        res.setHeader('content-type', 'application/json');
        if (req.url === '/v1/wallets/fund' && JSON.parse(body).publicKey === G) {
          res.end(
            JSON.stringify({
              content: { publicKey: G, startingBalance: '0' },
              code: 'SERVER_WALLET_FUNDED',
              success: true,
            }),
          );
        } else if (req.url === '/v1/wallets/fund') {
          res.statusCode = 409;
          res.end(JSON.stringify({ code: 'WALLET_ALREADY_FUNDED', success: false, message: 'already funded' }));
        } else if (req.url === '/health') {
          res.statusCode = 502;
          res.setHeader('content-type', 'text/html');
          res.end('<html>bad gateway</html>');
        } else {
          res.statusCode = 400;
          res.end(
            JSON.stringify({
              code: 'VALIDATION_ERROR',
              success: false,
              details: { fieldErrors: { limit: ['must be >= 1'] } },
            }),
          );
        }
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  test('a success envelope becomes { ok: true, code, content } and the key is sent', async () => {
    const client = createOnboardClient({ baseUrl, apiKey: KEY });
    const out = await client.fundWallet({ body: { publicKey: G } });
    assert.deepEqual(out, {
      ok: true,
      status: 200,
      code: 'SERVER_WALLET_FUNDED',
      content: { publicKey: G, startingBalance: '0' },
    });
    assert.equal(seen.at(-1)?.key, KEY);
    assert.equal(client.network, 'testnet');
  });

  test('an error envelope becomes { ok: false, code, status } without throwing', async () => {
    const client = createOnboardClient({ baseUrl, apiKey: KEY });
    const out = await client.fundWallet({
      body: { publicKey: 'GA2UVK3AHD3LAKYQSELNKDEZRA2EK3MXABMAF7KDRZCGLUZ2GCMPW27N' },
    });
    assert.equal(out.ok, false);
    assert.equal(out.status, 409);
    assert.equal(out.ok === false && out.code, 'WALLET_ALREADY_FUNDED');
    const invalid = await client.getTxHistory({ query: { limit: 1 } });
    assert.deepEqual(invalid.ok === false && invalid.details, { fieldErrors: { limit: ['must be >= 1'] } });
  });

  test('a non-envelope answer is INVALID_RESPONSE; an unreachable server is NETWORK_ERROR', async () => {
    const client = createOnboardClient({ baseUrl, apiKey: KEY });
    const html = await client.getHealth();
    assert.equal(html.ok === false && html.code, 'INVALID_RESPONSE');
    const down = createOnboardClient({ baseUrl: 'http://127.0.0.1:9', apiKey: KEY });
    const out = await down.getHealth();
    assert.equal(out.ok === false && out.code, 'NETWORK_ERROR');
    assert.equal(out.status, 0);
  });

  test('the key prefix fixes the network; a contradicting option or a bad key throws at creation', () => {
    assert.equal(createOnboardClient({ baseUrl, apiKey: PUB_MAINNET }).network, 'mainnet');
    assert.throws(() => createOnboardClient({ baseUrl, apiKey: PUB_MAINNET, network: 'testnet' }), OnboardConfigError);
    assert.throws(() => createOnboardClient({ baseUrl, apiKey: 'sk_live_123' }), OnboardConfigError);
    assert.throws(() => createOnboardClient({ baseUrl: 'not a url' }), OnboardConfigError);
  });
});
