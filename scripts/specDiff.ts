// npm run spec:diff: the contract never breaks silently. Compares the bundled contract (openapi/dist/openapi.json) with
// its last release (the newest openapi/releases/v<version>.json, written by `npm run spec:release`) under Optic's
// breaking-changes rules (openapi/optic.yml), offline and in this process, and fails on a breaking change (a removed
// operation or field, a narrowed type, a new required input) unless the bundle's major version is greater than the
// release's. It rewrites the "Unreleased" section of docs/api-changelog.md from the same diff.
//   tsx scripts/specDiff.ts             bundle, compare, rewrite the changelog; exit 1 on a breaking change
//   tsx scripts/specDiff.ts --check     (make lint) compare the bundle as it is (check-generated bundled it), write
//                                        nothing; exit 1 on a breaking change or when docs/api-changelog.md is stale
//   tsx scripts/specDiff.ts --changelog (npm run generate, after it bundled) rewrite the changelog; breaking changes
//                                        are reported, not failed on
//   tsx scripts/specDiff.ts --base <file> --head <file>   compare two bundles, write nothing (tests, ad hoc)
// The release file is committed, so a shallow CI clone without tags still has it; when the tag api-v<version> is in
// the clone, the file must equal the tag's copy (a release is never edited).
//
// What Optic is given: Optic's rule runner rebuilds an operation's facts for every response it checks, so its time
// grows with (responses per operation)^2 x (schema nodes per response): on the whole bundle (130,000 facts, 98,000 of
// them the ErrorCode catalogue's `oneOf` inlined into every error response) it takes more than four minutes. So:
//   1. operations whose definition (with every component it reaches) is identical in both documents are left out of
//      both: the breaking-changes rules fire only on what was added, changed or removed, so they cannot say anything
//      about them; the diff costs what the change touches.
//   2. the ErrorCode catalogue is judged once, as the body of a stand-in operation (`error catalogue`); where error
//      responses reference it they see its other keywords (type, maxLength). Optic's rules treat a `oneOf` of consts
//      as a union and flag neither an added nor a removed code, so no verdict is lost: a new code stays additive.
//   3. webhooks (Optic reads only `paths`) are judged as stand-in operations whose response is the payload: the app
//      receives it, so a removed or narrowed payload field is breaking and an added one is not, as for a response.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundlePath, bundleSpec } from './spec';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const releasesDir = join(root, 'openapi/releases');
export const changelogPath = join(root, 'docs/api-changelog.md');
const rulesetPath = join(root, 'openapi/optic.yml');
const CLEAN_STAMP = join(root, 'node_modules/.cache/spec-diff/clean');

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
const CATALOGUE_PATH = '/x-onboard/error-catalogue';
const CATALOGUE_SCHEMA = 'XOnboardErrorCatalogue';
const WEBHOOK_PREFIX = '/x-onboard/webhooks/';

type JsonObject = Record<string, unknown>;
/** A bundled OpenAPI document, as far as this script reads it. */
export interface OpenApiDocument extends JsonObject {
  info: { version: string } & JsonObject;
  paths?: Record<string, JsonObject>;
  webhooks?: Record<string, JsonObject>;
  components?: Record<string, Record<string, unknown>>;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function readDocument(file: string): OpenApiDocument {
  return JSON.parse(readFileSync(file, 'utf8')) as OpenApiDocument;
}

// ---- versions and releases

/** MAJOR.MINOR.PATCH as numbers; the contract's versions never carry a pre-release or build part. */
export function parseVersion(version: string): [number, number, number] {
  const match = /^(\d+)\.(\d+)\.(\d+)$/.exec(version);
  if (!match) throw new Error(`version "${version}" is not MAJOR.MINOR.PATCH`);
  return [Number(match[1]), Number(match[2]), Number(match[3])];
}

export function compareVersions(a: string, b: string): number {
  const [x, y] = [parseVersion(a), parseVersion(b)];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return 0;
}

export interface Release {
  version: string;
  file: string;
}

/** The released bundles in openapi/releases, oldest first. */
export function listReleases(dir = releasesDir): Release[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => /^v\d+\.\d+\.\d+\.json$/.test(name))
    .map((name) => ({ version: name.slice(1, -'.json'.length), file: join(dir, name) }))
    .sort((a, b) => compareVersions(a.version, b.version));
}

export const releaseTag = (version: string): string => `api-v${version}`;

