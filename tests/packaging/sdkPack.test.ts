// Publishable sdk packages (issue 14, item 7): every sdk/<package> is packed as npm would publish it (`npm pack`, which
// builds dist/ through `prepack`), the tarballs are installed into an empty project outside the repository, and a plain
// ESM script there calls the Prism mock through the installed package, while tsc checks a TypeScript consumer against
// the packed declarations (module NodeNext, as a Node user compiles), and a browser app using @onboard/react (with
// React from the registry) type-checks in a strict project of its own and bundles with Vite. The tarball must hold its
// build, its LICENSE and nothing that points outside it: every relative import of its JavaScript and declarations
// resolves inside, every bare import is a dependency or peer dependency.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve as resolvePath, sep } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'vite';
import { projectRoot } from '../../src/paths';
import { sampleCredentials } from '../support/credentials';
import { startPrism, type Prism } from '../support/prism';
import { operationObject } from '../support/spec';

const run = promisify(execFile);

interface Manifest {
  name: string;
  private?: boolean;
  license?: string;
  main?: string;
  types?: string;
  exports?: Record<string, { types?: string; import?: string } | string>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}
/** An envelope example of the contract. */
interface Example {
  code: string;
  content?: unknown;
  message?: string;
}

/** npm as the test was started with (`npm test` sets npm_execpath), else the npm on PATH. */
function npm(args: string[], cwd: string): Promise<{ stdout: string; stderr: string }> {
  const execPath = process.env.npm_execpath;
  const [cmd, argv] = execPath && /\.c?js$/.test(execPath) ? [process.execPath, [execPath, ...args]] : ['npm', args];
  return run(cmd, argv, {
    cwd,
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });
}

interface Packed {
  dir: string;
  manifest: Manifest;
  tarball: string;
  files: string[];
}

const packageDirs = readdirSync(join(projectRoot, 'sdk'))
  .map((name) => join(projectRoot, 'sdk', name))
  .filter((dir) => existsSync(join(dir, 'package.json')));

/** The code of a JavaScript or declaration file without its comments (a comment may show an import to readers). */
function withoutComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
}

/** Relative module specifiers of a JavaScript or declaration file (static imports and exports, dynamic imports). */
function relativeSpecifiers(source: string): string[] {
  const found: string[] = [];
  for (const m of source.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s*)['"](\.{1,2}\/[^'"]+)['"]/gm))
    found.push(m[1]!);
  return found;
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

