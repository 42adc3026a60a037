// The operators' dashboard in browser tests: built once per process with Vite into a temporary folder (the service
// under test serves it through DASHBOARD_DIR, as `make run` serves dashboard/dist), and the checks every page gets:
// no console error or uncaught exception, and an axe scan (WCAG 2 A and AA rules) with no serious or critical
// violation.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { build } from 'vite';
import { projectRoot } from '../../src/paths';

let built: Promise<string> | undefined;

/** The dashboard's build directory (built on first use). */
export function buildDashboard(): Promise<string> {
  built ??= (async () => {
    const outDir = mkdtempSync(join(tmpdir(), 'onboard-dashboard-'));
    // Vite's build sets NODE_ENV=production for the whole process; the service under test must not see it.
    const nodeEnv = process.env.NODE_ENV;
    try {
      await build({
        configFile: join(projectRoot, 'dashboard', 'vite.config.ts'),
        logLevel: 'warn',
        build: { outDir, emptyOutDir: true, sourcemap: false },
      });
    } finally {
      if (nodeEnv === undefined) delete process.env.NODE_ENV;
      else process.env.NODE_ENV = nodeEnv;
    }
    return outDir;
  })();
  return built;
}

/**
 * Every console error and uncaught exception of `page`, as lines. One kind of line is not a problem: the browser's
 * own "Failed to load resource: ... 401" for a DPoP nonce challenge (RFC 9449 section 8: a page's first proof carries
 * no nonce, the service answers 401 use_dpop_nonce with one, and the client retries at once); only those exact
 * answers are let through, each checked by its WWW-Authenticate.
 */
export function watchConsole(page: Page): string[] {
  const problems: string[] = [];
  const nonceChallenges = new Set<string>();
  page.on('response', (response) => {
    if (response.status() === 401 && /error="use_dpop_nonce"/.test(response.headers()['www-authenticate'] ?? ''))
      nonceChallenges.add(response.url());
  });
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const challenge =
      /^Failed to load resource: the server responded with a status of 401/.test(message.text()) &&
      nonceChallenges.has(message.location().url);
    if (!challenge) problems.push(`${page.url()}: console.error ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`${page.url()}: uncaught ${error.message}`));
  return problems;
}

export interface AxeFinding {
  page: string;
  id: string;
  impact: string;
  help: string;
  targets: string[];
  /** What axe measured on the first node (e.g. the colours and ratio of a contrast failure). */
  data?: unknown;
}

/** The serious and critical WCAG 2 A/AA violations on the page as it is now. */
export async function seriousAxeViolations(page: Page, label: string): Promise<AxeFinding[]> {
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({
      page: label,
      id: v.id,
      impact: v.impact ?? 'unknown',
      help: v.help,
      targets: v.nodes.map((n) => n.target.join(' ')).slice(0, 5),
      data: v.nodes[0]?.any[0]?.data,
    }));
}
