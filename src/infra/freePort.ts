// A free TCP port on 127.0.0.1, for services started on demand (tests, the test runner, benchmarks).
import { createServer } from 'node:net';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.once('error', reject);
  });
}

/** The first of `n` consecutive free ports (a cluster numbers its API processes from one base port). */
export async function consecutiveFreePorts(n: number): Promise<number> {
  const free = (port: number) =>
    new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
  for (let attempt = 0; attempt < 20; attempt++) {
    const base = await freePort();
    if (base + n > 65535) continue;
    let all = true;
    for (let p = base + 1; p < base + n && all; p++) all = await free(p);
    if (all) return base;
  }
  throw new Error(`no ${n} consecutive free ports found`);
}
