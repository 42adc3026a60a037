import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { test } from 'node:test';
import { consecutiveFreePorts } from './freePort';

test('consecutiveFreePorts: n ports that can all be bound, below the range the OS hands out itself', async () => {
  const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
  for (let i = 0; i < 5; i++) {
    const base = await consecutiveFreePorts(3);
    if (low > 20_003) assert.ok(base >= 20_000 && base + 3 <= low, `${base} in [20000, ${low})`);
    const servers = await Promise.all(
      [0, 1, 2].map(
        (k) =>
          new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
            const s = createServer().once('error', reject);
            s.listen(base + k, '127.0.0.1', () => resolve(s));
          }),
      ),
    );
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  }
});