/**
 * When the release's tag is in this clone, its copy of the release file must be byte for byte the committed one;
 * without the tag (CI's shallow clone fetches none) the committed file is used as it is. Returns what was found.
 */
export function verifyReleaseTag(release: Release): string {
  const tag = releaseTag(release.version);
  const git = (args: string[]) => spawnSync('git', args, { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (git(['rev-parse', '--is-inside-work-tree']).status !== 0) return `not a git checkout: tag ${tag} not checked`;
  if (git(['rev-parse', '-q', '--verify', `refs/tags/${tag}`]).status !== 0) {
    return `tag ${tag} is not in this clone (a shallow clone fetches no tags): the committed release file is used`;
  }
  const path = relative(root, release.file);
  const tagged = git(['show', `${tag}:${path}`]);
  if (tagged.status !== 0) throw new Error(`tag ${tag} has no ${path}`);
  if (tagged.stdout !== readFileSync(release.file, 'utf8')) {
    throw new Error(`${path} differs from its copy in tag ${tag}: a released contract is never edited`);
  }
  return `${path} matches tag ${tag}`;
}

// ---- the documents Optic is given (see the header)

/** The document as Optic judges it: webhooks and the error catalogue as stand-in operations. */
function opticView(doc: OpenApiDocument): OpenApiDocument {
  const view = structuredClone(doc);
  view.paths ??= {};
  for (const [name, item] of Object.entries(view.webhooks ?? {})) {
    const stand: JsonObject = {};
    for (const method of METHODS) {
      const operation = item[method];
      if (!isObject(operation)) continue;
      const body = isObject(operation.requestBody) ? operation.requestBody : {};
      const headers: JsonObject = {};
      for (const parameter of Array.isArray(operation.parameters) ? operation.parameters : []) {
        if (!isObject(parameter) || parameter.in !== 'header' || typeof parameter.name !== 'string') continue;
        const { name: headerName, in: _in, ...header } = parameter;
        headers[headerName] = header;
      }
      stand[method] = {
        operationId: operation.operationId,
        responses: { '200': { description: 'The payload the app receives', headers, content: body.content ?? {} } },
      };
    }
    view.paths[WEBHOOK_PREFIX + name] = stand;
  }
  delete view.webhooks;
  const schemas = view.components?.schemas;
  const catalogue = schemas?.ErrorCode;
  if (schemas && isObject(catalogue) && Array.isArray(catalogue.oneOf)) {
    const { oneOf: _codes, ...standIn } = catalogue;
    schemas.ErrorCode = standIn;
    schemas[CATALOGUE_SCHEMA] = catalogue;
    view.paths[CATALOGUE_PATH] = {
      get: {
        operationId: 'errorCatalogue',
        responses: {
          '200': {
            description: 'The error catalogue',
            content: { 'application/json': { schema: { $ref: `#/components/schemas/${CATALOGUE_SCHEMA}` } } },
          },
        },
      },
    };
  }
  return view;
}

function resolvePointer(doc: unknown, ref: string): unknown {
  let node = doc;
  for (const raw of ref.slice(2).split('/')) {
    const token = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    node = isObject(node) || Array.isArray(node) ? (node as Record<string, unknown>)[token] : undefined;
  }
  return node;
}

/** Every local `$ref` reachable from node (through the components it reaches), added to refs. */
function collectRefs(doc: OpenApiDocument, node: unknown, refs: Set<string>): void {
  if (Array.isArray(node)) {
    for (const item of node) collectRefs(doc, item, refs);
  } else if (isObject(node)) {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith('#/') && !refs.has(value)) {
        refs.add(value);
        collectRefs(doc, resolvePointer(doc, value), refs);
      } else {
        collectRefs(doc, value, refs);
      }
    }
  }
}

/** An operation with everything it reaches, as a string: equal strings, identical operations. */
function operationSignature(doc: OpenApiDocument, path: string, method: string): string | undefined {
  const item = doc.paths?.[path];
  const operation = item?.[method];
  if (!item || !isObject(operation)) return undefined;
  const own = { operation, parameters: item.parameters, servers: item.servers, security: doc.security };
  const refs = new Set<string>();
  collectRefs(doc, own, refs);
  return JSON.stringify([own, [...refs].sort().map((ref) => [ref, resolvePointer(doc, ref)])]);
}

