// The contract check (scripts/specDiff.ts, `npm run spec:diff`, make lint): on copies of the bundled contract, each
// breaking change fails it (naming the change) and additive changes pass, as does a breaking change whose major
// version moved. Optic's rules run for real (in process; two cases through the command, for its exit code).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from '../../src/paths';
import { diffSpecs, readDocument, verdict, type OpenApiDocument } from '../../scripts/specDiff';

const bundle = readDocument(join(projectRoot, 'openapi/dist/openapi.json'));

/**
 * The command on a breaking and on an additive copy, started when the file loads: the two processes run beside the
 * in-process cases (Optic's start-up costs each about two seconds), and the last test reads their outcome.
 */
const commandRuns = (async () => {
  const dir = mkdtempSync(join(tmpdir(), 'spec-diff-test-'));
  try {
    const breaking = structuredClone(bundle);
    delete breaking.paths!['/v1/wallet/balances'];
    const additive = structuredClone(bundle);
    const wallet = additive.components!.schemas!.Wallet as { properties: Record<string, unknown> };
    wallet.properties.label = { type: 'string', maxLength: 64 };
    const files = {
      base: join(dir, 'base.json'),
      breaking: join(dir, 'breaking.json'),
      additive: join(dir, 'add.json'),
    };
    writeFileSync(files.base, JSON.stringify(bundle));
    writeFileSync(files.breaking, JSON.stringify(breaking));
    writeFileSync(files.additive, JSON.stringify(additive));
    const run = (head: string) =>
      promisify(execFile)(
        process.execPath,
        ['--import', 'tsx', 'scripts/specDiff.ts', '--base', files.base, '--head', head],
        { cwd: projectRoot, timeout: 60_000 },
      ).then(
        ({ stdout }): { code: number | undefined; stdout: string } => ({ code: 0, stdout }),
        (err: { code?: number; stdout?: string }) => ({ code: err.code, stdout: err.stdout ?? '' }),
      );
    return await Promise.all([run(files.breaking), run(files.additive)]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
})();

/** A copy of the bundle changed by `edit`, and the check's verdict on it against the bundle. */
async function check(edit: (doc: OpenApiDocument) => void) {
  const head = structuredClone(bundle);
  edit(head);
  const diff = await diffSpecs(bundle, head);
  return { diff, ...verdict(diff) };
}

// The parts of the bundle the cases change, read untyped (the test fails loudly if the contract moved them).
type Any = any;
const at = (doc: OpenApiDocument, path: string, method: string): Any => {
  const operation = (doc.paths as Any)[path]?.[method];
  assert.ok(operation, `the bundle has ${method.toUpperCase()} ${path}`);
  return operation;
};
const fundWalletBody = (doc: OpenApiDocument): Any =>
  at(doc, '/v1/wallets/fund', 'post').requestBody.content['application/json'].schema;

function assertFails(result: { ok: boolean; lines: string[] }, line: RegExp): void {
  assert.equal(result.ok, false, `the check passed:\n${result.lines.join('\n')}`);
  assert.ok(
    result.lines.some((l) => l.startsWith('BREAKING ') && line.test(l)),
    `no line matches ${line}:\n${result.lines.join('\n')}`,
  );
}

test('(a) removing an operation fails, naming it', async () => {
  const result = await check((doc) => {
    at(doc, '/v1/wallet/balances', 'get');
    delete (doc.paths as Any)['/v1/wallet/balances'];
  });
  assertFails(result, /^BREAKING GET \/v1\/wallet\/balances \(getWalletBalances\): cannot remove an operation/);
  // The operation's own responses and fields are folded into that one line.
  assert.equal(result.diff.breaking.length, 1, result.lines.join('\n'));
});

test('(b) removing a response field fails', async () => {
  const result = await check((doc) => {
    const balance = (doc.components!.schemas as Any).Balance;
    assert.ok(balance.properties.available, 'Balance has `available`');
    delete balance.properties.available;
    balance.required = balance.required.filter((name: string) => name !== 'available');
  });
  assertFails(
    result,
    /GET \/v1\/wallet\/balances \(getWalletBalances\) response 200 application\/json content\.balances\[\]\.available: cannot remove response property 'available'/,
  );
});

test('(c) adding a required request field fails', async () => {
  const result = await check((doc) => {
    const body = fundWalletBody(doc);
    body.properties.memo = { type: 'string', maxLength: 28 };
    body.required = [...body.required, 'memo'];
  });
  assertFails(
    result,
    /POST \/v1\/wallets\/fund \(fundWallet\) request body application\/json memo: cannot add a required request property 'memo'/,
  );
});

test('(d) narrowing a type fails: string to integer, and a new enum on a string', async () => {
  const integer = await check((doc) => {
    fundWalletBody(doc).properties.publicKey = { type: 'integer' };
  });
  assertFails(integer, /POST \/v1\/wallets\/fund \(fundWallet\) request body application\/json publicKey: .*narrowed/);
  const enumerated = await check((doc) => {
    fundWalletBody(doc).properties.publicKey = {
      type: 'string',
      enum: ['GBZXN7PIRZGNMHGA7MUUUF4GWPY5AYPV6LY4UV2GL6VJGIQRXFDNMADI'],
    };
  });
  assertFails(
    enumerated,
    /POST \/v1\/wallets\/fund \(fundWallet\) .*publicKey: cannot add enum or const to request property/,
  );
});

test('(e) an optional response field, a new operation, an optional input and a new error code pass', async () => {
  const result = await check((doc) => {
    (doc.components!.schemas as Any).Wallet.properties.label = { type: 'string', maxLength: 64 };
    fundWalletBody(doc).properties.note = { type: 'string', maxLength: 64 };
    (doc.components!.schemas as Any).ErrorCode.oneOf.push({ const: 'TEST_ONLY_CODE', 'x-status': 400 });
    (doc.paths as Any)['/v1/wallet/labels'] = {
      post: {
        operationId: 'createWalletLabel',
        parameters: [{ name: 'scope', in: 'query', required: true, schema: { type: 'string' } }],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: { type: 'object', required: ['label'], properties: { label: { type: 'string' } } },
            },
          },
        },
        responses: { '201': { description: 'Created' } },
      },
    };
  });
  assert.equal(result.ok, true, result.lines.join('\n'));
  assert.deepEqual(result.diff.breaking, []);
  // The diff saw the changes (a check that compared nothing would pass too).
  const entry = (label: string) => result.diff.changes.find((c) => c.label === label);
  assert.equal(entry('POST /v1/wallet/labels (createWalletLabel)')?.change, 'added');
  assert.ok(entry('GET /v1/wallet (getWallet)')?.details.some((d) => /content\.label added/.test(d)));
  assert.ok(entry('POST /v1/wallets/fund (fundWallet)')?.details.some((d) => /note added/.test(d)));
  assert.ok(entry('error catalogue (ErrorCode)')?.details.some((d) => d.includes('+"TEST_ONLY_CODE"')));
});

