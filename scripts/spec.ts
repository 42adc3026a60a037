// Bundles the split contract (openapi/openapi.yaml and its $refs) into openapi/dist/openapi.json, the only file
// every tool reads. `tsx scripts/spec.ts bundle` (make spec).
// `tsx scripts/spec.ts owasp` lints the bundle with Spectral's OWASP ruleset (make lint). Spectral takes ~20 s and
// its verdict depends only on the bundle, the ruleset and Spectral itself, so a clean verdict is remembered by their
// hash (node_modules/.cache/spectral) and not recomputed until one of them changes; CI's clean clone always runs it.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const bundlePath = join(root, 'openapi/dist/openapi.json');

/**
 * Bundles `<from>/openapi` with `<from>/package.json`'s version into `out`: by default the working tree's into
 * openapi/dist; scripts/specRelease.ts bundles a checkout of HEAD.
 */
export function bundleSpec(from = root, out = bundlePath): void {
  mkdirSync(dirname(out), { recursive: true });
  execFileSync(
    join(root, 'node_modules/.bin/redocly'),
    ['bundle', 'openapi/openapi.yaml', '--output', out, '--ext', 'json', '--config', 'openapi/redocly.yaml'],
    { cwd: from, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  // Stable formatting so the committed bundle diffs cleanly; the version is package.json's (one version, one place: the
  // contract, the package and /health say the same).
  const doc = JSON.parse(readFileSync(out, 'utf8')) as { info: { version: string } };
  doc.info.version = (JSON.parse(readFileSync(join(from, 'package.json'), 'utf8')) as { version: string }).version;
  writeFileSync(out, JSON.stringify(doc, null, 2) + '\n');
}

const SPECTRAL_STAMP = join(root, 'node_modules/.cache/spectral/clean');

/** Spectral OWASP over the bundle (as it is: run after bundling); exits non-zero on an error-level finding. */
function lintOwasp(): void {
  const inputs = [
    bundlePath,
    join(root, 'openapi/spectral.yaml'),
    join(root, 'node_modules/@stoplight/spectral-cli/package.json'),
  ];
  const hash = createHash('sha256');
  for (const file of inputs) hash.update(readFileSync(file));
  const digest = hash.digest('hex');
  if (existsSync(SPECTRAL_STAMP) && readFileSync(SPECTRAL_STAMP, 'utf8') === digest) {
    console.log('Spectral OWASP: no errors (bundle and ruleset unchanged since the last clean run)');
    return;
  }
  execFileSync(
    join(root, 'node_modules/.bin/spectral'),
    [
      'lint',
      bundlePath,
      '--ruleset',
      'openapi/spectral.yaml',
      '--format',
      'text',
      '--fail-severity',
      'error',
      '--display-only-failures',
    ],
    { cwd: root, stdio: 'inherit' },
  );
  mkdirSync(dirname(SPECTRAL_STAMP), { recursive: true });
  writeFileSync(SPECTRAL_STAMP, digest);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const command = process.argv[2] ?? 'bundle';
  if (command === 'owasp') {
    try {
      lintOwasp();
    } catch (err) {
      // Spectral has printed its findings; anything else (a missing file) is said here.
      if ((err as { status?: unknown }).status === undefined) console.error(err);
      process.exit(1);
    }
  } else {
    bundleSpec();
    console.log(`bundled ${bundlePath}`);
  }
}
