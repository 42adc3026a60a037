// dredd against the live service, for the documented 2xx answer of every built operation that the contract's own
// examples can reproduce (see dredd-hooks.cjs for what dredd checks and what it cannot). Credentials come from a
// small HTTP oracle in this process: DPoP proofs are single use and name the request, so the hooks ask it for fresh
// headers (new live sessions, a new proof) per transaction.
//
// Left to the other suites (Prism proxy, fuzzer, integration tests), because dredd can only replay examples:
// operations with path parameters (their example ids name nothing stored), and the session steps that need a secret
// the example cannot hold or that end the session (DREDD_NEEDS_STATE).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { operations, type OperationId } from '../../generated/server/catalogue.gen';
import { createHandlers } from '../../src/operations/index';
import { isNotImplemented } from '../../src/operations/notImplemented';
import { projectRoot } from '../../src/paths';
import { headersFor, seedCredentials, withSessions, type SeededCredentials } from '../support/credentials';
import { startTestService, type TestService } from '../support/service';
import { spec, type Json } from '../support/spec';
import { stripVTControlCharacters } from 'node:util';

const DREDD_NEEDS_STATE: Partial<Record<OperationId, string>> = {
  verifyOperatorEmailSignIn: 'needs the code that was emailed',
  refreshOperatorSession: 'needs a live refresh token',
  signOutOperator: 'checked in tests/integration/operatorSessions.test.ts (ends the session)',
  verifySep10Challenge: 'needs a challenge signed by this service and by the wallet',
  createWalletSignInChallenge:
    'needs an app that turned Stellar wallet sign-in on (checked in tests/operations/sdk-auth/createWalletSignInChallenge.test.ts)',
  verifyWalletSignIn: 'needs a challenge signed by this service and by the wallet',
  verifyEmailSignIn: 'needs the code that was emailed',
  refreshSession: 'needs a live refresh token',
  introspectUserToken: 'needs a live access token in the body',
  fundWallet: 'needs an unfunded wallet of the app (its example key names none)',
  getWallet: "needs a user with a wallet; the suite's minted sessions are of users without one (404 WALLET_NOT_FOUND)",
  getWalletBalances:
    "needs a user with a wallet; the suite's minted sessions are of users without one (404 WALLET_NOT_FOUND)",
  getTxHistory:
    "needs a user with a wallet; the suite's minted sessions are of users without one (404 WALLET_NOT_FOUND)",
  buildTransaction: 'needs a funded wallet (checked in tests/integration/txScenario.test.ts and transactions.test.ts)',
  signTransaction:
    'needs a transaction of a wallet of the session user (checked in tests/integration/txScenario.test.ts)',
  submitTransaction:
    'needs a transaction signed by a wallet of the session user (checked in tests/integration/txScenario.test.ts)',
  runTransaction: 'needs a funded wallet (checked in tests/integration/txScenario.test.ts and transactions.test.ts)',
  listSessions: "dredd requires the example's optional userAgent and ip, which the suite's minted sessions lack",
  createAuthPolicyRow:
    "needs the example's contract deployed on localnet (checked in tests/operations/server/createAuthPolicyRow.test.ts)",
  createServerDistributionRule:
    "needs the example's asset configured for the app and a distribution wallet (checked in tests/operations/server/createServerDistributionRule.test.ts)",
  signAuthEntry:
    'needs a user with a wallet, an allowlist row and an entry for that wallet (checked in tests/operations/sdk-tx/signAuthEntry.test.ts)',
  startKycSession:
    "needs a provider the app offers (the example's sumsub is not supported yet; checked with the sandbox in tests/operations/sdk-kyc/startKycSession.test.ts)",
  createServerDistributionPush:
    "needs the example's asset configured for the app and a distribution wallet (checked in tests/operations/server/createServerDistributionPush.test.ts)",
  createRampQuote:
    "needs the example's provider (bridge) configured for the app with credentials and a user with a wallet (checked with each provider in tests/integration/ramps*.test.ts)",
  startRamp: 'needs a quote of the session user (checked in tests/integration/ramps*.test.ts)',
};

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/**
 * The contract as dredd gets it: only the operations it tests, each with only its 2xx answers (components whole).
 * Dredd turns every documented answer of every operation into a transaction, and the hooks would skip all but these;
 * handed only these, it parses and compiles a fraction of the document and runs the same transactions.
 */
