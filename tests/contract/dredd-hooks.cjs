// Dredd hooks (CommonJS: dredd loads hooks with require). Dredd turns every documented status of every operation
// into a transaction; it can only make the happy path happen, so we keep the 2xx transactions of operations that
// are built (DREDD_BUILT_OPERATIONS, from the handler registry) and skip the rest. Dredd's OAS3 support checks the
// status, headers and the presence of the example's keys, not the body schema: response_schema_conformance comes
// from the Prism proxy test and the fuzzer.
const hooks = require('hooks');

const built = new Set(JSON.parse(process.env.DREDD_BUILT_OPERATIONS || '[]'));
const credentials = JSON.parse(process.env.DREDD_CREDENTIALS || '{}');

hooks.beforeEach((transaction, done) => {
  const status = Number(transaction.expected.statusCode);
  const key = `${transaction.request.method} ${transaction.origin.resourceName}`;
  if (status < 200 || status >= 300 || !built.has(key)) {
    transaction.skip = true;
  } else {
    Object.assign(transaction.request.headers, credentials[key] || {});
  }
  done();
});

// Express answers `application/json; charset=utf-8`; dredd compares the media type literally.
hooks.beforeEachValidation((transaction, done) => {
  const headers = transaction.real && transaction.real.headers;
  if (headers && typeof headers['content-type'] === 'string') {
    headers['content-type'] = headers['content-type'].split(';')[0].trim();
  }
  done();
});

// Each tested transaction's result, written synchronously: dredd may exit before its own summary reaches a pipe.
const fs = require('fs');
hooks.afterEach((transaction, done) => {
  if (!transaction.skip && process.env.DREDD_RESULTS_FILE) {
    const status = transaction.test && transaction.test.status ? transaction.test.status : 'unknown';
    fs.appendFileSync(process.env.DREDD_RESULTS_FILE, `${status} ${transaction.request.method} ${transaction.origin.resourceName}\n`);
  }
  done();
});