/** Keeps only the operations that differ (and the components they reach). Returns [kept, all] operation counts. */
function dropUnchanged(base: OpenApiDocument, head: OpenApiDocument): [number, number] {
  const keys = new Set<string>();
  for (const doc of [base, head]) {
    for (const [path, item] of Object.entries(doc.paths ?? {})) {
      for (const method of METHODS) if (isObject(item[method])) keys.add(`${method} ${path}`);
    }
  }
  let kept = 0;
  for (const key of keys) {
    const [method, path] = [key.slice(0, key.indexOf(' ')), key.slice(key.indexOf(' ') + 1)];
    if (operationSignature(base, path, method) !== operationSignature(head, path, method)) {
      kept++;
      continue;
    }
    for (const doc of [base, head]) {
      const item = doc.paths![path]!;
      delete item[method];
      if (!METHODS.some((m) => m in item)) delete doc.paths![path];
    }
  }
  for (const doc of [base, head]) pruneComponents(doc);
  return [kept, keys.size];
}

/** Drops the components no remaining operation reaches (security schemes are named, not referenced: all kept). */
function pruneComponents(doc: OpenApiDocument): void {
  const refs = new Set<string>();
  collectRefs(doc, doc.paths, refs);
  const used = new Set([...refs].map((ref) => ref.split('/').slice(1, 4).join('/')));
  for (const [kind, entries] of Object.entries(doc.components ?? {})) {
    if (kind === 'securitySchemes') continue;
    for (const name of Object.keys(entries)) if (!used.has(`components/${kind}/${name}`)) delete entries[name];
  }
}

// ---- Optic

/** A breaking change: where (operation and part), Optic's message and the rule that found it. */
export interface BreakingChange {
  where: string;
  message: string;
  rule: string;
}
/** One operation's entry in the changelog. */
export interface OperationChange {
  label: string;
  change: 'added' | 'removed' | 'changed';
  details: string[];
}
export interface SpecDiff {
  baseVersion: string;
  headVersion: string;
  /** The head's major version is greater than the base's: breaking changes are allowed. */
  majorMoved: boolean;
  breaking: BreakingChange[];
  changes: OperationChange[];
  /** Operations (webhooks and the error catalogue included) handed to Optic, and in all. */
  compared: number;
  operations: number;
}

interface OpticAttribute {
  key: string;
  change: string;
  before?: unknown;
  after?: unknown;
}
interface OpticLog {
  name: string;
  change?: string;
  attributes: OpticAttribute[];
  contentTypes?: OpticLog[];
  headers?: OpticLog[];
}
interface OpticOperationLog extends OpticLog {
  parameters: OpticLog[];
  requestBody?: OpticLog;
  responses: OpticLog[];
}

/** Reads "/paths/{path}/{method}/..." pointers of a view: the label of the operation and what follows. */
function describePointer(doc: JsonObject, pointer: string): { label: string; rest: string } {
  const tokens = pointer
    .split('/')
    .slice(1)
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (tokens[0] !== 'paths' || tokens.length < 3) return { label: 'the document', rest: pointer };
  const [path, method] = [tokens[1]!, tokens[2]!];
  const operation = resolvePointer(doc, `#/paths/${tokens[1]!.replace(/~/g, '~0').replace(/\//g, '~1')}/${method}`);
  const label = operationLabel(path, method, isObject(operation) ? operation.operationId : undefined);
  const rest = tokens.slice(3);
  const parts: string[] = [];
  let i = 0;
  if (rest[0] === 'parameters' && rest[1] !== undefined) {
    const parameter =
      isObject(operation) && Array.isArray(operation.parameters)
        ? (operation.parameters as unknown[])[Number(rest[1])]
        : null;
    parts.push(isObject(parameter) ? `${String(parameter.in)} parameter ${String(parameter.name)}` : 'a parameter');
    i = 2;
  } else if (rest[0] === 'requestBody') {
    parts.push('request body');
    i = 1;
  } else if (rest[0] === 'responses' && rest[1] !== undefined) {
    parts.push(path.startsWith(WEBHOOK_PREFIX) ? 'payload' : `response ${rest[1]}`);
    i = 2;
  }
  if (rest[i] === 'content' && rest[i + 1] !== undefined) {
    parts.push(rest[i + 1]!);
    i += 2;
  } else if (rest[i] === 'headers' && rest[i + 1] !== undefined) {
    parts.push(`header ${rest[i + 1]!}`);
    i += 2;
  }
  const field = schemaTrail(rest.slice(i));
  if (field) parts.push(field);
  return { label, rest: parts.join(' ') };
}