describe('sdk packages as npm publishes them', () => {
  let work: string;
  let consumer: string;
  let prism: Prism;
  const packed: Packed[] = [];

  before(async () => {
    assert.ok(packageDirs.length > 0, 'no sdk/<package>/package.json');
    work = mkdtempSync(join(tmpdir(), 'onboard-sdk-pack-'));
    const tarballs = join(work, 'tarballs');
    mkdirSync(tarballs);
    const prismStarted = startPrism('mock');
    for (const dir of packageDirs) {
      const { stdout } = await npm(['pack', '--json', '--pack-destination', tarballs], dir);
      const [info] = JSON.parse(stdout.slice(stdout.indexOf('['))) as { filename: string; files: { path: string }[] }[];
      packed.push({
        dir,
        manifest: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest,
        tarball: join(tarballs, info!.filename),
        files: info!.files.map((f) => f.path).sort(),
      });
    }
    consumer = join(work, 'consumer');
    mkdirSync(consumer);
    writeFileSync(
      join(consumer, 'package.json'),
      JSON.stringify({ name: 'sdk-consumer', private: true, type: 'module' }),
    );
    // React as an app has it (the peer of @onboard/react), from the registry or npm's cache.
    await npm(
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--prefer-offline',
        ...packed.map((p) => p.tarball),
        'react@19.3.1',
        'react-dom@19.3.1',
        '@types/react@19.3.0',
        '@types/react-dom@19.3.0',
      ],
      consumer,
    );
    prism = await prismStarted;
  });

  after(async () => {
    await prism?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('packs a build with its types, its LICENSE and nothing else', () => {
    const license = readFileSync(join(projectRoot, 'LICENSE'), 'utf8');
    for (const { dir, manifest, files } of packed) {
      const name = manifest.name;
      assert.equal(manifest.private, undefined, `${name}: private packages cannot be published`);
      assert.equal(manifest.license, 'Apache-2.0', name);
      assert.equal(
        readFileSync(join(dir, 'LICENSE'), 'utf8'),
        license,
        `${name}: LICENSE is a copy of the root LICENSE`,
      );
      assert.ok(files.includes('LICENSE'), `${name}: LICENSE packed`);
      // Besides the build: a stylesheet the package exports (@onboard/react/styles.css).
      const exported = Object.values(manifest.exports ?? {}).filter((t): t is string => typeof t === 'string');
      for (const f of files) {
        if (exported.includes(`./${f}`)) continue;
        assert.match(f, /^(dist\/.+\.(js|d\.ts)|package\.json|LICENSE|README\.md)$/, `${name}: unexpected file ${f}`);
      }
      const entry = manifest.exports?.['.'] as { types?: string; import?: string } | undefined;
      assert.ok(entry?.types && entry?.import, `${name}: exports["."] names types and import`);
      for (const target of [entry.types, entry.import, manifest.types, manifest.main]) {
        assert.ok(target && files.includes(target.replace(/^\.\//, '')), `${name}: ${target} is in the tarball`);
      }
    }
  });

  it('the installed packages reach nothing outside themselves', () => {
    for (const { manifest } of packed) {
      const root = join(consumer, 'node_modules', ...manifest.name.split('/'));
      const deps = [...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})];
      for (const file of walk(root).filter((f) => /\.(js|d\.ts)$/.test(f))) {
        const source = withoutComments(readFileSync(file, 'utf8'));
        const where = `${manifest.name}/${relative(root, file)}`;
        assert.doesNotMatch(source, /generated\/server|\/src\/domain\/|\.\.\/\.\.\/\.\.\/\.\.\//, where);
        for (const spec of relativeSpecifiers(source)) {
          const target = resolvePath(dirname(file), spec);
          assert.ok(target.startsWith(root + sep), `${where}: ${spec} points outside the package`);
          const declaration = file.endsWith('.d.ts') ? target.replace(/\.js$/, '.d.ts') : target;
          assert.ok(existsSync(declaration), `${where}: ${spec} does not resolve (${relative(root, declaration)})`);
        }
        // Bare imports are the package's declared dependencies (or node: builtins).
        for (const m of source.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s*)['"]([^./'"][^'"]*)['"]/gm)) {
          const bare = m[1]!;
          if (bare.startsWith('node:')) continue;
          const pkg = bare.startsWith('@') ? bare.split('/').slice(0, 2).join('/') : bare.split('/')[0]!;
          assert.ok(deps.includes(pkg), `${where}: imports ${bare}, which is not a dependency`);
        }
      }
    }
  });

  it('@onboard/core, installed from its tarball, calls the Prism mock', async () => {
    const script = join(consumer, 'call-mock.mjs');
    writeFileSync(
      script,
      `import { createOnboardClient } from '@onboard/core';
const [baseUrl, apiKey] = process.argv.slice(2);
const onboard = createOnboardClient({ baseUrl, apiKey });
const body = { publicKey: 'GCQ53WWRBL6HVSDNRMZKFZD7SP5DKYC6JFWSRLPQCVGD6Y42TYIN73Q2' };
const outcomes = {
  network: onboard.network,
  health: await onboard.getHealth(),
  funded: await onboard.fundWallet({ body }),
  conflict: await onboard.fundWallet({ body, headers: { Prefer: 'code=409' } }),
};
console.log(JSON.stringify(outcomes));
`,
    );
    const { stdout } = await run(process.execPath, [script, prism.url, sampleCredentials.secretKey], { cwd: consumer });
    const got = JSON.parse(stdout) as Record<'network' | 'health' | 'funded' | 'conflict', unknown>;
    const example = (id: 'getHealth' | 'fundWallet', status: string): Example => {
      const { op } = operationObject(id) as unknown as {
        op: { responses: Record<string, { content: Record<string, { example: Example }> }> };
      };
      return op.responses[status]!.content['application/json']!.example;
    };
    assert.equal(got.network, 'testnet');
    const health = example('getHealth', '200');
    assert.deepEqual(got.health, { ok: true, status: 200, code: health.code, content: health.content });
    const funded = example('fundWallet', '200');
    assert.deepEqual(got.funded, { ok: true, status: 200, code: funded.code, content: funded.content });
    const conflict = example('fundWallet', '409');
    assert.deepEqual(got.conflict, {
      ok: false,
      status: 409,
      code: 'WALLET_ALREADY_FUNDED',
      message: conflict.message,
      body: conflict,
    });
  });

  it('a TypeScript consumer (module NodeNext) type-checks against the packed declarations', async () => {
    writeFileSync(
      join(consumer, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          lib: ['ES2023', 'DOM', 'DOM.Iterable'],
          types: [],
          strict: true,
          noEmit: true,
          skipLibCheck: false,
        },
        files: ['consumer.ts'],
      }),
    );
    writeFileSync(
      join(consumer, 'consumer.ts'),
      `import { createOnboardClient, tx, type Failure, type OnboardClient, type Outcome } from '@onboard/core';
const onboard: OnboardClient = createOnboardClient({ baseUrl: 'http://127.0.0.1:1' });
const out = await onboard.fundWallet({ body: { publicKey: 'G...' } });
if (out.ok) {
  const publicKey: string = out.content.publicKey;
  void publicKey;
} else {
  const code: Failure['code'] = out.code;
  void code;
}
const health: Outcome<unknown> = await onboard.getHealth();
void health;
void tx.run;
// @ts-expect-error not an operation of the contract
void onboard.noSuchOperation;
// @ts-expect-error fundWallet needs its body
void onboard.fundWallet({});
`,
    );
    await run(
      process.execPath,
      [join(projectRoot, 'node_modules/typescript/bin/tsc'), '-p', join(consumer, 'tsconfig.json')],
      {
        cwd: consumer,
      },
    ).catch((err: { stdout?: string; stderr?: string }) => {
      assert.fail(`tsc on the consumer failed:\n${err.stdout ?? ''}${err.stderr ?? ''}`);
    });
  });

  it('a browser app with @onboard/react type-checks (strict, bundler resolution) and bundles with Vite', async () => {
    const app = join(consumer, 'web');
    mkdirSync(join(app, 'src'), { recursive: true });
    writeFileSync(
      join(app, 'src', 'main.ts'),
      `import { createElement } from 'react';
import { createRoot } from 'react-dom/client';
import { createOnboard, AUTH_ERROR_CODES, type AuthState } from '@onboard/core';
import { OnboardProvider, SignInForm, WalletCard, useAuth } from '@onboard/react';
import '@onboard/react/styles.css';
const client = createOnboard({ publishableKey: 'pub_testnet_${'A'.repeat(32)}', baseUrl: 'https://api.example.com' });
const first: AuthState = client.auth.get();
function Status() {
  return createElement('p', null, useAuth().state.step);
}
createRoot(document.getElementById('root')!).render(
  createElement(OnboardProvider, { client }, createElement(SignInForm), createElement(WalletCard), createElement(Status)),
);
console.log(first.step, AUTH_ERROR_CODES.size);
`,
    );
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'ESNext',
          moduleResolution: 'Bundler',
          lib: ['ES2023', 'DOM', 'DOM.Iterable'],
          types: [],
          strict: true,
          noEmit: true,
          skipLibCheck: false,
        },
        include: ['src'],
      }),
    );
    await run(process.execPath, [join(projectRoot, 'node_modules/typescript/bin/tsc'), '-p', app], { cwd: app }).catch(
      (err: { stdout?: string; stderr?: string }) => {
        assert.fail(`tsc on the web app failed:\n${err.stdout ?? ''}${err.stderr ?? ''}`);
      },
    );
    writeFileSync(join(app, 'index.html'), '<div id="root"></div><script type="module" src="/src/main.ts"></script>');
    await build({ configFile: false, root: app, logLevel: 'silent', build: { outDir: join(app, 'dist') } });
    const assets = readdirSync(join(app, 'dist', 'assets'));
    const js = assets.find((f) => f.endsWith('.js'));
    assert.ok(js, `a bundle was written: ${assets.join(', ')}`);
    assert.ok(
      assets.some((f) => f.endsWith('.css')),
      'the stylesheet was bundled',
    );
    const code = readFileSync(join(app, 'dist', 'assets', js), 'utf8');
    assert.doesNotMatch(code, /from\s*["']@onboard\//, 'every import was resolved into the bundle');
    assert.match(code, /x-service-api-key/);
  });
});
