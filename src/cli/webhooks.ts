// `npm run webhooks -- listen`: a local receiver for an app's developers. It prints every delivery (event, id, when,
// the data) and checks its signatures with the client library's verifier (@onboard/core verifyWebhook, the
// recommended Standard Webhooks check, and the X-Service-Signature HMAC), then answers the status asked (200 by
// default; another to see the retries). Point the app's webhook URL at it on a service started with
// WEBHOOK_ALLOW_INSECURE=on (development only), e.g. http://127.0.0.1:4000/hooks.
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { verifyServiceSignature, verifyWebhook } from '../../sdk/core/src/index';

const USAGE = `usage: npm run webhooks -- listen [--port 4000] [--host 127.0.0.1] [--secret whsec_...]... [--status 200]

  --secret   the app's signing secret (shown once by updateWebhookConfig or rotateWebhookSecret); repeat it during a
             rotation; also read from ONBOARD_WEBHOOK_SECRET. Without one, deliveries are printed unchecked.
  --status   the HTTP status to answer (e.g. 500 to watch the retries, 410 to see the endpoint disabled)`;

export interface ListenOptions {
  port: number;
  host: string;
  secrets: string[];
  status: number;
  print: (line: string) => void;
}

/** Starts the listener; answers its URL and a close function. */
export async function listen(opts: ListenOptions): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const headers = Object.fromEntries(
          Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v]),
        );
        const when = new Date().toISOString();
        let check = 'signature not checked (no --secret)';
        if (opts.secrets.length > 0) {
          const verified = verifyWebhook(raw, headers, opts.secrets);
          const legacy = await Promise.all(
            opts.secrets.map((s) => verifyServiceSignature(raw, headers['x-service-signature'], s)),
          );
          check = verified.ok
            ? `webhook-signature ok, X-Service-Signature ${legacy.some(Boolean) ? 'ok' : 'INVALID'}`
            : `REFUSE: ${verified.reason} (${verified.message})`;
        }
        let summary = raw.slice(0, 2000);
        try {
          const body = JSON.parse(raw) as { id?: string; event?: string; data?: unknown };
          summary = `${body.event} ${body.id}\n  ${JSON.stringify(body.data)}`;
        } catch {
          summary = `(not JSON) ${summary}`;
        }
        opts.print(`${when} ${req.method} ${req.url} -> ${opts.status}\n  ${summary}\n  ${check}`);
        res.writeHead(opts.status, { 'content-type': 'text/plain' });
        res.end(opts.status < 300 ? 'ok' : 'not now');
      })();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, resolve);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : opts.port;
  return {
    url: `http://${opts.host}:${port}/hooks`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function main(): Promise<number> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      port: { type: 'string', default: '4000' },
      host: { type: 'string', default: '127.0.0.1' },
      secret: { type: 'string', multiple: true },
      status: { type: 'string', default: '200' },
      help: { type: 'boolean' },
    },
  });
  if (values.help || positionals[0] !== 'listen') {
    console.log(USAGE);
    return values.help ? 0 : 2;
  }
  const port = Number(values.port);
  const status = Number(values.status);
  if (
    !Number.isInteger(port) ||
    port < 0 ||
    port > 65535 ||
    !Number.isInteger(status) ||
    status < 200 ||
    status > 599
  ) {
    console.error(`webhooks: --port must be 0-65535 and --status 200-599\n${USAGE}`);
    return 2;
  }
  const secrets = [
    ...(values.secret ?? []),
    ...(process.env.ONBOARD_WEBHOOK_SECRET ? [process.env.ONBOARD_WEBHOOK_SECRET] : []),
  ];
  const { url } = await listen({ port, host: values.host, secrets, status, print: (line) => console.log(line) });
  console.log(`listening on ${url} (any path); answering ${status}; stop with Ctrl-C`);
  return new Promise<number>(() => {});
}

if (process.argv[1]?.endsWith('webhooks.ts')) {
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(`webhooks: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    },
  );
}
