// Where the CPU of a whole run goes, process by process.
//   - Loaded into every Node process of a run through NODE_OPTIONS="--import ./bench/processCpu.mjs" (plain
//     JavaScript, so that it loads before any TypeScript loader), it appends one JSON line per process at its exit
//     to PROCESS_CPU_FILE: its command line, its CPU seconds (user and system, all threads) and its wall seconds. A
//     process killed with SIGKILL writes nothing.
//   - Run as `node bench/processCpu.mjs <file>`, it sums such a file by kind of process: test files by folder (a
//     bundled test file counts as its source, scripts/testBuild.ts), other processes by their script.
// Used for bench/results/2026-11-27-test-suite.md.
import console from 'node:console';
import { appendFileSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const file = process.env.PROCESS_CPU_FILE;
if (file) {
  process.on('exit', () => {
    const { user, system } = process.cpuUsage();
    const line = {
      argv: process.argv.slice(1).join(' ').slice(0, 300),
      cpuSeconds: (user + system) / 1e6,
      wallSeconds: performance.now() / 1000,
    };
    try {
      appendFileSync(file, `${JSON.stringify(line)}\n`);
    } catch {
      // a process exiting cannot do more than say nothing
    }
  });
}

/** What a process was: its script relative to the project (the bundle of a test file counts as the file). */
function kindOf(argv) {
  const script = argv
    .split(' ')[0]
    .replace(`${process.cwd()}/`, '')
    .replace(/^node_modules\/\.cache\/test-build\/run-\d+\/(.+)\.mjs$/, '$1');
  if (/\.test\.tsx?$/.test(script)) return `test files in ${script.split('/').slice(0, 2).join('/')}/`;
  return script;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const rows = readFileSync(process.argv[2], 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  const kinds = new Map();
  for (const row of rows) {
    const kind = kindOf(row.argv);
    const sum = kinds.get(kind) ?? { processes: 0, cpu: 0 };
    sum.processes += 1;
    sum.cpu += row.cpuSeconds;
    kinds.set(kind, sum);
  }
  const total = rows.reduce((s, r) => s + r.cpuSeconds, 0);
  console.log(`${rows.length} Node processes, ${total.toFixed(0)} CPU s\n`);
  console.log('| CPU s | processes | kind |\n|---:|---:|---|');
  for (const [kind, sum] of [...kinds].sort((a, b) => b[1].cpu - a[1].cpu).slice(0, 20))
    console.log(`| ${sum.cpu.toFixed(0)} | ${sum.processes} | ${kind} |`);
}
