// The one Redis connection of an API process (RATE_LIMIT_STORE=redis): the per-key and abuse limits
// (infra/limits/fixedWindow.ts) and the testnet quota (infra/limits/redisDailyQuota.ts) count in it, shared by every
// instance. It is built to fail fast: while it is not connected a command is refused at once (no offline queue) and the
// callers fall back (the limits to a per-process insurance limiter, the quota to the PostgreSQL leases); a command the
// server does not answer fails after COMMAND_TIMEOUT_MS. It reconnects by itself, every RECONNECT_MAX_MS at most.
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { RedisSettings } from '../../config';

/** How long connecting (TCP and TLS) may take before the attempt counts as failed. */
export const CONNECT_TIMEOUT_MS = 2_000;
/** How long a command may wait for its answer: a request never waits longer than this on Redis. */
export const COMMAND_TIMEOUT_MS = 2_000;
/** The longest pause between two reconnection attempts (they start at 100 ms and grow). */
export const RECONNECT_MAX_MS = 2_000;

export interface RedisConnection {
  /** The ioredis client; every key it writes starts with the configured prefix (ioredis `keyPrefix`). */
  readonly client: Redis;
  /** True while connected: commands are answered (else they are refused at once). */
  readonly ready: boolean;
  /** For readiness: PING answered (up), or down and why. */
  health(): Promise<{ ok: boolean; detail?: string }>;
  /** Resolves once connected (true) or once the first attempt failed or `timeoutMs` passed (false). */
  whenReady(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

export function createRedisConnection(settings: RedisSettings, log: Pick<Logger, 'warn' | 'info'>): RedisConnection {
  const client = new Redis(settings.url, {
    keyPrefix: settings.keyPrefix,
    connectTimeout: CONNECT_TIMEOUT_MS,
    commandTimeout: COMMAND_TIMEOUT_MS,
    // A command sent when the connection drops is tried on one reconnection at most, then fails into the fallback.
    maxRetriesPerRequest: 1,
    // Not connected: refuse commands at once instead of queueing them (a queued request would wait for Redis).
    enableOfflineQueue: false,
    retryStrategy: (times) => Math.min(times * 100, RECONNECT_MAX_MS),
    connectionName: 'onboard',
  });
  // Logged when the connection goes down or comes back, not on every failed attempt. Messages never hold the URL.
  let down = false;
  client.on('error', (err: Error) => {
    if (down) return;
    down = true;
    log.warn({ err: { message: err.message } }, 'Redis unreachable: limits fall back to this process until it is back');
  });
  client.on('ready', () => {
    if (down) log.info('Redis reachable again');
    down = false;
  });
  let closed = false;
  return {
    client,
    get ready() {
      return client.status === 'ready';
    },
    async health() {
      if (client.status !== 'ready') return { ok: false, detail: `not connected (${client.status})` };
      const answer = await client.ping();
      return answer === 'PONG' ? { ok: true } : { ok: false, detail: `PING answered ${String(answer).slice(0, 100)}` };
    },
    whenReady(timeoutMs) {
      if (client.status === 'ready') return Promise.resolve(true);
      return new Promise<boolean>((resolve) => {
        const done = (ok: boolean) => {
          clearTimeout(timer);
          client.off('ready', onReady);
          client.off('error', onError);
          resolve(ok);
        };
        const onReady = () => done(true);
        const onError = () => done(false);
        const timer = setTimeout(() => done(false), timeoutMs);
        client.once('ready', onReady);
        client.once('error', onError);
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      // QUIT lets the answers on their way arrive; a connection that is down is simply dropped.
      if (client.status === 'ready') {
        await Promise.race([
          client.quit().catch(() => undefined),
          new Promise((resolve) => setTimeout(resolve, COMMAND_TIMEOUT_MS).unref()),
        ]);
      }
      client.disconnect();
    },
  };
}

/** Whether a Redis answers PING at `url` within about two seconds (scripts/test.ts, before it runs the Redis tests). */
export async function isRedisReachable(url: string): Promise<boolean> {
  const client = new Redis(url, {
    connectTimeout: CONNECT_TIMEOUT_MS,
    commandTimeout: COMMAND_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    lazyConnect: true,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}