function documentFor(tested: OperationId[]): Json {
  const paths: Json = {};
  for (const id of tested) {
    const { method, path } = operations[id];
    const item: Json = spec.paths[path];
    paths[path] ??= Object.fromEntries(Object.entries(item).filter(([key]) => !METHODS.includes(key)));
    const operation: Json = item[method];
    const responses = Object.fromEntries(Object.entries(operation.responses).filter(([status]) => /^2/.test(status)));
    paths[path][method] = { ...operation, responses };
  }
  return { ...spec, paths };
}

describe('dredd', () => {
  let svc: TestService;
  let creds: SeededCredentials;
  let oracle: Server;
  let oracleUrl: string;
  before(async () => {
    svc = await startTestService();
    creds = await seedCredentials(svc.deps.db);
    // GET /?operationId=…&method=…&path=… -> the headers for that request, with fresh sessions and a fresh proof
    oracle = createServer((req, res) => {
      const q = new URL(req.url ?? '/', 'http://oracle').searchParams;
      const id = q.get('operationId') as OperationId;
      const requirement = operations[id]?.security[0];
      const answer = async () =>
        requirement
          ? headersFor(requirement, await withSessions(svc.deps, creds), {
              method: q.get('method')!,
              url: svc.url + q.get('path')!,
            })
          : {};
      answer().then(
        (headers) => res.end(JSON.stringify(headers)),
        (err: unknown) => {
          res.statusCode = 500;
          res.end(String(err));
        },
      );
    });
    await new Promise<void>((resolve) => oracle.listen(0, '127.0.0.1', resolve));
    oracleUrl = `http://127.0.0.1:${(oracle.address() as AddressInfo).port}/`;
  });
  after(async () => {
    await new Promise((resolve) => oracle?.close(resolve));
    await svc?.stop();
  });

  // Dredd runs the tested operations in turn: about 9 s on a quiet machine, several times that in a loaded run; the
  // limit is kept well above both.
  test(
    'every built operation reproducible from examples answers its documented 2xx',
    { timeout: 300_000 },
    async () => {
      const handlers = createHandlers(svc.deps) as Record<OperationId, unknown>;
      const tested = (Object.keys(operations) as OperationId[]).filter(
        (id) => !isNotImplemented(handlers[id]) && !operations[id].path.includes('{') && !DREDD_NEEDS_STATE[id],
      );
      const key = (id: OperationId) => `${operations[id].method.toUpperCase()} ${operations[id].path}`;
      const dir = mkdtempSync(join(tmpdir(), 'onboard-dredd-'));
      const resultsFile = join(dir, 'results.txt');
      writeFileSync(resultsFile, '');
      const document = join(dir, 'openapi.json');
      writeFileSync(document, JSON.stringify(documentFor(tested)));
      // Asynchronous on purpose: the service under test (and the oracle) run in this process and must keep answering.
      const child = spawn(
        join(projectRoot, 'node_modules/.bin/dredd'),
        [document, svc.url, '--hookfiles=tests/contract/dredd-hooks.cjs', '--loglevel=warning', '--reporter=cli'],
        {
          cwd: projectRoot,
          env: {
            ...process.env,
            DREDD_TESTED_OPERATIONS: JSON.stringify(Object.fromEntries(tested.map((id) => [key(id), id]))),
            DREDD_CREDENTIALS_ORACLE: oracleUrl,
            DREDD_RESULTS_FILE: resultsFile,
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      const status = await new Promise<number | null>((resolve) => child.once('close', resolve));
      const output = stripVTControlCharacters(`${stdout}\n${stderr}`);
      assert.equal(
        status,
        0,
        output
          .split('\n')
          .filter((l) => !l.startsWith('skip'))
          .join('\n')
          .slice(-3000),
      );
      const results = readFileSync(resultsFile, 'utf8').trim().split('\n').filter(Boolean).sort();
      assert.deepEqual(
        results,
        tested.map((id) => `pass ${key(id)}`).sort(),
        output
          .split('\n')
          .filter((l) => !l.startsWith('skip'))
          .join('\n')
          .slice(-1500),
      );
    },
  );
});
