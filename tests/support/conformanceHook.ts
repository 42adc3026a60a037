// The test process's half of the conformance proxy (the runner's half, a router and one Prism validating proxy for the
// whole run, is conformanceProxy.ts). When the runner sets CONFORMANCE_PROXY_URL and this process runs a scenario
// suite, startTestService registers its service's origin here, and every request the process sends to that origin
// through Node's fetch (the generated client, sdk/core, the helpers in tests/support) goes to Prism instead, with the
// real origin in a header: Prism forwards it to the router, the router to the service with the original Host (so
// DPoP proofs, whose `htu` names the origin the test addressed, still match), and Prism validates the answer against
// the contract on its way back. The answer reaches the test unchanged but for the harness's own headers, which are
// taken off here; Prism's violations (`sl-violations`) are recorded with the test file and the operation.
//
// How: Node's fetch dispatches through the global undici dispatcher (the `undici.globalDispatcher.1` symbol of
// globalThis, read on every fetch); it is wrapped, so no test file changes, and requests to other origins pass as
// before. A request Prism would not forward as sent goes direct instead, and is recorded with the reason: Prism
// parses a JSON body and sends its re-serialization (so only a body that re-serializes to the same bytes goes through:
// not broken JSON, not `{"a": 1}` with a space, not a body of `null`, which it drops), decodes any other body as UTF-8,
// refuses a GET with a body, and answers HEAD and OPTIONS differently. The decision is taken before anything is sent,
// and a request is never sent twice: once forwarded, whatever comes back is the answer (a payment is never replayed).
// The router checks that what reached it is what was sent here (requestDigest), so a wrong prediction is a failure
// of the run, not a silent difference. A query Prism re-encodes (`+` for a space) is forwarded: the service reads the
// same values. When the router cannot reach the service, the fetch fails with the connection's error, as it would
// direct. Requests sent with node:http rather than fetch (a few raw-socket tests) are not seen, and stay direct.
import { appendFileSync } from 'node:fs';
import { isUtf8 } from 'node:buffer';
import { join, posix } from 'node:path';
import { createRouteTable } from '../../src/http/routeTable';
import {
  HEADERS,
  PROXY_URL_ENV,
  RECORDS_DIR_ENV,
  currentTestFile,
  isScenarioSuite,
  queryMeaning,
  requestDigest,
  type PrismViolation,
  type ProxyRecord,
} from './conformance';

export interface HookConfig {
  /** Prism's URL. */
  proxyUrl: string;
  /** Where this process appends its records. */
  recordsDir: string;
  /** The test file the records name. */
  file: string;
}

/** The hook's configuration from the runner's environment, when this process runs a scenario suite. */
function configFromEnv(): HookConfig | undefined {
  const proxyUrl = process.env[PROXY_URL_ENV];
  const recordsDir = process.env[RECORDS_DIR_ENV];
  const file = currentTestFile();
  if (!proxyUrl || !recordsDir || !isScenarioSuite(file)) return undefined;
  return { proxyUrl, recordsDir, file };
}

// The part of undici's Dispatcher interface that Node's fetch uses (undici itself is not a dependency of the project).
interface DispatchOptions {
  origin?: string | URL;
  path: string;
  method: string;
  headers?: unknown;
  body?: unknown;
  [option: string]: unknown;
}
type DispatchHandler = Record<string | symbol, unknown> & {
  onHeaders?: (status: number, rawHeaders: (Buffer | string)[], resume: () => void, statusText: string) => boolean;
  onError?: (err: Error) => void;
};
interface Dispatcher {
  dispatch(opts: DispatchOptions, handler: DispatchHandler): boolean;
}

const GLOBAL_DISPATCHER = Symbol.for('undici.globalDispatcher.1');
const globals = globalThis as unknown as Record<symbol, Dispatcher | undefined>;

/** Origins routed through a proxy, and that proxy's configuration. */
const routed = new Map<string, HookConfig>();
const route = createRouteTable();
let original: Dispatcher | undefined;

/**
 * Routes this process's fetches to `serviceUrl` through the conformance proxy (by default only when the runner asked
 * for it and this file is a scenario suite); returns the function that stops it (startTestService's stop()).
 */
export function routeThroughConformanceProxy(
  serviceUrl: string,
  config: HookConfig | undefined = configFromEnv(),
): () => void {
  if (!config || !serviceUrl) return () => undefined;
  install();
  const origin = new URL(serviceUrl).origin;
  routed.set(origin, config);
  return () => {
    if (routed.get(origin) === config) routed.delete(origin);
  };
}

