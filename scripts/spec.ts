// Bundles the split contract (openapi/openapi.yaml and its $refs) into openapi/dist/openapi.json, the only file
// every tool reads. `tsx scripts/spec.ts bundle` (make spec).
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const bundlePath = join(root, 'openapi/dist/openapi.json');

export function bundleSpec(): void {
  mkdirSync(dirname(bundlePath), { recursive: true });
  execFileSync(
    join(root, 'node_modules/.bin/redocly'),
    ['bundle', 'openapi/openapi.yaml', '--output', bundlePath, '--ext', 'json', '--config', 'openapi/redocly.yaml'],
    { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  // Stable formatting so the committed bundle diffs cleanly; the version is package.json's (one version, one place: the
  // contract, the package and /health say the same).
  const doc = JSON.parse(readFileSync(bundlePath, 'utf8')) as { info: { version: string } };
  doc.info.version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
  writeFileSync(bundlePath, JSON.stringify(doc, null, 2) + '\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  bundleSpec();
  console.log(`bundled ${bundlePath}`);
}
