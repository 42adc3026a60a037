// The testnet quota without a write per request (issue 21). Counting each request with its own statement on the key's
// one row of the day serialises every request of a key behind that row's lock and a commit. Instead each process
// leases a block of the day's quota with one atomic statement (dailyQuota.ts leaseDailyQuota: the shared count grows
// by the whole block only while it stays within the quota) and spends it in memory:
//   - never over-admitted: what all processes spend is at most what they leased, and leases never pass the quota;
//   - a crash forfeits at most the unspent part of one block per key;
//   - blocks shrink as the day's quota runs out (a tenth of what is left, at most MAX_BLOCK), down to single requests
//     counted one by one, so the requests the leases of other processes hold unspent at the end are few;
//   - a lease left unspent for IDLE_RETURN_MS (the key's requests stopped here) is given back, and a process that
//     found the quota used up asks again after EXHAUSTED_RECHECK_MS: what one process leased and did not need is
//     admitted by another within about a second, so the day's quota is reached exactly, not only never passed.
// Requests of one key in one process wait for a lease in flight instead of each leasing a block of its own.
import type { Knex } from 'knex';
import { consumeDailyQuota, leaseDailyQuota, returnDailyQuota } from './dailyQuota';

/** The largest block one lease takes. */
export const MAX_BLOCK = 50;
/** A lease unspent this long (no request of its key here) is given back. */
export const IDLE_RETURN_MS = 500;
/** A process that found the day's quota used up asks the database again after this long (leases come back). */
export const EXHAUSTED_RECHECK_MS = 1_000;

interface Lease {
  day: string;
  /** Leased and not spent yet, in this process. */
  unspent: number;
  /** The shared count after this process's last lease (every process's leases until then). */
  count: number;
  /** A lease being taken, which waiting requests share. */
  pending?: Promise<void>;
  /** When this process last found the quota used up (ms), if it did. */
  exhaustedAtMs?: number;
  /** Gives the unspent part back once the key's requests stop here. */
  idleReturn?: NodeJS.Timeout;
}

/** What one admitted request learns: the shared count and what is left for the day, as best known here. */
export interface QuotaSpent {
  remaining: number;
}

export class QuotaLeases {
  private readonly leases = new Map<string, Lease>();
  /** The latest day a request was spent on: a new one drops the leases of the days before (of no use any more). */
  private day = '';

  constructor(
    private readonly db: Knex,
    private readonly nowMs: () => number = Date.now,
  ) {}

  /** Spends one request of `keyId`'s quota on `day`; undefined when the day's quota is used up. */
  async spend(keyId: string, day: string, quota: number): Promise<QuotaSpent | undefined> {
    if (day > this.day) {
      for (const [key, old] of this.leases) if (old.day < day) this.leases.delete(key);
      this.day = day;
    }
    let lease = this.leases.get(keyId);
    if (!lease || lease.day !== day) {
      lease = { day, unspent: 0, count: 0 };
      this.leases.set(keyId, lease);
    }
    for (;;) {
      // Found used up a moment ago: refused without asking the database (others may give leases back later).
      if (
        lease.unspent === 0 &&
        lease.exhaustedAtMs !== undefined &&
        this.nowMs() - lease.exhaustedAtMs < EXHAUSTED_RECHECK_MS
      )
        return undefined;
      if (lease.unspent > 0) {
        lease.unspent -= 1;
        this.returnWhenIdle(keyId, lease);
        return { remaining: Math.max(0, quota - lease.count + lease.unspent) };
      }
      if (lease.pending) {
        await lease.pending;
        continue;
      }
      let exhausted = false;
      lease.pending = this.lease(lease, keyId, quota)
        .then((granted) => {
          exhausted = !granted;
        })
        .finally(() => {
          lease.pending = undefined;
        });
      await lease.pending;
      if (exhausted && lease.unspent === 0) return undefined;
    }
  }

  /** (Re)arms the idle return of `lease`: its unspent part goes back unless a request of its key comes first. */
  private returnWhenIdle(keyId: string, lease: Lease): void {
    clearTimeout(lease.idleReturn);
    lease.idleReturn = undefined;
    if (lease.unspent === 0) return;
    lease.idleReturn = setTimeout(() => {
      lease.idleReturn = undefined;
      const unspent = lease.unspent;
      if (unspent === 0 || lease.pending) return;
      lease.unspent = 0;
      lease.count -= unspent;
      // Lost only if the database is unreachable: then the unspent part stays counted, as after a crash.
      returnDailyQuota(this.db, keyId, lease.day, unspent).catch(() => undefined);
    }, IDLE_RETURN_MS);
    lease.idleReturn.unref();
  }

  /** Takes a block (or a single request) for `lease`; false when the quota is used up. */
  private async lease(lease: Lease, keyId: string, quota: number): Promise<boolean> {
    const block = Math.max(1, Math.min(MAX_BLOCK, Math.floor((quota - lease.count) / 10)));
    if (block > 1) {
      const count = await leaseDailyQuota(this.db, keyId, lease.day, quota, block);
      if (count !== undefined) {
        lease.count = count;
        lease.exhaustedAtMs = undefined;
        lease.unspent += block;
        return true;
      }
    }
    const count = await consumeDailyQuota(this.db, keyId, lease.day, quota);
    if (count === undefined) {
      lease.count = quota;
      lease.exhaustedAtMs = this.nowMs();
      return false;
    }
    lease.count = count;
    lease.exhaustedAtMs = undefined;
    lease.unspent += 1;
    return true;
  }
}
