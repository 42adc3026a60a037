// The README is short and true: its status table lists every operation of the contract in its group with its real
// state (built or 501), it starts with the two set-up commands, and it stays within 150 lines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { operations } from '../../generated/server/catalogue.gen';
import { projectRoot } from '../../src/paths';
import { statusRows } from '../../scripts/status-table';

const readme = readFileSync(join(projectRoot, 'README.md'), 'utf8');

test('README status table: every operation once, in its group, built or 501 as the handler registry says', () => {
  const status = readme.slice(readme.indexOf('## Status'));
  const documented = new Map<string, string>();
  for (const m of status.matchAll(/^\| ([a-z-]+) \| ([^|]+) \| ([^|]+) \|$/gm)) {
    const group = m[1]!;
    if (group === 'group') continue; // the header row
    for (const [cell, state] of [
      [m[2]!, 'built'],
      [m[3]!, '501'],
    ] as const) {
      for (const id of cell.split(',').map((s) => s.trim())) {
        if (id === '-' || id === '') continue;
        assert.ok(!documented.has(id), `${id} is listed twice`);
        documented.set(id, `${group} ${state}`);
      }
    }
  }
  const expected = new Map(statusRows().map((r) => [r.id, `${operations[r.id].group} ${r.status}`]));
  assert.deepEqual(Object.fromEntries([...documented].sort()), Object.fromEntries([...expected].sort()));
});

test('README starts with the two set-up commands and stays within 150 lines', () => {
  const head = readme.slice(0, 1500);
  assert.match(head, /make run/);
  assert.match(head, /make test/);
  const lines = readme.split('\n').length - (readme.endsWith('\n') ? 1 : 0);
  assert.ok(lines <= 150, `README has ${lines} lines`);
});

test('every docs page the README links exists and has a table of contents whose links name its sections', () => {
  for (const [, file] of readme.matchAll(/\]\((docs\/[a-z-]+\.md)\)/g)) {
    const page = readFileSync(join(projectRoot, file!), 'utf8');
    assert.match(page, /\*\*Contents\*\*/, `${file} has no table of contents`);
    const anchors = [...page.matchAll(/^- \[[^\]]+\]\(#([a-z0-9-]+)\)$/gm)].map((m) => m[1]);
    const sections = [...page.matchAll(/^## (.+)$/gm)].map((m) =>
      m[1]!
        .toLowerCase()
        .replace(/[`*]/g, '')
        .replace(/[^a-z0-9 _-]/g, '')
        .trim()
        .replace(/ /g, '-'),
    );
    assert.ok(anchors.length > 0, `${file}: an empty table of contents`);
    assert.deepEqual(anchors, sections, `${file}: the contents do not match the sections`);
  }
});
