// Requests the service sends to customers' servers (webhook deliveries), guarded against server-side request forgery:
// only https (http only with the development setting), no credentials in the URL, and the address each attempt
// connects to is the one that was checked: the host is resolved once, every address it resolves to must be public
// (addresses.ts), and the connection is pinned to it (http's `lookup` option), so a DNS answer that changes between
// the check and the connection cannot point the request inside the network. IP literals, which need no lookup, are
// checked the same way. Redirects are never followed (node:http does not follow them): a 3xx is the answer.
//
// Written on node:http rather than with a library: request-filtering-agent checks addresses only when connecting
// through http(s).Agent and has no check for a URL being saved, and the same rule must answer both.
import { lookup } from 'node:dns/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { refusedAddress } from './addresses';

export interface EgressPolicy {
  /** Development only: http URLs and loopback or private addresses allowed (a receiver on this machine). */
  allowInsecure: boolean;
}

/** Why the destination is refused, or `{ address, family }` to connect to. */
type Destination = { refused: string } | { address: string; family: 4 | 6 };

/** The URL checked, its host resolved and checked: what to connect to, or why not. */
export async function resolveDestination(url: string, policy: EgressPolicy): Promise<Destination> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { refused: 'is not a URL' };
  }
  if (parsed.protocol !== 'https:' && !(policy.allowInsecure && parsed.protocol === 'http:'))
    return { refused: 'must use https' };
  if (parsed.username || parsed.password) return { refused: 'must not carry a user name or password' };
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) {
    const why = policy.allowInsecure ? undefined : refusedAddress(host);
    return why ? { refused: `points at ${host}, which ${why}` } : { address: host, family: isIP(host) as 4 | 6 };
  }
  let addresses: { address: string; family: number }[];
  try {
    addresses = await lookup(host, { all: true, verbatim: true });
  } catch {
    return { refused: `names a host that does not resolve (${host})` };
  }
  if (addresses.length === 0) return { refused: `names a host that does not resolve (${host})` };
  if (!policy.allowInsecure)
    for (const { address } of addresses) {
      const why = refusedAddress(address);
      if (why) return { refused: `resolves to ${address}, which ${why}` };
    }
  const first = addresses[0]!;
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}

export type EgressAnswer =
  | { kind: 'answered'; status: number; latencyMs: number; excerpt: string; retryAfterSeconds?: number }
  | { kind: 'failed'; error: string; latencyMs: number };

const EXCERPT_BYTES = 500;

function retryAfterSeconds(value: string | string[] | undefined): number | undefined {
  if (typeof value !== 'string') return undefined;
  if (/^\d{1,9}$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

/**
 * POSTs `body` to `url` once, within `timeoutMs` from the first byte sent to the last byte read of the answer's
 * start. Never throws: a refused destination, a connection error or a time-out is a `failed` answer.
 */
export async function postOnce(
  url: string,
  body: string,
  headers: Record<string, string>,
  opts: { timeoutMs: number; policy: EgressPolicy },
): Promise<EgressAnswer> {
  const started = Date.now();
  const destination = await resolveDestination(url, opts.policy);
  if ('refused' in destination)
    return { kind: 'failed', error: `refused: the URL ${destination.refused}`, latencyMs: Date.now() - started };
  const pinned: LookupFunction = (_hostname, options, callback) => {
    if ((options as { all?: boolean }).all)
      (callback as (err: null, addresses: { address: string; family: number }[]) => void)(null, [
        { address: destination.address, family: destination.family },
      ]);
    else callback(null, destination.address, destination.family);
  };
  const send = url.startsWith('https:') ? httpsRequest : httpRequest;
  return new Promise<EgressAnswer>((resolve) => {
    let settled = false;
    const finish = (answer: EgressAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(answer);
    };
    const req = send(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': Buffer.byteLength(body).toString() },
        lookup: pinned,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const done = () => {
          res.destroy();
          const status = res.statusCode ?? 0;
          // node:http takes any three digits; HTTP has no status outside 100-599, so such an answer is no answer.
          if (status < 100 || status > 599) {
            finish({
              kind: 'failed',
              error: `answered an invalid HTTP status (${status})`,
              latencyMs: Date.now() - started,
            });
            return;
          }
          const answer: EgressAnswer = {
            kind: 'answered',
            status,
            latencyMs: Date.now() - started,
            // The receiver's bytes, as text: invalid UTF-8 becomes U+FFFD here; control characters are the caller's.
            excerpt: Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8'),
          };
          const wait = retryAfterSeconds(res.headers['retry-after']);
          finish(wait === undefined ? answer : { ...answer, retryAfterSeconds: wait });
        };
        res.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          size += chunk.length;
          if (size >= EXCERPT_BYTES) done();
        });
        res.on('end', done);
        res.on('error', done);
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      finish({ kind: 'failed', error: `no answer within ${opts.timeoutMs / 1000} s`, latencyMs: Date.now() - started });
    }, opts.timeoutMs);
    req.on('error', (err: NodeJS.ErrnoException) =>
      finish({
        kind: 'failed',
        error: `could not connect: ${err.code ?? err.message}`,
        latencyMs: Date.now() - started,
      }),
    );
    req.end(body);
  });
}
