// The test runner's half of the conformance proxy (issue 22: every scenario suite runs once through Prism's
// validating proxy with 0 violations). scripts/test.ts starts it once per run, like the embedded PostgreSQL, and
// hands its environment to the test processes; the scenario suites' services are then reached through it
// (conformanceHook.ts):
//
//   test process --(its fetch, redirected by the hook)--> Prism proxy --> router (here) --> the test's service
//
// One Prism for the whole run, not one per file: starting Prism costs seconds of CPU, which 120 files would pay
// again and again. Prism runs without `--errors`, so every answer reaches the test as the service sent it, and with a
// copy of the contract without security requirements: it only validates answers (the suites check the gate's own).
// The router is what lets one Prism serve every service of the run: Prism forwards everything to it, and it sends
// each request on to the origin the hook named, with that origin as Host, so the service sees the request the test
// addressed to it (DPoP `htu` checks hold). It also checks that nothing changed on the way: the request it received
// must match the digest the hook computed before sending, and the service's answer must be one Prism passes on
// unchanged (a JSON body Prism's re-serialization gives back byte for byte, UTF-8 text, no redirect Prism's client
// would follow, no 501 Prism would replace with a mock, no header Prism would join). Anything else is a finding and
// fails the run, like a violation.
//
// report() reads the records the test processes wrote and writes test-output/conformance/prism-proxy-report.{md,json}:
// per operation, the requests proxied (by status), those sent direct and why, and the violations, each with its test
// file; it returns the failures, which scripts/test.ts prints and fails on.
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { isUtf8 } from 'node:buffer';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { operations } from '../../generated/server/catalogue.gen';
import { createRouteTable } from '../../src/http/routeTable';
import { freePort } from '../../src/infra/freePort';
import { projectRoot } from '../../src/paths';
import {
  HEADERS,
  PROXY_URL_ENV,
  RECORDS_DIR_ENV,
  digestDifference,
  requestDigest,
  type PrismViolation,
  type ProxyRecord,
  type RouterFinding,
} from './conformance';
import { startPrism, type Prism } from './prism';

export const REPORT_DIR = join(projectRoot, 'test-output', 'conformance');

export interface ConformanceOutcome {
  summary: string;
  /** One line per violation or finding; the run fails unless empty. */
  failures: string[];
  files: string[];
}

export interface ConformanceProxy {
  /** For the test processes: Prism's URL and the records directory. */
  env: Record<string, string>;
  /** Prism's URL. */
  url: string;
  /**
   * Reads the records so far and writes the report (into `dir`, test-output/conformance/ by default); `suites`, the
   * scenario suites the run included, lets it name those that sent nothing to route.
   */
  report(opts?: { dir?: string; suites?: string[] }): ConformanceOutcome;
  stop(): Promise<void>;
  /** Removes the records at once (a runner exiting without stop(); Prism is stopped by its own exit handler). */
  discard(): void;
}

/** Hop-by-hop headers, which each side of the router sets for its own connection. */
const HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'proxy-connection']);

const isJsonType = (contentType: string | undefined) => {
  const media = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  return media === 'application/json' || /^application\/[^/]+\+json$/.test(media);
};

/** Why Prism would not hand this answer to the test as the service sent it, if it would not. */
function answerProblems(answer: IncomingMessage, body: Buffer): string[] {
  const problems: string[] = [];
  const status = answer.statusCode!;
  if (status >= 300 && status < 400 && answer.headers.location)
    problems.push(`a ${status} redirect (Prism follows it)`);
  if (status === 501) problems.push('a 501 (Prism answers its mock instead)');
  const names = answer.rawHeaders.filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase());
  for (const name of new Set(names.filter((n, i) => names.indexOf(n) !== i && !HOP.has(n))))
    problems.push(`several ${name} headers (Prism joins them)`);
  if (isJsonType(answer.headers['content-type']) && status !== 204) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      problems.push('a JSON content type on a body that does not parse (Prism fails on it)');
      return problems;
    }
    if (!isUtf8(body) || JSON.stringify(parsed) !== body.toString('utf8'))
      problems.push('a JSON body Prism re-serializes to other bytes');
  } else if (!isUtf8(body)) {
    problems.push('a body that is not UTF-8 (Prism decodes it as text)');
  }
  return problems;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