/** "/schema/properties/content/properties/items/items/properties/id" -> "content.items[].id". */
function schemaTrail(tokens: string[]): string {
  if (tokens[0] === 'schema') tokens = tokens.slice(1);
  let out = '';
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token === 'properties' && tokens[i + 1] !== undefined) out += (out ? '.' : '') + tokens[++i]!;
    else if (token === 'items') out += '[]';
    else out += (out ? '/' : '') + token;
  }
  return out;
}

function operationLabel(path: string, method: string, operationId: unknown): string {
  if (path === CATALOGUE_PATH) return 'error catalogue (ErrorCode)';
  if (path.startsWith(WEBHOOK_PREFIX)) return `webhook ${path.slice(WEBHOOK_PREFIX.length)}`;
  return `${method.toUpperCase()} ${path}${typeof operationId === 'string' ? ` (${operationId})` : ''}`;
}

function formatValue(value: unknown): string {
  const text = JSON.stringify(value) ?? 'nothing';
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

const PROSE = new Set(['description', 'summary', 'example', 'examples', 'title']);

/** What changed between two values Optic reports, key by key: "maxLength 64 -> 80", "enum +a -b", "description changed". */
function describeChange(key: string, before: unknown, after: unknown): string[] {
  const name = key.split('.').at(-1)!;
  if (PROSE.has(name)) return [`${key} changed`];
  if (isObject(before) && isObject(after)) {
    // A property added to or removed from a nested object is a field of its own in Optic's changelog: not again here.
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((k) => k !== 'properties').sort();
    return keys.flatMap((k) => describeChange(key ? `${key}.${k}` : k, before[k], after[k]));
  }
  // Lists of values (enum, required) or of consts (a oneOf catalogue): what was added and removed.
  const member = (item: unknown) => (isObject(item) && 'const' in item ? item.const : item);
  const isList = (value: unknown) =>
    Array.isArray(value) && value.every((item) => typeof member(item) !== 'object' || member(item) === null);
  if (isList(before) && isList(after)) {
    const [from, to] = [(before as unknown[]).map(member), (after as unknown[]).map(member)];
    const added = to.filter((item) => !from.includes(item)).map((item) => `+${formatValue(item)}`);
    const removed = from.filter((item) => !to.includes(item)).map((item) => `-${formatValue(item)}`);
    return [`${key} ${[...added, ...removed].join(' ') || 'reordered'}`];
  }
  return [`${key || 'value'} ${formatValue(before)} -> ${formatValue(after)}`];
}

/** One line per attribute change of an Optic changelog entry. */
function attributeLines(prefix: string, attributes: OpticAttribute[]): string[] {
  return attributes.map((attribute) => {
    const where = [prefix, schemaTrail(attribute.key.split('/').filter(Boolean))].filter(Boolean).join(' ') || 'it';
    const required = (value: unknown) => (isObject(value) && value.required === true ? ' (required)' : '');
    if (attribute.change === 'added') return `${where} added${required(attribute.after)}`;
    if (attribute.change === 'removed') return `${where} removed`;
    if (!isObject(attribute.before) || !isObject(attribute.after)) {
      return describeChange(where, attribute.before, attribute.after).join(', ');
    }
    return `${where}: ${describeChange('', attribute.before, attribute.after).join(', ') || 'changed'}`;
  });
}

function changelogEntry(log: OpticOperationLog, operationIds: Map<string, unknown>): OperationChange {
  const space = log.name.indexOf(' ');
  const [method, path] = [log.name.slice(0, space).toLowerCase(), log.name.slice(space + 1)];
  const label = operationLabel(path, method, operationIds.get(`${method} ${path}`));
  const change = log.change === 'added' || log.change === 'removed' ? log.change : 'changed';
  const details: string[] = [];
  if (change === 'changed') {
    details.push(...attributeLines('', log.attributes));
    for (const parameter of log.parameters) details.push(...attributeLines(parameter.name, parameter.attributes));
    const body = log.requestBody;
    if (body) {
      details.push(...attributeLines('request body', body.attributes));
      for (const type of body.contentTypes ?? []) {
        details.push(...attributeLines(`request body ${type.name}`, type.attributes));
      }
    }
    for (const response of log.responses) {
      const name = path.startsWith(WEBHOOK_PREFIX) ? 'payload' : response.name.replace(/ response$/, '');
      const prefix = path.startsWith(WEBHOOK_PREFIX) ? 'payload' : `response ${name}`;
      if (response.change === 'added' || response.change === 'removed') {
        details.push(`${prefix} ${response.change}`);
        continue;
      }
      details.push(...attributeLines(prefix, response.attributes));
      for (const type of response.contentTypes ?? []) {
        details.push(...attributeLines(`${prefix} ${type.name}`, type.attributes));
      }
      for (const header of response.headers ?? []) {
        details.push(...attributeLines(`${prefix} ${header.name.replace(/^response /, '')}`, header.attributes));
      }
    }
  }
  return { label, change, details };
}

function operationIdsOf(doc: OpenApiDocument, into: Map<string, unknown>): void {
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const operation = item[method];
      if (isObject(operation)) into.set(`${method} ${path}`, operation.operationId);
    }
  }
}

