// npm run spec:release: cuts a release of the contract. A release is what is committed: HEAD's openapi/ bundled with
// HEAD's package.json version (uncommitted edits are left out, and said so). It
//   1. refuses when that version is already released (bump package.json's version first) or is not above the last
//      release, or when the contract breaks the last release without a major version bump (scripts/specDiff.ts);
//   2. writes the bundle to openapi/releases/v<version>.json and the release's section of docs/api-changelog.md
//      (its changes since the last release; the Unreleased section starts empty again);
//   3. commits those two files alone and tags that commit `api-v<version>` (annotated), printing each git command.
// The release file is committed so that the check (spec:diff) never needs tags: a shallow CI clone has none. The tag
// stays local until pushed: git push origin HEAD api-v<version>.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleSpec } from './spec';
import {
  changelogPath,
  compareVersions,
  diffSpecs,
  listReleases,
  readDocument,
  releasedSections,
  releaseSection,
  releasesDir,
  releaseTag,
  renderChangelog,
  unreleasedSection,
  verdict,
  verifyReleaseTag,
  type OpenApiDocument,
} from './specDiff';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const quote = (arg: string) => (/^[\w./:@=-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`);

/** Runs git in the checkout, printing the command first; its output (with `check`: 'yes', or '' when it fails). */
function git(args: string[], options: { check?: boolean } = {}): string {
  console.log(`$ git ${args.map(quote).join(' ')}`);
  if (options.check) return spawnSync('git', args, { cwd: root }).status === 0 ? 'yes' : '';
  return execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
}

/** Bundles HEAD's committed contract (openapi/ and package.json from `git archive`, not the working tree). */
function bundleHead(): { text: string; doc: OpenApiDocument } {
  const dir = mkdtempSync(join(tmpdir(), 'onboard-spec-release-'));
  try {
    const args = ['archive', '--format=tar', 'HEAD', 'openapi', 'package.json'];
    console.log(`$ git ${args.join(' ')} | tar -x -C ${dir}`);
    const archive = execFileSync('git', args, { cwd: root, maxBuffer: 256 << 20 });
    execFileSync('tar', ['-x', '-C', dir], { input: archive });
    const out = join(dir, 'bundle.json');
    bundleSpec(dir, out);
    return { text: readFileSync(out, 'utf8'), doc: readDocument(out) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function countOperations(doc: OpenApiDocument): { operations: number; webhooks: number } {
  const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
  const count = (items: Record<string, Record<string, unknown>> = {}) =>
    Object.values(items).reduce((n, item) => n + methods.filter((m) => m in item).length, 0);
  return { operations: count(doc.paths), webhooks: count(doc.webhooks) };
}

async function main(): Promise<void> {
  const { text, doc } = bundleHead();
  const version = doc.info.version;
  const tag = releaseTag(version);
  const file = join(releasesDir, `v${version}.json`);
  if (git(['rev-parse', '-q', '--verify', `refs/tags/${tag}`], { check: true })) {
    throw new Error(`${tag} already exists: bump package.json's version (and commit it) to release again`);
  }
  if (existsSync(file)) throw new Error(`${relative(root, file)} already exists: bump package.json's version first`);
  const dirty = git(['status', '--porcelain', '--', 'openapi', 'package.json']).trim();
  if (dirty) console.log(`spec:release: uncommitted changes in openapi/ or package.json are not part of the release`);

  const last = listReleases().at(-1);
  let section: string;
  if (last) {
    if (compareVersions(version, last.version) <= 0) {
      throw new Error(`version ${version} is not above the last release ${last.version}: bump package.json's version`);
    }
    console.log(`spec:release: ${verifyReleaseTag(last)}`);
    const diff = await diffSpecs(readDocument(last.file), doc);
    const { ok, lines } = verdict(diff);
    for (const line of lines) console.log(line);
    if (!ok) throw new Error(`not released: the contract breaks release ${last.version}`);
    section = releaseSection(version, diff);
  } else {
    section = releaseSection(version, null, countOperations(doc));
  }

  mkdirSync(releasesDir, { recursive: true });
  writeFileSync(file, text);
  const current = existsSync(changelogPath) ? readFileSync(changelogPath, 'utf8') : '';
  // The released contract is HEAD's, so against it the Unreleased section starts empty.
  const empty = await diffSpecs(doc, doc);
  writeFileSync(changelogPath, renderChangelog(unreleasedSection(empty), [section, ...releasedSections(current)]));

  const paths = [relative(root, file), relative(root, changelogPath)];
  git(['add', '--', ...paths]);
  git(['commit', '--quiet', '-m', `api: release ${version} (${tag})`, '--only', '--', ...paths]);
  git(['tag', '-a', tag, '-m', `Onboard API ${version}: openapi/releases/v${version}.json`]);
  const commit = git(['rev-parse', '--short', 'HEAD']).trim();
  console.log(`spec:release: released ${version}: ${relative(root, file)}, commit ${commit}, tag ${tag} (local)`);
  console.log(`spec:release: publish it with: git push origin HEAD ${tag}`);
}

main().catch((err: unknown) => {
  console.error(`spec:release: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
