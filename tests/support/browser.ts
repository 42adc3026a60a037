// Browser tests: Debian's Chromium driven by playwright-core (never a downloaded browser), headless, with the flags
// this machine's closed network needs (no background networking, no component updates). Screenshots go under
// test-output/browser/ and are checked not to be blank: drawn on a canvas in the browser itself, a page with content
// has many colours and no single colour covering almost all of it.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { projectRoot } from '../../src/paths';

export const SCREENSHOT_DIR = join(projectRoot, 'test-output', 'browser');

/** Where Chromium is, or a clear error saying how to install it (the test command installs it when it can). */
export function chromiumPath(): string {
  for (const candidate of [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser']) {
    if (candidate && existsSync(candidate)) return candidate;
  }
  try {
    return execFileSync('which', ['chromium'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error(
      "Chromium is not installed: run 'apt-get install -y chromium' (Debian's package) or set CHROMIUM_PATH",
    );
  }
}

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** Writes a screenshot of `page` as test-output/browser/<name>.png and checks it is not blank. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const png = await page.screenshot({ fullPage: true });
  const file = join(SCREENSHOT_DIR, `${name}.png`);
  writeFileSync(file, png);
  await assertNotBlank(page.context(), png, name);
  return file;
}

async function assertNotBlank(context: BrowserContext, png: Buffer, name: string): Promise<void> {
  const checker = await context.newPage();
  try {
    const stats = await checker.evaluate(async (base64: string) => {
      const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
      const bitmap = await createImageBitmap(new Blob([bytes], { type: 'image/png' }));
      const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
      const ctx = canvas.getContext('2d')!;
      ctx.drawImage(bitmap, 0, 0);
      const data = ctx.getImageData(0, 0, bitmap.width, bitmap.height).data;
      const counts = new Map<number, number>();
      for (let i = 0; i < data.length; i += 4) {
        const key = (data[i]! << 16) | (data[i + 1]! << 8) | data[i + 2]!;
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
      const pixels = data.length / 4;
      return { colours: counts.size, dominant: Math.max(...counts.values()) / pixels, pixels };
    }, png.toString('base64'));
    if (stats.pixels === 0 || stats.colours < 16 || stats.dominant > 0.985) {
      throw new Error(`screenshot ${name} looks blank: ${JSON.stringify(stats)}`);
    }
  } finally {
    await checker.close();
  }
}
