// Reads a V8 CPU profile (`node --cpu-prof`, a .cpuprofile file; open it whole in Chrome DevTools or speedscope for
// the flame graph) and prints where the time went: self time by area (an npm package, a folder of src/, node's own
// code, garbage collection, idle) and the functions with the most self time. The reading in bench/results/ quotes it.
//   npx tsx bench/profileSummary.ts <file.cpuprofile> [top N]
// Hand-written because the flame graph tools on npm (clinic, 0x) run the program themselves; this only summarises a
// profile node already wrote.
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Where a frame's code lives: `pkg:<name>`, `src/<folder>`, `node:<module>`, or V8's own pseudo-frames. */
export function areaOf(url: string, functionName: string): string {
  if (!url) return `(${functionName || 'anonymous'})`;
  const pkg = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (pkg) return `pkg:${pkg[1]}`;
  if (url.startsWith('node:')) return url;
  const src = url.match(/\/(src|bench|tests|generated)\/([^/]+)/);
  if (src) return `${src[1]}/${src[2]!.replace(/\.ts$/, '')}`;
  return url.replace(/^file:\/\//, '');
}

export function summarise(profile: CpuProfile, top = 25): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
  const areas = new Map<string, number>();
  const functions = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const area = areaOf(url, functionName);
    areas.set(area, (areas.get(area) ?? 0) + us);
    const fn = `${functionName || '(anonymous)'} ${url ? `${area}:${lineNumber + 1}` : ''}`.trim();
    functions.set(fn, (functions.get(fn) ?? 0) + us);
  }
  const table = (title: string, rows: Map<string, number>) => {
    const sorted = [...rows].sort((a, b) => b[1] - a[1]).slice(0, top);
    return [
      `| ${title} | self ms | share |`,
      '|---|---:|---:|',
      ...sorted.map(
        ([k, us]) => `| ${k.replace(/\|/g, '\\|')} | ${(us / 1000).toFixed(0)} | ${((100 * us) / total).toFixed(1)}% |`,
      ),
    ].join('\n');
  };
  return [
    `Profile: ${(total / 1e6).toFixed(1)} s sampled.`,
    '',
    table('area', areas),
    '',
    table('function', functions),
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [file, top] = process.argv.slice(2);
  if (!file) {
    console.error('usage: npx tsx bench/profileSummary.ts <file.cpuprofile> [top N]');
    process.exit(2);
  }
  console.log(summarise(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, top ? Number(top) : 25));
}
