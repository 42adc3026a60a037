// The README's status table lists every operation of the contract with its real state (built or 501).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../src/paths';
import { statusRows } from '../../scripts/status-table';

test('README status table matches the contract and the handler registry', () => {
  const readme = readFileSync(join(projectRoot, 'README.md'), 'utf8');
  const documented = new Map<string, string>();
  for (const m of readme.matchAll(/^\| (\w+) \| `([A-Z]+ [^`]+)` \| (built|501) \|$/gm))
    documented.set(m[1]!, `${m[2]} ${m[3]}`);
  const expected = new Map(statusRows().map((r) => [r.id, `${r.route} ${r.status}`]));
  assert.deepEqual(Object.fromEntries(documented), Object.fromEntries(expected));
});

test('README starts with the two set-up commands', () => {
  const readme = readFileSync(join(projectRoot, 'README.md'), 'utf8');
  const head = readme.slice(0, 1500);
  assert.match(head, /make run/);
  assert.match(head, /make test/);
});
