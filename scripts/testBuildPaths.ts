// Where scripts/testBuild.ts puts the bundled test files, and the way back from a bundle to its test file. Apart from
// testBuild.ts (which loads esbuild) so that a test process can name its own file without loading the bundler.
import { join, relative, sep } from 'node:path';
import { projectRoot } from '../src/paths';

/** Under node_modules, so that nothing of it is committed or linted; each run builds into a folder of its own. */
export const TEST_BUILDS = join(projectRoot, 'node_modules/.cache/test-build');

/** The folder of the run of process `pid`: runs at once (a full run and an --only run) never share one. */
export function testBuildDir(pid: number): string {
  return join(TEST_BUILDS, `run-${pid}`);
}

/** The built file (absolute) of a test file given relative to the project's root: `<buildDir>/<file>.mjs`. */
export function builtTestOf(buildDir: string, file: string): string {
  return join(buildDir, `${file}.mjs`);
}

/** The test file (absolute) a built file came from; any other path is returned as it is. */
export function sourceOfBuiltTest(path: string): string {
  const inBuilds = relative(TEST_BUILDS, path).split(sep);
  if (inBuilds[0] === '..' || !inBuilds[0]?.startsWith('run-') || !path.endsWith('.mjs')) return path;
  return join(projectRoot, ...inBuilds.slice(1)).slice(0, -'.mjs'.length);
}
