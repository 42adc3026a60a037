// A node:test reporter that writes how long each test file took (test-output/test-times.md, slowest first), so that
// a slow CI run says where its time went. Used beside the spec reporter by scripts/test.ts (TEST_TIMES_FILE names the
// file of each pass).
//
// Each file runs in its own process; its events reach this reporter as the child prints them, so a file's span is
// taken from the first event's start (arrival time minus its duration) to the last event's arrival. It runs from the
// project's root (scripts/test.ts starts the runner there) and imports nothing of the project: node loads reporters
// before tsx's resolver is in place.
const projectRoot = process.cwd();
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

interface TestEvent {
  type: string;
  data?: { file?: string; nesting?: number; details?: { duration_ms?: number } };
}

interface Span {
  start: number;
  end: number;
  tests: number;
}

export default async function* testTimes(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  const spans = new Map<string, Span>();
  const runStart = Date.now();
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const file = event.data?.file;
    if (!file || event.data?.nesting !== 0) continue;
    const now = Date.now();
    const start = now - (event.data.details?.duration_ms ?? 0);
    const span = spans.get(file) ?? { start, end: now, tests: 0 };
    span.start = Math.min(span.start, start);
    span.end = Math.max(span.end, now);
    span.tests += 1;
    spans.set(file, span);
  }
  const rows = [...spans.entries()]
    .map(([file, s]) => ({ file: relative(projectRoot, file), seconds: (s.end - s.start) / 1000, tests: s.tests }))
    .sort((a, b) => b.seconds - a.seconds);
  const total = rows.reduce((sum, r) => sum + r.seconds, 0);
  const lines = [
    '# Test files by time',
    '',
    `Run of ${new Date(runStart).toISOString()}: ${rows.length} files, ${Math.round((Date.now() - runStart) / 1000)} s` +
      ` wall, ${Math.round(total)} s summed over files (several run at once: TEST_CONCURRENCY).`,
    '',
    '| seconds | top-level tests | file |',
    '|---:|---:|---|',
    ...rows.map((r) => `| ${r.seconds.toFixed(1)} | ${r.tests} | ${r.file} |`),
    '',
  ];
  const dir = join(projectRoot, 'test-output');
  mkdirSync(dir, { recursive: true });
  const name = process.env.TEST_TIMES_FILE ?? 'test-times.md';
  writeFileSync(join(dir, name), lines.join('\n'));
  yield `\n(test-output/${name}: the ${Math.min(rows.length, 5)} slowest files: ${rows
    .slice(0, 5)
    .map((r) => `${r.file} ${Math.round(r.seconds)} s`)
    .join(', ')})\n`;
}
