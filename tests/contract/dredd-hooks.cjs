// Dredd hooks (CommonJS: dredd loads hooks with require). Dredd turns every documented status of every operation
// into a transaction; it can only make the happy path happen, so we keep the 2xx transactions of the operations
// dredd.test.ts lists (DREDD_TESTED_OPERATIONS: built, and reproducible from examples) and skip the rest (the test
// hands dredd a document with only those, so this skips nothing unless the two disagree). Each kept
// transaction gets fresh credentials from the test's oracle (DREDD_CREDENTIALS_ORACLE): DPoP proofs are single use. Dredd's OAS3 support checks the
// status, headers and the presence of the example's keys, not the body schema: response_schema_conformance comes
// from the Prism proxy test and the fuzzer.
const hooks = require('hooks');

const tested = JSON.parse(process.env.DREDD_TESTED_OPERATIONS || '{}');
const oracle = process.env.DREDD_CREDENTIALS_ORACLE;

hooks.beforeEach((transaction, done) => {
  const status = Number(transaction.expected.statusCode);
  const operationId = tested[`${transaction.request.method} ${transaction.origin.resourceName}`];
  if (status < 200 || status >= 300 || !operationId) {
    transaction.skip = true;
    return done();
  }
  const query = new URLSearchParams({
    operationId,
    method: transaction.request.method,
    path: transaction.fullPath.split('?')[0],
  });
  fetch(`${oracle}?${query}`)
    .then((res) => res.json())
    .then((headers) => {
      Object.assign(transaction.request.headers, headers);
      done();
    })
    .catch((err) => {
      transaction.fail = `no credentials: ${err}`;
      done();
    });
});

// Headers the contract documents as conditional (RateLimit-* only on operations behind an API key,
// Access-Control-Allow-Origin only for an allowed browser Origin); dredd expects every documented header, although an
// OpenAPI header is optional unless `required`. Their presence where they apply is tested in tests/integration/limits
// and the gate's CORS tests.
const CONDITIONAL_HEADERS = [
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
  'access-control-allow-origin',
];

// Express answers `application/json; charset=utf-8`; dredd compares the media type literally.
hooks.beforeEachValidation((transaction, done) => {
  const headers = transaction.real && transaction.real.headers;
  if (headers && typeof headers['content-type'] === 'string') {
    headers['content-type'] = headers['content-type'].split(';')[0].trim();
  }
  const expected = transaction.expected && transaction.expected.headers;
  if (expected) {
    for (const name of Object.keys(expected))
      if (CONDITIONAL_HEADERS.includes(name.toLowerCase())) delete expected[name];
  }
  done();
});

// Each tested transaction's result, written synchronously: dredd may exit before its own summary reaches a pipe.
const fs = require('fs');
hooks.afterEach((transaction, done) => {
  if (!transaction.skip && process.env.DREDD_RESULTS_FILE) {
    const status = transaction.test && transaction.test.status ? transaction.test.status : 'unknown';
    fs.appendFileSync(
      process.env.DREDD_RESULTS_FILE,
      `${status} ${transaction.request.method} ${transaction.origin.resourceName}\n`,
    );
  }
  done();
});