function install(): void {
  if (original) return;
  // Node creates its global Agent at start-up; reading fetch makes sure its undici is loaded.
  void globalThis.fetch;
  const current = globals[GLOBAL_DISPATCHER];
  if (!current) throw new Error('conformance proxy: no global undici dispatcher to wrap');
  original = current;
  const wrapper: Dispatcher = {
    dispatch(opts, handler) {
      const origin = originOf(opts.origin);
      const config = origin ? routed.get(origin) : undefined;
      if (!config) return current.dispatch(opts, handler);
      sendVia(current, config, origin!, opts, handler).catch((err: unknown) =>
        handler.onError?.(err instanceof Error ? err : new Error(String(err))),
      );
      return true;
    },
  };
  // Everything else an Agent offers (close, destroy, events) stays the Agent's.
  Object.setPrototypeOf(wrapper, current);
  globals[GLOBAL_DISPATCHER] = wrapper;
}

function originOf(origin: string | URL | undefined): string | undefined {
  if (!origin) return undefined;
  try {
    return new URL(String(origin)).origin;
  } catch {
    return undefined;
  }
}

/** A request body as the bytes it will be sent as (fetch hands its body over as an async iterable). */
async function bytesOf(body: unknown): Promise<Buffer | undefined> {
  if (body === null || body === undefined) return undefined;
  if (typeof body === 'string') return Buffer.from(body);
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (typeof body === 'object' && (Symbol.asyncIterator in body || Symbol.iterator in body)) {
    const chunks: Buffer[] = [];
    for await (const chunk of body as AsyncIterable<Uint8Array | string>)
      chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk));
    return Buffer.concat(chunks);
  }
  throw new Error(`conformance proxy: a request body of an unknown kind (${typeof body})`);
}

function headerObject(headers: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  const add = (name: unknown, value: unknown) => {
    if (value === undefined || value === null) return;
    const key = String(name).toLowerCase();
    const text = Array.isArray(value) ? value.map((v) => `${v as string}`).join(', ') : `${value as string}`;
    out[key] = key in out ? `${out[key]}, ${text}` : text;
  };
  if (Array.isArray(headers)) {
    if (headers.length && Array.isArray(headers[0])) for (const [n, v] of headers as unknown[][]) add(n, v);
    else for (let i = 0; i < headers.length; i += 2) add(headers[i], headers[i + 1]);
  } else if (headers && typeof headers === 'object') {
    for (const [n, v] of Object.entries(headers)) add(n, v);
  }
  return out;
}

/** The path and query Prism sends upstream for `target` (its server's parsing, then its forwarder's URL building). */
function prismForwardedTarget(target: string): string {
  const { pathname, searchParams } = new URL(target, 'http://example.com');
  const grouped = new Map<string, string[]>();
  for (const [key, value] of searchParams) grouped.set(key, [...(grouped.get(key) ?? []), value]);
  const query = new URLSearchParams();
  for (const [key, values] of grouped) for (const value of values) query.append(key, value);
  const url = new URL('http://upstream');
  url.pathname = posix.join(url.pathname, pathname);
  url.search = query.toString();
  return url.pathname + url.search;
}

const isJsonType = (mediaType: string) =>
  mediaType === 'application/json' || /^application\/[^/]+\+json$/.test(mediaType);

/** Why Prism would not forward this request as sent, or undefined when it would. */
export function unforwardable(
  method: string,
  target: string,
  headers: Record<string, string>,
  body: Buffer | undefined,
): string | undefined {
  if (method === 'HEAD' || method === 'OPTIONS') return `a ${method} request (Prism answers it differently)`;
  const hasBody = body !== undefined && body.length > 0;
  if (hasBody && method === 'GET') return 'a GET with a body (Prism refuses to forward it)';
  const q = target.indexOf('?');
  const [path, search] = q < 0 ? [target, ''] : [target.slice(0, q), target.slice(q + 1)];
  if (new URLSearchParams(search).has('__server')) return 'a __server query parameter (Prism reads it)';
  const forwarded = prismForwardedTarget(target);
  const f = forwarded.indexOf('?');
  const [forwardedPath, forwardedSearch] = f < 0 ? [forwarded, ''] : [forwarded.slice(0, f), forwarded.slice(f + 1)];
  if (forwardedPath !== path) return 'a path Prism would rewrite';
  if (queryMeaning(forwardedSearch) !== queryMeaning(search)) return 'a query Prism would rewrite';
  if (!hasBody) return undefined;
  const [mediaType = '', ...params] = (headers['content-type'] ?? '').split(';').map((s) => s.trim());
  const charset = params.find((p) => /^charset=/i.test(p))?.slice('charset='.length);
  if (charset && !/^"?utf-8"?$/i.test(charset)) return `a body in charset ${charset} (Prism decodes it)`;
  if (!isUtf8(body)) return 'a body that is not UTF-8 (Prism decodes it as text)';
  if (!isJsonType(mediaType.toLowerCase())) return undefined;
  const text = body.toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return 'a JSON body that does not parse (Prism answers 400 itself)';
  }
  if (!parsed) return 'a JSON body of null, false, 0 or "" (Prism drops it)';
  if (typeof parsed === 'string') return 'a JSON string body (Prism forwards it unquoted)';
  if (JSON.stringify(parsed) !== text) return 'a JSON body Prism would re-serialize to other bytes';
  return undefined;
}