async function readAll(stream: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks);
}

function startRouter(findings: RouterFinding[]): Promise<Server> {
  const route = createRouteTable();
  const relay = async (req: IncomingMessage, res: ServerResponse) => {
    const body = await readAll(req);
    const method = req.method!;
    const target = req.url!;
    const path = target.split('?')[0]!;
    const match = route(method, path);
    const found = (problem: string) =>
      findings.push({
        file: header(req, HEADERS.file) ?? '(unknown)',
        ...(match.kind === 'operation' ? { operationId: match.operationId } : {}),
        method,
        path,
        problem,
      });
    const upstream = header(req, HEADERS.upstream);
    if (!upstream) {
      found('a request without the upstream header reached the router');
      res.writeHead(400).end();
      return;
    }
    const sent = header(req, HEADERS.digest) ?? '';
    const received = requestDigest(method, target, req.headers, body);
    if (sent !== received)
      found(`the request reached the service altered (${digestDifference(sent, received).join(', ')})`);
    const headers: Record<string, string | string[] | undefined> = {};
    for (const [name, value] of Object.entries(req.headers))
      if (!HOP.has(name) && !name.startsWith('x-conformance-')) headers[name] = value;
    const url = new URL(upstream);
    headers.host = url.host;
    // A new connection per request: a test that stops its service and starts another on the same port must not
    // meet a kept-alive socket of the old one.
    const forward = request({ hostname: url.hostname, port: url.port, method, path: target, headers, agent: false });
    const unreached = (err: NodeJS.ErrnoException) => {
      if (res.headersSent) return void res.destroy();
      res.writeHead(502, {
        'content-type': 'text/plain',
        [HEADERS.unreached]: `${err.code ?? 'ECONNRESET'}|${err.message}`.replace(/[^\x20-\x7e]/g, '?'),
      });
      res.end(err.message);
    };
    forward.on('error', unreached);
    forward.on('response', (answer) => {
      readAll(answer).then(
        (answerBody) => {
          for (const problem of answerProblems(answer, answerBody)) found(problem);
          const raw: string[] = [];
          for (let i = 0; i + 1 < answer.rawHeaders.length; i += 2)
            if (!HOP.has(answer.rawHeaders[i]!.toLowerCase()))
              raw.push(answer.rawHeaders[i]!, answer.rawHeaders[i + 1]!);
          raw.push(HEADERS.answered, String(answer.statusCode));
          res.writeHead(answer.statusCode!, answer.statusMessage, raw);
          res.end(answerBody);
        },
        (err: NodeJS.ErrnoException) => unreached(err),
      );
    });
    forward.end(body.length ? body : undefined);
  };
  const server = createServer((req, res) => {
    relay(req, res).catch((err: unknown) => {
      findings.push({ file: '(router)', method: req.method ?? '?', path: req.url ?? '?', problem: String(err) });
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
  });
  return freePort().then(
    (port) =>
      new Promise<Server>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => resolve(server));
      }),
  );
}

/** Starts the router and Prism in front of it; the records go to a fresh temporary directory. */
export async function startConformanceProxy(): Promise<ConformanceProxy> {
  const findings: RouterFinding[] = [];
  const recordsDir = mkdtempSync(join(tmpdir(), 'onboard-conformance-'));
  const router = await startRouter(findings);
  let prism: Prism;
  try {
    prism = await startPrism('conformance', `http://127.0.0.1:${(router.address() as { port: number }).port}`);
  } catch (err) {
    router.close();
    throw err;
  }
  return {
    url: prism.url,
    env: { [PROXY_URL_ENV]: prism.url, [RECORDS_DIR_ENV]: recordsDir },
    report: (opts = {}) => writeReport(readRecords(recordsDir), findings, opts),
    stop: async () => {
      await prism.stop();
      router.closeAllConnections();
      await new Promise((resolve) => router.close(resolve));
      rmSync(recordsDir, { recursive: true, force: true });
    },
    discard: () => rmSync(recordsDir, { recursive: true, force: true }),
  };
}

