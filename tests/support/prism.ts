// Starts Prism (pinned in devDependencies) as a mock, or as the validating proxy the test runner puts in front of
// every scenario suite (tests/support/conformanceProxy.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../src/infra/freePort';
import { projectRoot } from '../../src/paths';

export interface Prism {
  url: string;
  output(): string;
  stop(): Promise<void>;
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/**
 * The bundle as Prism can read it. Prism 5 does not know the `http` scheme `DPoP`, so those schemes become an apiKey
 * in the Authorization header: the same presence check, which is all Prism does for any scheme. With
 * `withoutSecurity` every security requirement is dropped too: the conformance proxy only validates answers (the
 * gate's own answers are what the suites check), and Prism would otherwise list each request whose credentials it
 * cannot read as a request violation (the CLI always checks security; only `--errors` turns that into its own 401).
 */
function prismDocument(opts: { withoutSecurity?: boolean } = {}): string {
  const doc = JSON.parse(readFileSync(join(projectRoot, 'openapi/dist/openapi.json'), 'utf8'));
  for (const [name, scheme] of Object.entries<Record<string, unknown>>(doc.components.securitySchemes)) {
    if (scheme.type === 'http' && scheme.scheme === 'DPoP') {
      doc.components.securitySchemes[name] = {
        type: 'apiKey',
        in: 'header',
        name: 'Authorization',
        description: scheme.description,
      };
    }
  }
  if (opts.withoutSecurity) {
    delete doc.security;
    for (const item of Object.values<Record<string, Record<string, unknown>>>(doc.paths))
      for (const method of HTTP_METHODS) if (item[method]) delete item[method].security;
  }
  const file = join(mkdtempSync(join(tmpdir(), 'onboard-prism-')), 'openapi.json');
  writeFileSync(file, JSON.stringify(doc));
  return file;
}

/** Resolves once something accepts TCP connections on 127.0.0.1:`port`. */
async function listening(port: number, child: ChildProcess, out: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`prism exited with ${child.exitCode}:\n${out()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`prism did not start in 60 s:\n${out()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * `mock` serves the examples; `conformance` forwards every request to `upstream` unvalidated and passes every answer
 * through unchanged, listing its violations in an `sl-violations` header: no `--errors` (which would replace a
 * violating answer with Prism's own problem+json, and answer a request without credentials with its own 401), no CORS
 * headers of its own (`--cors=false`: they would stand in for the service's), no security in its document, and only
 * errors logged (its per-request log lines cost more CPU than its validation).
 */
export async function startPrism(mode: 'mock' | 'conformance', upstream?: string): Promise<Prism> {
  const port = await freePort();
  const spec = prismDocument({ withoutSecurity: mode === 'conformance' });
  const args =
    mode === 'mock'
      ? ['mock', spec]
      : ['proxy', spec, upstream!, '--validate-request=false', '--cors=false', '--verboseLevel=error'];
  const child: ChildProcess = spawn(
    join(projectRoot, 'node_modules/.bin/prism'),
    // One process: prism's forking mode (its default when NODE_ENV=production, which a Vite build in the same test
    // process sets) fails at start with this version.
    [...args, '--host', '127.0.0.1', '--port', String(port), '--multiprocess=false'],
    {
      cwd: projectRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  // A runner that exits at once (a failed pass ends scripts/test.ts with process.exit) must not leave Prism behind.
  const killOnExit = () => child.kill('SIGTERM');
  process.once('exit', killOnExit);
  child.once('exit', () => process.off('exit', killOnExit));
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  if (mode === 'conformance') {
    // Its "listening" line is logged at a level below errors, so the port itself tells.
    await listening(port, child, () => out);
  } else {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`prism did not start in 60 s:\n${out}`)), 60_000);
      const check = () => {
        if (/Prism is listening/.test(out)) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout!.on('data', check);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`prism exited with ${code}:\n${out}`));
      });
    });
  }
  return {
    url: `http://127.0.0.1:${port}`,
    output: () => out,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