/** Runs Optic's breaking-changes rules on two views (already reduced to what differs) in this process. */
async function runOptic(
  base: OpenApiDocument,
  head: OpenApiDocument,
): Promise<{ breaking: BreakingChange[]; changes: OperationChange[] }> {
  // Optic's telemetry (Sentry, Segment) is off in its npm build; these keep it off should that change, and the update
  // check is the CLI's (not loaded here).
  process.env.OPTIC_TELEMETRY_LEVEL = 'off';
  process.env.NO_UPDATE_NOTIFIER = '1';
  const [{ compute }, { loadSpec }, { jsonChangelog }] = await Promise.all([
    import('@useoptic/optic/build/commands/diff/compute.js'),
    import('@useoptic/optic/build/utils/spec-loaders.js'),
    import('@useoptic/optic/build/commands/diff/changelog-renderers/json-changelog.js'),
  ]);
  const dir = mkdtempSync(join(tmpdir(), 'onboard-spec-diff-'));
  try {
    const [basePath, headPath] = [join(dir, 'base.json'), join(dir, 'head.json')];
    writeFileSync(basePath, JSON.stringify(base));
    writeFileSync(headPath, JSON.stringify(head));
    // The CLI's defaults, without its start-up (config files, git, the update check).
    const config = {
      isDefaultConfig: true,
      root: dir,
      configPath: undefined,
      ruleset: undefined,
      isAuthenticated: false,
      isInCi: false,
    } as unknown as Parameters<typeof compute>[1];
    const options = { strict: false, denormalize: true };
    const [from, to] = await Promise.all([loadSpec(basePath, config, options), loadSpec(headPath, config, options)]);
    const result = await compute([from, to], config, { check: true, standard: rulesetPath, path: headPath });
    for (const warning of result.warnings) console.warn(`optic: ${warning}`);
    if (!result.standard.some((ruleset) => ruleset.name === 'breaking-changes')) {
      throw new Error(`Optic did not load the breaking-changes ruleset from ${relative(root, rulesetPath)}`);
    }
    // A removed operation or response also fails the rules for everything in it: one line says it, with the count.
    const failed = result.specResults.results.filter((r) => !r.passed && !r.exempted);
    const key = (r: (typeof failed)[number]) => `${r.location.spec} ${r.location.jsonPath}`;
    const roots = failed.filter((r) => !failed.some((o) => key(r).startsWith(`${key(o)}/`)));
    const breaking = roots.map((r) => {
      const doc = (r.location.spec === 'before' ? from.jsonLike : to.jsonLike) as unknown as JsonObject;
      const { label, rest } = describePointer(doc, r.location.jsonPath);
      const under = failed.filter((o) => key(o).startsWith(`${key(r)}/`)).length;
      const message = (r.error ?? r.where) + (under ? ` (and ${under} findings within it)` : '');
      return { where: rest ? `${label} ${rest}` : label, message, rule: r.name };
    });
    const operationIds = new Map<string, unknown>();
    operationIdsOf(base, operationIds);
    operationIdsOf(head, operationIds);
    const specs = { from: from.jsonLike, to: to.jsonLike } as Parameters<typeof jsonChangelog>[0];
    const logs = jsonChangelog(specs, result.changelogData) as {
      operations: OpticOperationLog[];
    };
    const changes = logs.operations.map((log) => changelogEntry(log, operationIds));
    return { breaking, changes };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Compares two bundled contracts under Optic's breaking-changes rules. */
export async function diffSpecs(baseDoc: OpenApiDocument, headDoc: OpenApiDocument): Promise<SpecDiff> {
  const [base, head] = [opticView(baseDoc), opticView(headDoc)];
  const [compared, operations] = dropUnchanged(base, head);
  const { breaking, changes } = compared === 0 ? { breaking: [], changes: [] } : await runOptic(base, head);
  const byLabel = (a: { label: string }, b: { label: string }) => a.label.localeCompare(b.label);
  return {
    baseVersion: baseDoc.info.version,
    headVersion: headDoc.info.version,
    majorMoved: parseVersion(headDoc.info.version)[0] > parseVersion(baseDoc.info.version)[0],
    breaking: breaking.sort((a, b) => a.where.localeCompare(b.where) || a.message.localeCompare(b.message)),
    changes: changes.sort(byLabel),
    compared,
    operations,
  };
}

/** The verdict: problems that fail the check (one line each) and what to say otherwise. */
export function verdict(diff: SpecDiff): { ok: boolean; lines: string[] } {
  const lines = diff.breaking.map((b) => `BREAKING ${b.where}: ${b.message} [${b.rule}]`);
  if (compareVersions(diff.headVersion, diff.baseVersion) < 0) {
    lines.push(`the bundle's version ${diff.headVersion} is lower than the release's ${diff.baseVersion}`);
    return { ok: false, lines };
  }
  if (diff.breaking.length === 0) return { ok: true, lines };
  const count = `${diff.breaking.length} breaking change${diff.breaking.length === 1 ? '' : 's'}`;
  if (diff.majorMoved) {
    lines.push(`${count}, allowed: the major version moved (${diff.baseVersion} -> ${diff.headVersion})`);
    return { ok: true, lines };
  }
  lines.push(
    `${count} since release ${diff.baseVersion} and the major version did not move (${diff.headVersion}): keep the ` +
      `contract compatible, or bump package.json's major version for a breaking release`,
  );
  return { ok: false, lines };
}

// ---- docs/api-changelog.md

const CHANGELOG_HEADER = `# API changelog

What changed in the contract (\`openapi/\`) since each release, generated from Optic's diff (the breaking-changes
rules of \`openapi/optic.yml\`) by \`npm run spec:diff\` and \`make generate\` (the Unreleased section) and by
\`npm run spec:release\` (a release's section). Do not edit: \`make lint\` fails when this file is not the one the
diff generates. How releases are cut and what the check does:
[architecture](architecture.md#contract-releases-and-the-breaking-change-check).
`;

/** The body of a changelog section: breaking changes first, then operations grouped by added, removed, changed. */
export function changelogBody(diff: SpecDiff): string {
  const out: string[] = [];
  if (diff.breaking.length > 0) {
    out.push(
      `Breaking changes${diff.majorMoved ? ` (major version ${diff.baseVersion} -> ${diff.headVersion})` : ''}:`,
      '',
    );
    for (const b of diff.breaking) out.push(`- ${b.where}: ${b.message} (${b.rule})`);
    out.push('');
  }
  for (const [change, title] of [
    ['added', 'Added'],
    ['removed', 'Removed'],
    ['changed', 'Changed'],
  ] as const) {
    const entries = diff.changes.filter((c) => c.change === change);
    if (entries.length === 0) continue;
    out.push(`${title}:`, '');
    for (const entry of entries) {
      out.push(`- ${entry.label}`);
      for (const detail of entry.details) out.push(`  - ${detail}`);
    }
    out.push('');
  }
  if (out.length === 0) out.push('No changes to the operations, webhooks or error catalogue.', '');
  return out.join('\n');
}

/** The changelog's first section: the bundle against the last release, rewritten by every spec:diff. */
export function unreleasedSection(diff: SpecDiff): string {
  return `## Unreleased\n\nThe bundled contract (version ${diff.headVersion}) against release ${diff.baseVersion} (\`${releaseTag(diff.baseVersion)}\`).\n\n${changelogBody(diff)}`;
}

/** A release's section, written once by spec:release and kept as it is afterwards. */
export function releaseSection(
  version: string,
  diff: SpecDiff | null,
  first?: { operations: number; webhooks: number },
): string {
  const title = `## ${version} (\`${releaseTag(version)}\`)\n\n`;
  if (!diff) return `${title}The first release: ${first?.operations} operations and ${first?.webhooks} webhooks.\n`;
  return `${title}Changes since release ${diff.baseVersion}.\n\n${changelogBody(diff)}`;
}

/** The released sections of the changelog as they are (everything from the first "## " heading but Unreleased). */
export function releasedSections(text: string): string[] {
  const sections = text.split(/^(?=## )/m).slice(1);
  return sections.filter((s) => !s.startsWith('## Unreleased')).map((s) => s.trimEnd() + '\n');
}

export function renderChangelog(unreleased: string, released: string[]): string {
  return [CHANGELOG_HEADER, unreleased.trimEnd() + '\n', ...released].join('\n');
}

// ---- the command

/**
 * make lint's verdict depends only on these files (and Optic's version): a clean one is remembered by their hash in
 * node_modules/.cache, as Spectral's is, so a repeat lint skips Optic until one changes (a change to what every
 * operation reaches, such as the Error envelope, costs Optic about a minute). CI's clean clone always runs it.
 */
function cleanDigest(release: Release): string {
  const hash = createHash('sha256');
  const inputs = [bundlePath, release.file, rulesetPath, changelogPath, fileURLToPath(import.meta.url)];
  for (const file of [...inputs, join(root, 'node_modules/@useoptic/optic/package.json')]) {
    hash.update(existsSync(file) ? readFileSync(file) : `missing ${file}`);
  }
  return hash.digest('hex');
}

function flag(argv: string[], name: string): string | undefined {
  const at = argv.indexOf(name);
  return at === -1 ? undefined : argv[at + 1];
}

async function main(argv: string[]): Promise<number> {
  const started = performance.now();
  const seconds = () => `${((performance.now() - started) / 1000).toFixed(1)} s`;
  const [baseFile, headFile] = [flag(argv, '--base'), flag(argv, '--head')];
  if (baseFile || headFile) {
    if (!baseFile || !headFile) throw new Error('--base and --head go together');
    const diff = await diffSpecs(readDocument(baseFile), readDocument(headFile));
    const { ok, lines } = verdict(diff);
    for (const line of lines) console.log(line);
    console.log(
      `spec:diff: ${ok ? 'passed' : 'FAILED'} (${diff.compared} of ${diff.operations} operations changed, ${seconds()})`,
    );
    return ok ? 0 : 1;
  }
  const check = argv.includes('--check');
  const changelogOnly = argv.includes('--changelog');
  // make lint and make generate bundle just before this runs.
  if (!check && !changelogOnly) bundleSpec();
  const release = listReleases().at(-1);
  const current = existsSync(changelogPath) ? readFileSync(changelogPath, 'utf8') : '';
  if (!release) {
    console.log('spec:diff: no release in openapi/releases yet (npm run spec:release makes one): nothing to compare');
    return 0;
  }
  console.log(`spec:diff: ${verifyReleaseTag(release)}`);
  const digest = check ? cleanDigest(release) : '';
  if (check && existsSync(CLEAN_STAMP) && readFileSync(CLEAN_STAMP, 'utf8') === digest) {
    console.log(`spec:diff: passed (bundle, release and changelog unchanged since the last clean check, ${seconds()})`);
    return 0;
  }
  const diff = await diffSpecs(readDocument(release.file), readDocument(bundlePath));
  const { ok, lines } = verdict(diff);
  for (const line of lines) console.log(line);
  const changelog = renderChangelog(unreleasedSection(diff), releasedSections(current));
  let stale = false;
  if (check) {
    stale = changelog !== current;
    if (stale) {
      console.log(
        `${relative(root, changelogPath)} is not the changelog the diff generates: run \`npm run spec:diff\` (or make generate) and commit it`,
      );
    }
  } else if (changelog !== current) {
    writeFileSync(changelogPath, changelog);
    console.log(`spec:diff: wrote ${relative(root, changelogPath)}`);
  }
  const failed = (!ok && !changelogOnly) || stale;
  if (check && !failed) {
    mkdirSync(dirname(CLEAN_STAMP), { recursive: true });
    writeFileSync(CLEAN_STAMP, digest);
  }
  console.log(
    `spec:diff: ${failed ? 'FAILED' : 'passed'}: bundle ${diff.headVersion} against release ${diff.baseVersion}, ` +
      `${diff.compared} of ${diff.operations} operations changed, ${diff.breaking.length} breaking (${seconds()})`,
  );
  return failed ? 1 : 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(`spec:diff: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(2);
    },
  );
}