test('(f) a breaking change passes when the major version moves (0.x -> 1.0.0), and is still listed', async () => {
  const base = structuredClone(bundle);
  base.info.version = '0.1.0';
  const head = structuredClone(bundle);
  head.info.version = '1.0.0';
  delete (head.paths as Any)['/v1/wallet/balances'];
  const diff = await diffSpecs(base, head);
  const result = verdict(diff);
  assert.equal(result.ok, true, result.lines.join('\n'));
  assert.match(result.lines.join('\n'), /BREAKING GET \/v1\/wallet\/balances \(getWalletBalances\): cannot remove/);
  assert.match(result.lines.at(-1)!, /allowed: the major version moved \(0\.1\.0 -> 1\.0\.0\)/);
  // A minor bump is not enough.
  head.info.version = '0.2.0';
  assert.equal(verdict(await diffSpecs(base, head)).ok, false);
});

test('the command exits 1 on a breaking change, naming it, and 0 on an additive one', async () => {
  const [failing, passing] = await commandRuns;
  assert.equal(failing.code, 1, failing.stdout);
  assert.match(
    failing.stdout,
    /^BREAKING GET \/v1\/wallet\/balances \(getWalletBalances\): cannot remove an operation/m,
  );
  assert.match(failing.stdout, /spec:diff: FAILED/);
  assert.equal(passing.code, 0, passing.stdout);
  assert.doesNotMatch(passing.stdout, /BREAKING/);
  assert.match(passing.stdout, /spec:diff: passed/);
});