export function readRecords(dir: string): ProxyRecord[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .flatMap((f) =>
      readFileSync(join(dir, f), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as ProxyRecord),
    );
}

/** Violations of these severities fail the run: an error, or a warning (Prism's word for a status the contract does not list for the operation). */
const FAILING_SEVERITIES = new Set(['Error', 'Warning']);

interface OperationTally {
  proxied: number;
  statuses: Record<string, number>;
  direct: Record<string, number>;
  violations: number;
}

interface ViolationEntry {
  file: string;
  operationId: string;
  method: string;
  path: string;
  status: number;
  violation: PrismViolation;
}

/** Builds the report from the records and the router's findings and writes it; returns what failed. */
export function writeReport(
  records: ProxyRecord[],
  findings: RouterFinding[],
  { dir = REPORT_DIR, suites = [] }: { dir?: string; suites?: string[] } = {},
): ConformanceOutcome {
  const tallies = new Map<string, OperationTally>();
  const tally = (id: string) => {
    let t = tallies.get(id);
    if (!t) tallies.set(id, (t = { proxied: 0, statuses: {}, direct: {}, violations: 0 }));
    return t;
  };
  const byFile = new Map<
    string,
    { proxied: number; direct: number; outsideContract: number; outsidePaths: Record<string, number> }
  >();
  const violations: ViolationEntry[] = [];
  const notes: ViolationEntry[] = [];
  const failures: string[] = [];
  let unreached = 0;
  for (const r of records) {
    const f = byFile.get(r.file) ?? { proxied: 0, direct: 0, outsideContract: 0, outsidePaths: {} };
    byFile.set(r.file, f);
    if (r.kind === 'direct') {
      if (!r.operationId) {
        f.outsideContract++;
        const request = `${r.method} ${r.path}`;
        f.outsidePaths[request] = (f.outsidePaths[request] ?? 0) + 1;
        continue;
      }
      f.direct++;
      const t = tally(r.operationId);
      t.direct[r.reason] = (t.direct[r.reason] ?? 0) + 1;
      continue;
    }
    f.proxied++;
    const t = tally(r.operationId);
    t.proxied++;
    if (r.unreached) {
      unreached++;
      t.statuses['unreached'] = (t.statuses['unreached'] ?? 0) + 1;
      continue;
    }
    t.statuses[r.status] = (t.statuses[r.status] ?? 0) + 1;
    if (r.prismAnswered)
      failures.push(`${r.file}: ${r.method} ${r.path} (${r.operationId}): Prism answered ${r.status} itself`);
    for (const v of r.violations) {
      const entry = {
        file: r.file,
        operationId: r.operationId,
        method: r.method,
        path: r.path,
        status: r.status,
        violation: v,
      };
      if (!FAILING_SEVERITIES.has(v.severity)) {
        notes.push(entry);
        continue;
      }
      t.violations++;
      violations.push(entry);
      failures.push(
        `${r.file}: ${r.method} ${r.path} (${r.operationId}) answered ${r.status}: ${v.severity} at ${v.location.join('.') || '(answer)'}: ${v.message}`,
      );
    }
  }
  for (const f of findings)
    failures.push(`${f.file}: ${f.method} ${f.path}${f.operationId ? ` (${f.operationId})` : ''}: ${f.problem}`);

  const proxied = [...tallies.values()].reduce((n, t) => n + t.proxied, 0);
  const direct = [...tallies.values()].reduce((n, t) => n + Object.values(t.direct).reduce((a, b) => a + b, 0), 0);
  const outside = [...byFile.values()].reduce((n, f) => n + f.outsideContract, 0);
  const notProxied = Object.keys(operations)
    .filter((id) => !tallies.get(id)?.proxied)
    .sort();
  if ((byFile.size > 0 || suites.length > 0) && proxied === 0)
    failures.push('no request went through the proxy: the hook routed nothing');
  // Suites that test the domain in process, or a service they run as a child process (to kill it): nothing to route.
  const silent = suites.filter((f) => !byFile.has(f)).sort();
  const summary =
    `${byFile.size} test files, ${proxied} requests through Prism over ${[...tallies.values()].filter((t) => t.proxied).length} ` +
    `operations, ${direct} direct, ${violations.length} violations, ${findings.length} findings`;

  mkdirSync(dir, { recursive: true });
  const operationsJson = Object.fromEntries([...tallies].sort(([a], [b]) => a.localeCompare(b)));
  const jsonFile = join(dir, 'prism-proxy-report.json');
  writeFileSync(
    jsonFile,
    `${JSON.stringify(
      {
        summary: {
          files: byFile.size,
          proxied,
          direct,
          outsideContract: outside,
          unreached,
          violations: violations.length,
          findings: findings.length,
        },
        operations: operationsJson,
        notProxied,
        suitesWithoutRequests: silent,
        violations,
        notes,
        findings,
        files: Object.fromEntries([...byFile].sort(([a], [b]) => a.localeCompare(b))),
      },
      null,
      2,
    )}\n`,
  );
  const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const lines = [
    '# Scenario suites through the Prism validating proxy',
    '',
    summary,
    '',
    'Each scenario suite (tests/operations, tests/integration) ran with its service behind one `prism proxy` (no',
    '`--errors`: answers reach the tests unchanged). A request Prism would not forward as sent went direct (reasons',
    'below); requests to paths outside the contract are counted per file only.',
    '',
    '| operation | through Prism | statuses | direct (why) | violations |',
    '|---|---:|---|---|---:|',
    ...Object.entries(operationsJson).map(
      ([id, t]) =>
        `| ${id} | ${t.proxied} | ${Object.entries(t.statuses)
          .map(([s, n]) => `${s}: ${n}`)
          .join(', ')} | ${cell(
          Object.entries(t.direct)
            .map(([why, n]) => `${n} ${why}`)
            .join('; '),
        )} | ${t.violations} |`,
    ),
    '',
    `Operations never proxied (${notProxied.length}): ${notProxied.join(', ') || 'none'}`,
    '',
    `## Violations (${violations.length})`,
    '',
    ...(violations.length
      ? violations.map(
          (v) =>
            `- ${v.file}: ${v.method} ${v.path} (${v.operationId}) answered ${v.status}: ${v.violation.severity} at ${
              v.violation.location.join('.') || '(answer)'
            }: ${cell(v.violation.message)}`,
        )
      : ['none']),
    '',
    `## Findings of the router (${findings.length})`,
    '',
    'A request that reached the service otherwise than sent, or an answer Prism would not pass on unchanged.',
    '',
    ...(findings.length
      ? findings.map(
          (f) => `- ${f.file}: ${f.method} ${f.path}${f.operationId ? ` (${f.operationId})` : ''}: ${f.problem}`,
        )
      : ['none']),
    '',
    ...(notes.length
      ? [
          `## Notes (${notes.length}, not failures)`,
          '',
          ...notes.map((v) => `- ${v.file}: ${v.method} ${v.path} answered ${v.status}: ${cell(v.violation.message)}`),
          '',
        ]
      : []),
    '## Files',
    '',
    '| file | through Prism | direct | outside the contract (direct) |',
    '|---|---:|---:|---|',
    ...[...byFile]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(
        ([file, f]) =>
          `| ${file} | ${f.proxied} | ${f.direct} | ${f.outsideContract}${
            f.outsideContract
              ? `: ${cell(
                  Object.entries(f.outsidePaths)
                    .slice(0, 10)
                    .map(([request, n]) => (n > 1 ? `${request} (${n})` : request))
                    .join(', '),
                )}${Object.keys(f.outsidePaths).length > 10 ? ', ...' : ''}`
              : ''
          } |`,
      ),
    '',
    ...(suites.length
      ? [
          `Scenario suites with no request to a service they started with startTestService (${silent.length}: they test`,
          `the domain in process, or run the service as a child process): ${silent.join(', ') || 'none'}`,
          '',
        ]
      : []),
  ];
  const mdFile = join(dir, 'prism-proxy-report.md');
  writeFileSync(mdFile, lines.join('\n'));
  return { summary, failures, files: [jsonFile, mdFile] };
}
