// Every built operation has its tests at tests/operations/<group>/<operationId>.test.ts, and every test file there
// names an operation of its group: an operationId leads straight to its tests, and a renamed or moved operation
// cannot leave its tests behind. (A 501 operation needs no file; its answer is checked by the contract suite.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { operations } from '../../generated/server/catalogue.gen';
import { statusRows } from '../../scripts/status-table';

const ROOT = join(import.meta.dirname, '..', '..');
const DIR = join(ROOT, 'tests', 'operations');

type Row = { id: string; group: string; built: boolean };

/** What is wrong between the operations and the test files (paths relative to the repository), or nothing. */
function operationTestProblems(rows: Row[], testFiles: string[]): string[] {
  const pathOf = (r: Row) => `tests/operations/${r.group}/${r.id}.test.ts`;
  const files = new Set(testFiles);
  const known = new Set(rows.map(pathOf));
  return [
    ...rows.filter((r) => r.built && !files.has(pathOf(r))).map((r) => `${r.id} is built but ${pathOf(r)} is missing`),
    ...testFiles
      .filter((f) => !known.has(f))
      .map(
        (f) =>
          `${f} names no operation of its group (renamed or moved? tests of several operations go in the files of those operations)`,
      ),
  ];
}

/** The per-operation test files: tests/operations/<group>/<name>.test.ts (set-up modules are not test files). */
function testFilesOnDisk(): string[] {
  return readdirSync(DIR, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) =>
      readdirSync(join(DIR, d.name))
        .filter((f) => f.endsWith('.test.ts'))
        .map((f) => relative(ROOT, join(DIR, d.name, f))),
    );
}

function rowsOfThisService(): Row[] {
  return statusRows().map((r) => ({
    id: r.id,
    group: operations[r.id].group,
    built: r.status === 'built',
  }));
}

test('every built operation has tests/operations/<group>/<operationId>.test.ts, and no file there names something else', () => {
  const rows = rowsOfThisService();
  assert.ok(rows.filter((r) => r.built).length > 50, 'the handler registry was read');
  assert.deepEqual(operationTestProblems(rows, testFilesOnDisk()), []);
});

test('the check fails for a built operation without a file, and for a file of an unknown or moved operation', () => {
  const rows: Row[] = [
    { id: 'createApp', group: 'dashboard-apps', built: true },
    { id: 'getApp', group: 'dashboard-apps', built: true },
    { id: 'listWebhookEvents', group: 'dashboard-webhooks', built: false },
  ];
  const files = [
    'tests/operations/dashboard-apps/createApp.test.ts',
    'tests/operations/dashboard-apps/createApplication.test.ts',
    'tests/operations/sdk-auth/getApp.test.ts',
  ];
  assert.deepEqual(operationTestProblems(rows, files), [
    'getApp is built but tests/operations/dashboard-apps/getApp.test.ts is missing',
    'tests/operations/dashboard-apps/createApplication.test.ts names no operation of its group (renamed or moved? tests of several operations go in the files of those operations)',
    'tests/operations/sdk-auth/getApp.test.ts names no operation of its group (renamed or moved? tests of several operations go in the files of those operations)',
  ]);
  // A 501 operation needs no file, and may have one.
  assert.deepEqual(operationTestProblems(rows.slice(0, 1), files.slice(0, 1)), []);
});
