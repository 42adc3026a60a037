// The gate's in-process cache of presented API keys, so that a request's key costs no query on the pool. Bounded in
// count (least recently used out first) and age, and exact on change: every process listens on `onboard_gate`
// (migration 0030's triggers notify there with the app's id when a key is revoked, expired or rotated, an app archived
// or its origins edited) and drops that app's entries when told. Before trusting an entry, a lookup waits for the
// feed's sync (one shared `select 1` on the listening connection per batch of requests): a change another process
// has already answered for is then always heard first, so a revocation takes effect on the very next request
// everywhere. While the feed is down nothing is served from the cache, and on reconnection everything is dropped
// (notifications sent meanwhile are lost).
//
// A lookup racing a change cannot put a stale row back: each load notes the cache's generation before it reads, and
// its result is kept only if no change was heard since.
import type { Knex } from 'knex';
import type { ChangeFeed } from '../../infra/db/changeFeed';
import { findKeyForGateByHash, type KeyForGate } from './apiKeys';

export const GATE_CHANNEL = 'onboard_gate';

export interface KeyCacheOptions {
  /** Most keys kept (the least recently used goes first). */
  maxEntries: number;
  /** Longest an entry is trusted, even with no change heard (a bound on any notification the design cannot see). */
  maxAgeMs: number;
}

export const DEFAULT_KEY_CACHE: KeyCacheOptions = { maxEntries: 10_000, maxAgeMs: 60_000 };

export interface KeyCache {
  /** The key behind `keyHash` (from the cache when it may be trusted, else from the database), or undefined. */
  find(keyHash: string, nowMs: number): Promise<KeyForGate | undefined>;
  readonly size: number;
}

interface Entry {
  found: KeyForGate;
  loadedAtMs: number;
}

export function createKeyCache(db: Knex, feed: ChangeFeed | undefined, opts = DEFAULT_KEY_CACHE): KeyCache {
  const entries = new Map<string, Entry>();
  // Bumped on every change heard: a load that began before it must not be stored.
  let generation = 0;

  feed?.subscribe(GATE_CHANNEL, {
    onChange(appId) {
      generation += 1;
      for (const [hash, entry] of entries) if (entry.found.key.appId === appId) entries.delete(hash);
    },
    onReset() {
      generation += 1;
      entries.clear();
    },
  });

  /** Every change committed before now heard (false: the feed is down, so nothing cached may be trusted). */
  async function caughtUp(): Promise<boolean> {
    if (!feed?.connected) return false;
    try {
      await feed.sync();
      return feed.connected;
    } catch {
      return false;
    }
  }

  async function find(keyHash: string, nowMs: number): Promise<KeyForGate | undefined> {
    const usable = await caughtUp();
    if (usable) {
      const hit = entries.get(keyHash);
      if (hit && nowMs - hit.loadedAtMs < opts.maxAgeMs) {
        // Most recently used last: Map keeps insertion order, so the first entry is the one to evict.
        entries.delete(keyHash);
        entries.set(keyHash, hit);
        return hit.found;
      }
      if (hit) entries.delete(keyHash);
    }
    const before = generation;
    const found = await findKeyForGateByHash(db, keyHash);
    // Unknown keys are not kept: a made-up key costs its lookup, and keeps no memory.
    if (found && usable && feed?.connected && generation === before) {
      entries.set(keyHash, { found, loadedAtMs: nowMs });
      if (entries.size > opts.maxEntries) entries.delete(entries.keys().next().value!);
    }
    return found;
  }

  return {
    find,
    get size() {
      return entries.size;
    },
  };
}
