// Starts Prism (pinned in devDependencies) as a mock or as a validating proxy in front of the live service.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../src/infra/freePort';
import { projectRoot } from '../../src/paths';

export interface Prism {
  url: string;
  output(): string;
  stop(): Promise<void>;
}

/**
 * The bundle as Prism can read it. Prism 5 always checks security (the CLI hard-codes checkSecurity) and does not know
 * the `http` scheme `DPoP`, so those schemes become an apiKey in the Authorization header: the same presence check,
 * which is all Prism does for any scheme.
 */
function prismDocument(): string {
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
  const file = join(mkdtempSync(join(tmpdir(), 'onboard-prism-')), 'openapi.json');
  writeFileSync(file, JSON.stringify(doc));
  return file;
}

export async function startPrism(mode: 'mock' | 'proxy', upstream?: string): Promise<Prism> {
  const port = await freePort();
  const spec = prismDocument();
  const args = mode === 'mock' ? ['mock', spec] : ['proxy', spec, upstream!, '--errors', '--validate-request=false'];
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
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
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
