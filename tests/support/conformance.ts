// What the test runner's conformance proxy (conformanceProxy.ts: a router and one Prism validating proxy for the whole
// run) and the hook in each test process (conformanceHook.ts) share: the environment that switches the hook on, the
// headers that pass between them, which suites go through the proxy, the request digest both sides compute, and the
// records the test processes write.
import { createHash } from 'node:crypto';
import { relative } from 'node:path';
import { parse as parseQuery } from 'node:querystring';
import { sourceOfBuiltTest } from '../../scripts/testBuildPaths';
import { projectRoot } from '../../src/paths';

/** Prism's URL: set by the test runner for the run that goes through the proxy. */
export const PROXY_URL_ENV = 'CONFORMANCE_PROXY_URL';
/** The directory where each test process appends its records (`<pid>.jsonl`). */
export const RECORDS_DIR_ENV = 'CONFORMANCE_PROXY_RECORDS';

export const HEADERS = {
  /** Request, hook -> router (through Prism): the service origin the request was addressed to. */
  upstream: 'x-conformance-upstream',
  /** Request: what the hook sent (target.headers.body digests), checked by the router against what reached it. */
  digest: 'x-conformance-digest',
  /** Request: the test file, for the router's findings. */
  file: 'x-conformance-file',
  /** Response, router -> hook: the service's status; absent when Prism answered itself. */
  answered: 'x-conformance-answered',
  /** Response: the router could not reach the service (the error's code); the hook turns it back into that error. */
  unreached: 'x-conformance-unreached',
  /** Response, Prism -> hook: the violations Prism found (a JSON array). */
  violations: 'sl-violations',
} as const;

/**
 * The scenario suites: the per-operation suites and the integration suites that drive the HTTP API. The security
 * suites stay direct (they send what a proxy would not forward as sent, and check the gate's answers, which Prism's
 * copy of the contract no longer guards), and so do the fuzzer and dredd (they check every answer themselves).
 */
const SCENARIO_DIRS = ['tests/operations/', 'tests/integration/'];

/**
 * Scenario suites that run direct, and why. Requests to a service that the suite did not start with
 * startTestService (a child process it kills, a server built by hand) are never routed: only those are proxied.
 */
export const DIRECT_SUITES: Record<string, string> = {};

/**
 * The test file this process runs, relative to the repository (node --test runs each file in its own process; under
 * scripts/test.ts the process runs the file's bundle, scripts/testBuildPaths.ts).
 */
export function currentTestFile(): string {
  return relative(projectRoot, sourceOfBuiltTest(process.argv[1] ?? ''))
    .split('\\')
    .join('/');
}

export function isScenarioSuite(file: string): boolean {
  return SCENARIO_DIRS.some((dir) => file.startsWith(dir)) && !(file in DIRECT_SUITES);
}

/** Headers that concern one hop only (or the harness), left out of the digest: a proxy may rewrite them. */
const HOP_HEADERS = new Set([
  'host',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'proxy-authorization',
  'proxy-connection',
  // The body's digest covers its length.
  'content-length',
]);

const sha = (data: string | Buffer) => createHash('sha256').update(data).digest('base64url').slice(0, 22);

/**
 * The query as the service reads it (Express 5's "simple" parser is node:querystring): Prism re-encodes a query
 * (URLSearchParams: `+` for a space, `%3A` for a colon, a repeated key's values grouped), which changes its bytes
 * but not this.
 */
export function queryMeaning(search: string): string {
  return JSON.stringify(parseQuery(search.replace(/^\?/, '')));
}

/** `path?query` split, the query as its meaning. */
export function targetMeaning(method: string, target: string): string {
  const q = target.indexOf('?');
  const path = q < 0 ? target : target.slice(0, q);
  return `${method.toUpperCase()} ${path} ${queryMeaning(q < 0 ? '' : target.slice(q + 1))}`;
}

/** The digest of a request as the service would read it: `target.headers.body`, each part compared on its own. */
export function requestDigest(
  method: string,
  target: string,
  headers: Record<string, string | string[] | undefined>,
  body: Buffer | undefined,
): string {
  const lines = Object.entries(headers)
    .map(([name, value]) => [name.toLowerCase(), Array.isArray(value) ? value.join(', ') : value] as const)
    .filter(([name, value]) => value !== undefined && !HOP_HEADERS.has(name) && !name.startsWith('x-conformance-'))
    .map(([name, value]) => `${name}: ${value}`)
    .sort();
  return [sha(targetMeaning(method, target)), sha(lines.join('\n')), sha(body ?? Buffer.alloc(0))].join('.');
}

/** Which parts of two digests differ (`target`, `headers`, `body`). */
export function digestDifference(sent: string, received: string): string[] {
  const a = sent.split('.');
  const b = received.split('.');
  return ['target', 'headers', 'body'].filter((_, i) => a[i] !== b[i]);
}

/** One entry of Prism's `sl-violations` header. */
export interface PrismViolation {
  location: string[];
  severity: string;
  code?: string | number;
  message: string;
}

/** A line of a test process's records. */
export type ProxyRecord =
  | {
      kind: 'proxied';
      file: string;
      operationId: string;
      method: string;
      path: string;
      /** The status the test received. */
      status: number;
      violations: PrismViolation[];
      /** Set when Prism answered in the service's place (no answer of the router came back). */
      prismAnswered?: true;
      /** Set when the router could not reach the service (the test got the same network error as direct). */
      unreached?: string;
    }
  | {
      kind: 'direct';
      file: string;
      /** Absent for a path outside the contract. */
      operationId?: string;
      method: string;
      path: string;
      reason: string;
    };

/** A problem the router found: the service's request or answer would not cross Prism unchanged. */
export interface RouterFinding {
  file: string;
  operationId?: string;
  method: string;
  path: string;
  problem: string;
}
