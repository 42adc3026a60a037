// dredd against the live service, for the 2xx answers of every built operation (see dredd-hooks.cjs for what dredd
// checks and what it cannot).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { operations, type OperationId } from '../../generated/server/catalogue.gen';
import { createHandlers } from '../../src/operations/index';
import { isNotImplemented } from '../../src/operations/notImplemented';
import { projectRoot } from '../../src/paths';
import { headersFor, seedCredentials, type Credentials } from '../support/credentials';
import { startTestService, type TestService } from '../support/service';

describe('dredd', () => {
  let svc: TestService;
  let creds: Credentials;
  before(async () => {
    svc = await startTestService();
    creds = await seedCredentials(svc.deps.db);
  });
  after(async () => {
    await svc?.stop();
  });

  test('every built operation answers its documented 2xx', async () => {
    const handlers = createHandlers(svc.deps) as Record<OperationId, unknown>;
    const builtIds = (Object.keys(operations) as OperationId[]).filter((id) => !isNotImplemented(handlers[id]));
    const key = (id: OperationId) => `${operations[id].method.toUpperCase()} ${operations[id].path}`;
    const credentials = Object.fromEntries(builtIds.map((id) => [key(id), operations[id].security[0] ? headersFor(operations[id].security[0]!, creds) : {}]));
    const resultsFile = join(mkdtempSync(join(tmpdir(), 'onboard-dredd-')), 'results.txt');
    writeFileSync(resultsFile, '');
    // Asynchronous on purpose: the service under test runs in this process and must keep answering.
    const child = spawn(
      join(projectRoot, 'node_modules/.bin/dredd'),
      ['openapi/dist/openapi.json', svc.url, '--hookfiles=tests/contract/dredd-hooks.cjs', '--loglevel=warning', '--reporter=cli'],
      {
        cwd: projectRoot,
        env: { ...process.env, DREDD_BUILT_OPERATIONS: JSON.stringify(builtIds.map(key)), DREDD_CREDENTIALS: JSON.stringify(credentials), DREDD_RESULTS_FILE: resultsFile },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const status = await new Promise<number | null>((resolve) => child.once('close', resolve));
    const r = { status, stdout, stderr };
    const output = `${r.stdout}\n${r.stderr}`.replace(/\x1b\[[0-9;]*m/g, "");
    assert.equal(r.status, 0, output.slice(-3000));
    const results = readFileSync(resultsFile, 'utf8').trim().split('\n').filter(Boolean).sort();
    assert.deepEqual(results, builtIds.map((id) => `pass ${key(id)}`).sort(), output.split('\n').filter((l) => !l.startsWith('skip')).join('\n').slice(-1500));
  });
});
