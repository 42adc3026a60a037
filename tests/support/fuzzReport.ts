// The contract fuzzer's report (issue 22, conformance at volume): per operation, how many cases ran, how many answered
// 5xx, and per check (schemathesis' names) how many responses it judged and the violations it found. Violations are
// the `check: detail` strings the fuzzer collects; one with no known check name counts under `other`.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../src/paths';

export const REPORT_DIR = join(projectRoot, 'test-output', 'conformance');

interface OperationTally {
  cases: number;
  serverErrors: number;
  checks: Record<string, { judged: number; violations: number }>;
}

export class FuzzReport {
  private readonly tallies = new Map<string, OperationTally>();

  constructor(operationIds: readonly string[]) {
    for (const id of operationIds) this.tallies.set(id, { cases: 0, serverErrors: 0, checks: {} });
  }

  /** One case of `id`: its answer's status, the checks it was judged by and the violations found. */
  record(id: string, checks: readonly string[], status: number, violations: readonly string[]): void {
    const tally = this.tallies.get(id)!;
    tally.cases++;
    if (status >= 500 && status !== 501) tally.serverErrors++;
    for (const check of checks) (tally.checks[check] ??= { judged: 0, violations: 0 }).judged++;
    for (const v of violations) {
      const name = v.split(':')[0]!;
      const check = checks.includes(name) || name === 'error_catalogue' ? name : 'other';
      (tally.checks[check] ??= { judged: 0, violations: 0 }).violations++;
    }
  }

  /** The fewest cases any operation ran. */
  minCases(): number {
    return Math.min(...[...this.tallies.values()].map((t) => t.cases));
  }

  totals(): { operations: number; cases: number; serverErrors: number; violations: number } {
    let cases = 0;
    let serverErrors = 0;
    let violations = 0;
    for (const t of this.tallies.values()) {
      cases += t.cases;
      serverErrors += t.serverErrors;
      for (const c of Object.values(t.checks)) violations += c.violations;
    }
    return { operations: this.tallies.size, cases, serverErrors, violations };
  }

  /** Writes fuzz-report.json and fuzz-report.md under test-output/conformance/. */
  write(): { files: string[]; summary: string } {
    mkdirSync(REPORT_DIR, { recursive: true });
    const totals = this.totals();
    const summary = `${totals.operations} operations, ${totals.cases} cases (at least ${this.minCases()} each), ${totals.serverErrors} 5xx, ${totals.violations} violations`;
    const operations = Object.fromEntries([...this.tallies].sort(([a], [b]) => a.localeCompare(b)));
    const json = join(REPORT_DIR, 'fuzz-report.json');
    writeFileSync(
      json,
      `${JSON.stringify({ summary: totals, minCasesPerOperation: this.minCases(), operations }, null, 2)}\n`,
    );
    const checkNames = [...new Set([...this.tallies.values()].flatMap((t) => Object.keys(t.checks)))].sort();
    const lines = [
      '# Contract fuzzing report',
      '',
      summary,
      '',
      `| operation | cases | 5xx | ${checkNames.join(' | ')} |`,
      `|---|---:|---:|${checkNames.map(() => '---:').join('|')}|`,
      ...Object.entries(operations).map(
        ([id, t]) =>
          `| ${id} | ${t.cases} | ${t.serverErrors} | ${checkNames
            .map((c) => (t.checks[c] ? `${t.checks[c].judged}/${t.checks[c].violations}` : '-'))
            .join(' | ')} |`,
      ),
      '',
      'Each check column: responses judged / violations.',
      '',
    ];
    const md = join(REPORT_DIR, 'fuzz-report.md');
    writeFileSync(md, lines.join('\n'));
    return { files: [json, md], summary };
  }
}
