// A free TCP port on 127.0.0.1, for services started on demand (tests, the test runner, benchmarks).
import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
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

/** The lowest port the OS hands out by itself (Linux's ip_local_port_range; 32768, its default, elsewhere). */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 0 ? low : 32_768;
  } catch {
    return 32_768;
  }
}

/** Below this, ports are left to services with well-known and registered numbers. */
const LOWEST_PICKED = 20_000;

/**
 * The first of `n` consecutive free ports (a cluster numbers its API processes from one base port), below the
 * ephemeral range: the OS never hands those out itself, neither to a listen on port 0 nor as the local port of an
 * outgoing connection, so between this check and the cluster's own binds only a process that binds a fixed port could
 * take one. (Ports from the ephemeral range were taken meanwhile on a busy CI machine: a test's database connection.)
 */
export async function consecutiveFreePorts(n: number): Promise<number> {
  const free = (port: number) =>
    new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
  const high = Math.min(ephemeralLow(), 65_536) - n;
  for (let attempt = 0; attempt < 50; attempt++) {
    // A machine whose ephemeral range starts low leaves no room below it: any free run of ports then.
    const base = high > LOWEST_PICKED ? randomInt(LOWEST_PICKED, high) : await freePort();
    if (base + n > 65_535) continue;
    let all = true;
    for (let p = base; p < base + n && all; p++) all = await free(p);
    if (all) return base;
  }
  throw new Error(`no ${n} consecutive free ports found`);
}
