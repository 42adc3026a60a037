// The test files, bundled once per run before node's test runner starts them (scripts/test.ts).
//
// Why: each test file runs in its own process, and each process loaded most of the service through tsx, module by
// module: about 600 TypeScript modules resolved, transformed (from tsx's cache) and linked one by one, on every one of
// the ~290 files. One esbuild build of all the files (code splitting: what several files share is one chunk, loaded
// once per process) takes about a second and leaves each process a handful of JavaScript modules to load. Measured
// over the whole first pass (bench/results/2026-11-27-test-suite.md): the test files' processes took 0.67x the CPU.
//
// What stays as it was: esbuild is the transformer tsx uses, with the same tsconfig (paths, JSX), so the code runs
// with the same semantics; packages are not bundled (node loads them from node_modules, as under tsx); child
// processes the tests start (the service, the worker, the CLIs, the benches) still run their TypeScript through tsx.
// Two things a bundle would change are kept as under tsx:
//   - `import.meta.url` and `import.meta.dirname` name the source file, not the chunk it ended up in (paths.ts finds
//     the project's root from it, and files beside the source are read through it);
//   - a package's file imported by path without its extension (`ajv/dist/2020`), which tsx resolves like require(),
//     is resolved here to the file itself.
// Stack traces point at the sources (--enable-source-maps). A file is built to `<outdir>/<its path>.mjs`, so the
// source of a running file is its path less the build directory and `.mjs` (testBuildPaths.ts).
import { readdirSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { isProcessRunning } from '../src/infra/processes';
import { projectRoot } from '../src/paths';
import { TEST_BUILDS, testBuildDir } from './testBuildPaths';

/** import.meta.url and import.meta.dirname of each source file, written in as the source file's own. */
const sourceLocation: esbuild.Plugin = {
  name: 'source-location',
  setup(build) {
    build.onLoad({ filter: /\.[cm]?tsx?$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      if (!source.includes('import.meta.')) return undefined;
      const contents = source
        .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href))
        .replaceAll('import.meta.dirname', JSON.stringify(dirname(args.path)))
        .replaceAll('import.meta.filename', JSON.stringify(args.path));
      return { contents, loader: args.path.endsWith('x') ? 'tsx' : 'ts' };
    });
  },
};

/**
 * Packages stay outside the bundle. A bare specifier with a path into the package (`ajv/dist/2020`) is resolved to
 * the file it names: node's ESM resolution would not add the `.js` that tsx (and require) add. Aliases of the
 * tsconfig (`@onboard/core`) are the project's own sources and are bundled.
 */
const externalPackages: esbuild.Plugin = {
  name: 'external-packages',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.pluginData === 'resolving' || args.path.startsWith('@onboard/')) return undefined;
      if (args.path.startsWith('node:')) return { path: args.path, external: true };
      const parts = args.path.split('/');
      const packageParts = args.path.startsWith('@') ? 2 : 1;
      if (parts.length <= packageParts) return { path: args.path, external: true };
      const resolved = await build.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: 'resolving',
      });
      // A built-in (`fs/promises`) or anything esbuild cannot find stays as written, for node to resolve.
      if (resolved.errors.length || resolved.external || !resolved.path) return { path: args.path, external: true };
      return { path: pathToFileURL(resolved.path).href, external: true };
    });
  },
};

/** Removes the folders of runs that are over (removeTestBuild) or whose process is gone. */
function removeFinishedBuilds(): void {
  let runs: string[];
  try {
    runs = readdirSync(TEST_BUILDS);
  } catch {
    return;
  }
  for (const run of runs) {
    const pid = Number(run.replace(/^run-/, ''));
    if (!Number.isInteger(pid) || !isProcessRunning(pid))
      rmSync(join(TEST_BUILDS, run), { recursive: true, force: true });
  }
}

/** Bundles the test files (relative to the project's root) into this run's folder; returns it and the time taken. */
export async function buildTests(files: string[]): Promise<{ dir: string; ms: number }> {
  const started = Date.now();
  removeFinishedBuilds();
  const dir = testBuildDir(process.pid);
  rmSync(dir, { recursive: true, force: true });
  await esbuild.build({
    absWorkingDir: projectRoot,
    entryPoints: files.map((file) => ({ in: file, out: file })),
    outdir: dir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    chunkNames: '_chunks/[name]-[hash]',
    format: 'esm',
    platform: 'node',
    target: 'node24',
    sourcemap: 'linked',
    tsconfig: join(projectRoot, 'tsconfig.json'),
    plugins: [externalPackages, sourceLocation],
    logLevel: 'warning',
  });
  return { dir, ms: Date.now() - started };
}

/** Removes this run's folder. */
export function removeTestBuild(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
