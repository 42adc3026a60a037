import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { capturingLogger } from '../../tests/support/log';
import type { RequestLocals } from './operationRouter';
import { requestLogger } from './requestLog';

const CREDENTIALS = {
  'x-service-api-key': 'sec_testnet_keyvalue0123456789',
  authorization: 'DPoP tokenvalue0123456789',
  dpop: 'proofvalue0123456789',
  cookie: 'session=cookievalue0123456789',
};

type Line = Record<string, any>;

/** A small app behind the request logger: its handlers log through req.log and res.locals.log. */
async function serve(level: string) {
  const { log, lines } = capturingLogger(level);
  const app = express();
  app.use(requestLogger(log));
  app.get('/ok', (req, res) => {
    req.log.info({ step: 1 }, 'from req.log');
    (res.locals as RequestLocals).log.warn({ step: 2 }, 'from res.locals.log');
    res.json({ requestId: (res.locals as RequestLocals).requestId });
  });
  app.get('/fault', (_req, res) => {
    res.status(500).json({});
  });
  app.get('/unbuilt', (_req, res) => {
    res.status(501).json({});
  });
  app.post('/never', () => undefined); // never answers: the client gives up
  const server: Server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const port = (server.address() as AddressInfo).port;
  const parsed = () => lines.map((l) => JSON.parse(l) as Line);
  return { port, lines, parsed, close: () => new Promise((r) => server.close(r)) };
}

function get(port: number, path: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; requestId: string; body: string }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, requestId: String(res.headers['x-request-id']), body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The completion line is written on the response's finish, which may come after the client has read it. */
const settle = () => new Promise((r) => setTimeout(r, 20));

describe('at info', () => {
  let s: Awaited<ReturnType<typeof serve>>;
  before(async () => (s = await serve('info')));
  after(() => s.close());

  test('one completion line per request, with its id, the request, the response and the time; handlers log with the id', async () => {
    const res = await get(s.port, '/ok?x=1', CREDENTIALS);
    await settle();
    assert.match(res.requestId, /^req_[0-9a-f]{32}$/);
    assert.equal(JSON.parse(res.body).requestId, res.requestId, 'res.locals.requestId is the id sent back');
    const mine = s.parsed().filter((l) => l.reqId === res.requestId);
    assert.deepEqual(
      mine.map((l) => l.msg),
      ['from req.log', 'from res.locals.log', 'request completed'],
    );
    const [fromReq, fromLocals, completed] = mine as [Line, Line, Line];
    assert.equal(fromReq.step, 1);
    assert.equal(fromLocals.step, 2);
    assert.equal(completed.level, 30);
    assert.equal(completed.req.id, res.requestId);
    assert.equal(completed.req.method, 'GET');
    assert.equal(completed.req.url, '/ok?x=1');
    assert.equal(completed.req.remoteAddress, '127.0.0.1');
    assert.equal(completed.res.statusCode, 200);
    assert.equal(completed.res.headers['x-request-id'], res.requestId);
    assert.equal(typeof completed.responseTime, 'number');
  });

  test('credentials are redacted: API key, Authorization, DPoP and cookies never reach the log', async () => {
    const res = await get(s.port, '/ok', CREDENTIALS);
    await settle();
    const completed = s.parsed().find((l) => l.reqId === res.requestId && l.msg === 'request completed')!;
    for (const name of Object.keys(CREDENTIALS)) assert.equal(completed.req.headers[name], '[redacted]', name);
    const text = s.lines.join('');
    for (const value of Object.values(CREDENTIALS)) assert.ok(!text.includes(value.split(/[ =]/).pop()!), value);
  });

  test('a safe incoming X-Request-Id is kept and logged; an unsafe one is replaced', async () => {
    const kept = await get(s.port, '/ok', { 'x-request-id': 'client-abc.1' });
    const replaced = await get(s.port, '/ok', { 'x-request-id': 'bad id\u00e9' });
    await settle();
    assert.equal(kept.requestId, 'client-abc.1');
    assert.ok(s.parsed().some((l) => l.msg === 'request completed' && l.req.id === 'client-abc.1'));
    assert.match(replaced.requestId, /^req_[0-9a-f]{32}$/);
  });

  test('a fault is logged at error; a 501 (an operation not built yet) at info', async () => {
    const fault = await get(s.port, '/fault');
    const unbuilt = await get(s.port, '/unbuilt');
    await settle();
    const line = (id: string) => s.parsed().find((l) => l.reqId === id && l.res)!;
    assert.equal(line(fault.requestId).level, 50);
    assert.equal(line(fault.requestId).req.url, '/fault');
    assert.equal(line(unbuilt.requestId).level, 30);
  });

  test("an aborted request's line names the client's address", async () => {
    const req = request({ host: '127.0.0.1', port: s.port, method: 'POST', path: '/never' });
    req.on('error', () => undefined);
    req.end();
    await new Promise((r) => setTimeout(r, 50));
    req.destroy();
    for (let i = 0; i < 100 && !s.lines.some((l) => l.includes('request aborted')); i++) await settle();
    const line = s.parsed().find((l) => l.msg === 'request aborted' && l.req.url === '/never')!;
    assert.ok(line, 'the aborted request is logged');
    assert.equal(line.req.remoteAddress, '127.0.0.1');
  });
});

describe('at warn', () => {
  test('only faults are written; nothing else of a request is', async () => {
    const s = await serve('warn');
    try {
      const ok = await get(s.port, '/ok', CREDENTIALS);
      const fault = await get(s.port, '/fault', CREDENTIALS);
      await settle();
      const lines = s.parsed();
      assert.deepEqual(
        lines.filter((l) => l.reqId === ok.requestId).map((l) => l.msg),
        ['from res.locals.log'],
      );
      const faultLine = lines.find((l) => l.reqId === fault.requestId)!;
      assert.equal(faultLine.msg, 'request errored');
      assert.equal(faultLine.req.headers.authorization, '[redacted]');
    } finally {
      await s.close();
    }
  });
});

describe('silent', () => {
  test('nothing is written, and every request still gets its id', async () => {
    const s = await serve('silent');
    try {
      const res = await get(s.port, '/ok');
      await settle();
      assert.equal(res.status, 200);
      assert.match(res.requestId, /^req_/);
      assert.deepEqual(s.lines, []);
    } finally {
      await s.close();
    }
  });
});
