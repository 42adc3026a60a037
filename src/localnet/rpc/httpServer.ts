// localnet's HTTP face, laid out like the Stellar quickstart image: JSON-RPC at POST /rpc (and POST /), friendbot
// at GET|POST /friendbot?addr=G..., a small JSON description at GET /. CORS is open, as on stellar-rpc, so
// browser apps can call it directly. One localnet-only route: POST /localnet/close-ledger closes a ledger now
// (the way to move a standalone localnet started with --ledger-seconds manual).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Dispatcher } from './jsonRpc';
import type { FriendbotAnswer } from '../friendbot/friendbot';

/** stellar-rpc's request body cap (512 KiB). */
export const MAX_BODY_BYTES = 512 * 1024;

export interface HttpRoutes {
  rpc: Dispatcher;
  /** Undefined when friendbot is off. */
  friendbot?: (addr: string | undefined) => Promise<FriendbotAnswer>;
  /** POST /localnet/close-ledger. */
  closeLedger: () => Record<string, unknown>;
  /** Body of GET /. */
  describe: (host: string | undefined) => Record<string, unknown>;
  log: (msg: string) => void;
}

const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-headers': '*',
  'access-control-allow-methods': 'GET, PUT, POST, PATCH, DELETE, HEAD, OPTIONS',
};

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  contentType = 'application/json; charset=utf-8',
): void {
  const text = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, { ...CORS_HEADERS, 'content-type': contentType, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

class BodyTooLarge extends Error {}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        reject(new BodyTooLarge());
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** friendbot reads `addr` from the query string or from a form-encoded POST body, like r.ParseForm in Go. */
async function friendbotAddress(req: IncomingMessage, url: URL): Promise<string | undefined> {
  const fromQuery = url.searchParams.get('addr');
  if (fromQuery !== null) return fromQuery;
  if (req.method === 'POST' && (req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
    return new URLSearchParams(await readBody(req)).get('addr') ?? undefined;
  }
  return undefined;
}

export function createLocalnetServer(routes: HttpRoutes): Server {
  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (err instanceof BodyTooLarge) return send(res, 413, { error: `request body exceeds ${MAX_BODY_BYTES} bytes` });
      routes.log(`localnet http: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      if (!res.headersSent) send(res, 500, { error: 'internal error' });
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localnet');
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const host = req.headers.host;
    if (req.method === 'OPTIONS') {
      res.writeHead(204, CORS_HEADERS);
      res.end();
      return;
    }
    if (path === '/friendbot') {
      if (!routes.friendbot) return send(res, 404, { error: 'friendbot is disabled on this localnet' });
      if (req.method !== 'GET' && req.method !== 'POST') return send(res, 405, { error: 'use GET or POST' });
      const answer = await routes.friendbot(await friendbotAddress(req, url));
      return send(res, answer.status, answer.body, answer.contentType);
    }
    if (path === '/localnet/close-ledger') {
      if (req.method !== 'POST') return send(res, 405, { error: 'use POST' });
      return send(res, 200, routes.closeLedger());
    }
    if (path === '/' || path === '/rpc') {
      if (req.method === 'GET' || req.method === 'HEAD') return send(res, 200, routes.describe(host));
      if (req.method !== 'POST') return send(res, 405, { error: 'JSON-RPC 2.0 takes POST' });
      const answer = await routes.rpc.handleBody(await readBody(req), { host });
      if (answer === undefined) {
        res.writeHead(204, CORS_HEADERS);
        res.end();
        return;
      }
      return send(res, 200, answer);
    }
    return send(res, 404, { error: `no route for ${req.method} ${url.pathname}` });
  }

  return server;
}
