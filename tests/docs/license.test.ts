// The project is open source under Apache-2.0 (issue #14, item 10): the LICENSE file at the root, `license` in every
// package.json (the service and each sdk package), and the contract's info.license say the same.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../src/paths';

const json = (path: string) => JSON.parse(readFileSync(join(projectRoot, path), 'utf8')) as Record<string, any>;

test('Apache-2.0 everywhere: LICENSE, every package.json, the contract', () => {
  const license = readFileSync(join(projectRoot, 'LICENSE'), 'utf8');
  assert.match(license, /^Apache License\s+Version 2\.0, January 2004/);
  assert.match(license, /END OF TERMS AND CONDITIONS/);
  const packages = ['package.json', ...readdirSync(join(projectRoot, 'sdk')).map((d) => `sdk/${d}/package.json`)];
  for (const p of packages) assert.equal(json(p).license, 'Apache-2.0', p);
  const spec = json('openapi/dist/openapi.json');
  assert.deepEqual(spec.info.license, { name: 'Apache-2.0', identifier: 'Apache-2.0' });
});
