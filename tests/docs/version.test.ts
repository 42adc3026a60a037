// One version from one place (issue #14, item 9): package.json's. The bundled contract takes it (scripts/spec.ts) and
// /health answers it (src/service.ts reads package.json).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../src/paths';

test("the contract's version is package.json's", () => {
  const pkg = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { version: string };
  const spec = JSON.parse(readFileSync(join(projectRoot, 'openapi/dist/openapi.json'), 'utf8')) as {
    info: { version: string };
  };
  assert.match(pkg.version, /^\d+\.\d+\.\d+/);
  assert.equal(spec.info.version, pkg.version);
});
