// The gate's in-process cache of presented API keys, so that a request's key costs no query on the pool: a notified
// cache (src/infra/db/notifiedCache.ts: bounded, exact across processes) on channel `onboard_gate`, where migration
// 0030's triggers notify the app's id when a key is revoked, expired or rotated, an app archived or its origins edited.
import type { Knex } from 'knex';
import type { ChangeFeed } from '../../infra/db/changeFeed';
import { createNotifiedCache, DEFAULT_CACHE_BOUNDS } from '../../infra/db/notifiedCache';
import { findKeyForGateByHash, type KeyForGate } from './apiKeys';

export const GATE_CHANNEL = 'onboard_gate';

export interface KeyCache {
  /**
   * The key behind `keyHash` (from the cache when it may be trusted, else from the database), or undefined.
   * `caughtUp`: the request's own wait for the change feed (notifiedCache.ts feedCaughtUp), when it started one.
   */
  find(keyHash: string, nowMs: number, caughtUp?: Promise<boolean>): Promise<KeyForGate | undefined>;
  readonly size: number;
}

export function createKeyCache(db: Knex, feed: ChangeFeed | undefined, opts = DEFAULT_CACHE_BOUNDS): KeyCache {
  const cache = createNotifiedCache<KeyForGate>(feed, {
    channel: GATE_CHANNEL,
    concerns: (appId, found) => found.key.appId === appId,
    ...opts,
  });
  return {
    find: (keyHash, nowMs, caughtUp) => cache.get(keyHash, nowMs, () => findKeyForGateByHash(db, keyHash), caughtUp),
    get size() {
      return cache.size;
    },
  };
}
