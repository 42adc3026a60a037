// An in-process cache of database rows that stays exact across the service's processes: bounded in count (least
// recently used out first) and age, and told of every change by a trigger that NOTIFYs a channel (changeFeed.ts).
// Before trusting an entry, a lookup waits for the feed's sync (one shared `select 1` on the listening connection per
// batch of lookups): a change another process has already answered for is then always heard first, so it takes
// effect on the very next lookup everywhere. A caller may start that wait itself (feedCaughtUp) and hand it to its
// lookups, as long as it starts after what it answers began (the gate: as a request enters it), so that the
// lookups of one request share one round trip, which can run beside the request's other work. While the feed is down nothing is served from the cache, and on
// reconnection everything is dropped (notifications sent meanwhile are lost).
//
// A lookup racing a change cannot put a stale row back: each load notes the cache's generation before it reads, and
// its result is kept only if no change was heard since. What is not found is not kept (a made-up key costs its
// lookup and keeps no memory).
import type { ChangeFeed } from './changeFeed';

export interface CacheBounds {
  /** Most entries kept (the least recently used goes first). */
  maxEntries: number;
  /** Longest an entry is trusted, even with no change heard (a bound on any notification the design cannot see). */
  maxAgeMs: number;
}

/** The gate's caches' bounds: an entry per key or session in use, none trusted past a minute. */
export const DEFAULT_CACHE_BOUNDS: CacheBounds = { maxEntries: 10_000, maxAgeMs: 60_000 };

export interface NotifiedCacheOptions<V> extends CacheBounds {
  /** The NOTIFY channel of the rows cached. */
  channel: string;
  /** Whether a notification's payload concerns `value` (e.g. the payload is the id of the app it belongs to). */
  concerns: (payload: string, value: V) => boolean;
}

export interface NotifiedCache<V> {
  /**
   * The value for `key`: from the cache when it may be trusted, else from `load` (kept when found). `caughtUp`, when
   * given, is a feedCaughtUp of the same feed started after the caller's request arrived; else one starts here.
   */
  get(
    key: string,
    nowMs: number,
    load: () => Promise<V | undefined>,
    caughtUp?: Promise<boolean>,
  ): Promise<V | undefined>;
  readonly size: number;
}

/**
 * Resolves once every change committed before this call has been heard: true, or false when the feed is down (then
 * nothing cached may be trusted). Never rejects.
 */
export async function feedCaughtUp(feed: ChangeFeed | undefined): Promise<boolean> {
  if (!feed?.connected) return false;
  try {
    await feed.sync();
    return feed.connected;
  } catch {
    return false;
  }
}

interface Entry<V> {
  value: V;
  loadedAtMs: number;
}

export function createNotifiedCache<V>(feed: ChangeFeed | undefined, opts: NotifiedCacheOptions<V>): NotifiedCache<V> {
  const entries = new Map<string, Entry<V>>();
  // Bumped on every change heard: a load that began before it must not be stored.
  let generation = 0;

  feed?.subscribe(opts.channel, {
    onChange(payload) {
      generation += 1;
      for (const [key, entry] of entries) if (opts.concerns(payload, entry.value)) entries.delete(key);
    },
    onReset() {
      generation += 1;
      entries.clear();
    },
  });

  async function get(
    key: string,
    nowMs: number,
    load: () => Promise<V | undefined>,
    caughtUp?: Promise<boolean>,
  ): Promise<V | undefined> {
    const usable = await (caughtUp ?? feedCaughtUp(feed));
    if (usable) {
      const hit = entries.get(key);
      if (hit && nowMs - hit.loadedAtMs < opts.maxAgeMs) {
        // Most recently used last: Map keeps insertion order, so the first entry is the one to evict.
        entries.delete(key);
        entries.set(key, hit);
        return hit.value;
      }
      if (hit) entries.delete(key);
    }
    const before = generation;
    const value = await load();
    if (value !== undefined && usable && feed?.connected && generation === before) {
      entries.set(key, { value, loadedAtMs: nowMs });
      if (entries.size > opts.maxEntries) entries.delete(entries.keys().next().value!);
    }
    return value;
  }

  return {
    get,
    get size() {
      return entries.size;
    },
  };
}