function record(config: HookConfig, entry: ProxyRecord): void {
  appendFileSync(join(config.recordsDir, `${process.pid}.jsonl`), `${JSON.stringify(entry)}\n`);
}

function parseViolations(header: string): PrismViolation[] {
  try {
    const parsed = JSON.parse(header) as PrismViolation[];
    if (Array.isArray(parsed)) return parsed;
  } catch {
    // Prism cuts a header past 8 KB ("Too many violations! ..."): kept whole as one violation.
  }
  return [{ location: [], severity: 'Error', message: header }];
}

/** The error the service's connection gave the router (`code|message`), as Node's own connection errors read. */
function unreachedError(value: string): Error {
  const [code, ...message] = value.split('|');
  return Object.assign(new Error(message.join('|') || code), { code, syscall: 'connect' });
}

async function sendVia(
  dispatcher: Dispatcher,
  config: HookConfig,
  origin: string,
  opts: DispatchOptions,
  handler: DispatchHandler,
): Promise<void> {
  const method = opts.method.toUpperCase();
  const body = await bytesOf(opts.body);
  const headers = headerObject(opts.headers);
  const pathname = opts.path.split('?')[0]!;
  const match = route(method, pathname);
  const operationId = match.kind === 'operation' ? match.operationId : undefined;
  const reason = operationId ? unforwardable(method, opts.path, headers, body) : 'a path outside the contract';
  if (reason) {
    record(config, {
      kind: 'direct',
      file: config.file,
      ...(operationId ? { operationId } : {}),
      method,
      path: pathname,
      reason,
    });
    dispatcher.dispatch({ ...opts, headers, body: body ?? null }, handler);
    return;
  }

  let unreached: Error | undefined;
  const onHeaders = (status: number, rawHeaders: (Buffer | string)[], resume: () => void, statusText: string) => {
    const kept: (Buffer | string)[] = [];
    let violations: PrismViolation[] = [];
    let answered: string | undefined;
    let unreachedValue: string | undefined;
    for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
      const name = String(rawHeaders[i]).toLowerCase();
      const value = Buffer.isBuffer(rawHeaders[i + 1])
        ? (rawHeaders[i + 1] as Buffer).toString('utf8')
        : String(rawHeaders[i + 1]);
      if (name === HEADERS.violations) violations = parseViolations(value);
      else if (name === HEADERS.answered) answered = value;
      else if (name === HEADERS.unreached) unreachedValue = value;
      else kept.push(rawHeaders[i]!, rawHeaders[i + 1]!);
    }
    record(config, {
      kind: 'proxied',
      file: config.file,
      operationId: operationId!,
      method,
      path: pathname,
      status,
      // The router's own 502 for an unreachable service is no answer of the service: Prism's view of it is not kept.
      violations: unreachedValue ? [] : violations,
      ...(answered === undefined && !unreachedValue ? { prismAnswered: true as const } : {}),
      ...(unreachedValue ? { unreached: unreachedValue.split('|')[0]! } : {}),
    });
    if (unreachedValue) {
      unreached = unreachedError(unreachedValue);
      return true;
    }
    return handler.onHeaders!(status, kept, resume, statusText);
  };
  const wrapped = new Proxy(handler, {
    get(target, prop) {
      if (prop === 'onHeaders') return onHeaders;
      // A service the router could not reach: the router's stand-in answer is dropped and the error given instead.
      if (prop === 'onData' && unreached) return () => true;
      if (prop === 'onComplete' && unreached) return () => target.onError?.(unreached!);
      const value: unknown = Reflect.get(target, prop);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  dispatcher.dispatch(
    {
      ...opts,
      origin: config.proxyUrl,
      headers: {
        ...headers,
        [HEADERS.upstream]: origin,
        [HEADERS.digest]: requestDigest(method, opts.path, headers, body),
        [HEADERS.file]: config.file,
      },
      body: body ?? null,
    },
    wrapped,
  );
}
