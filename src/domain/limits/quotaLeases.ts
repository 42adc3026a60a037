// The testnet quota without a write per request (issue 21). Counting each request with its own statement on the key's
// one row of the day serialises every request of a key behind that row's lock and a commit. Instead each process
// leases a block of the day's quota with one atomic statement (dailyQuota.ts leaseDailyQuota: the shared count grows
// by the whole block only while it stays within the quota) and spends it in memory:
//   - never over-admitted: what all processes spend is at most what they leased, and leases never pass the quota;
//   - a crash forfeits at most what one process holds unspent per key, never more than MAX_BLOCK;
//   - leases shrink as the day's quota runs out (a tenth of what is left, at most MAX_LEASE), down to single requests
//     counted one by one, so the requests the leases of other processes hold unspent at the end are few;
//   - the next lease is taken while half of the current one is still unspent, so a steady stream of requests never
//     waits for one (a request waited a round trip at the end of every block: the gate bench's process sat idle 22%
//     of the time, bench/results/2026-12-02-http-foundation.md); what a process holds stays within MAX_BLOCK;
//   - a lease left unspent for IDLE_RETURN_MS (the key's requests stopped here) is given back, and a process that
//     found the quota used up asks again after EXHAUSTED_RECHECK_MS: what one process leased and did not need is
//     admitted by another within about a second, so the day's quota is reached exactly, not only never passed.
// Requests of one key in one process wait for a lease in flight instead of each leasing a block of its own.
import type { Knex } from 'knex';
import { consumeDailyQuota, leaseDailyQuota, returnDailyQuota } from './dailyQuota';

/** The most one process holds unspent for a key: the lease in hand (at most half a lease left) and the next. */
export const MAX_BLOCK = 50;
/** The largest lease one statement takes. */
export const MAX_LEASE = 32;
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
  /** The size of the last lease taken (the next is taken early once half of it is left). */
  size: number;
  /** A lease being taken, which waiting requests share. */
  pending?: Promise<void>;
  /** When this process last found the quota used up (ms), if it did. */
  exhaustedAtMs?: number;
  /** When a request of the key was last spent here (ms). */
  lastSpentMs: number;
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
      lease = { day, unspent: 0, count: 0, size: 0, lastSpentMs: 0 };
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
        // Half of a lease left: the next one is taken now, in the background, so that it is in hand when this one
        // runs out. A failure is left for the request that will need it (it takes its own lease and sees the error).
        if (lease.size > 1 && lease.unspent <= lease.size / 2 && !lease.pending)
          this.takeLease(lease, keyId, quota).catch(() => undefined);
        this.returnWhenIdle(keyId, lease);
        return { remaining: Math.max(0, quota - lease.count + lease.unspent) };
      }
      // Nothing in hand: wait for the lease being taken, or take one; then look again (another request may have
      // spent what came, or the quota was found used up).
      await (lease.pending ?? this.takeLease(lease, keyId, quota));
    }
  }

  /** Takes a lease for `lease`, shared by every request that waits for it. */
  private takeLease(lease: Lease, keyId: string, quota: number): Promise<void> {
    const pending = this.lease(lease, keyId, quota).finally(() => {
      lease.pending = undefined;
    });
    lease.pending = pending;
    return pending;
  }

  /**
   * Arms the idle return of `lease` unless it is armed: its unspent part goes back once no request of its key came
   * for IDLE_RETURN_MS. One timer per lease that looks at the last spend when it fires, not one re-armed per request.
   */
  private returnWhenIdle(keyId: string, lease: Lease): void {
    lease.lastSpentMs = this.nowMs();
    if (lease.idleReturn || lease.unspent === 0) return;
    const check = () => {
      const idleMs = this.nowMs() - lease.lastSpentMs;
      if (idleMs < IDLE_RETURN_MS) {
        lease.idleReturn = setTimeout(check, IDLE_RETURN_MS - idleMs).unref();
        return;
      }
      lease.idleReturn = undefined;
      const unspent = lease.unspent;
      if (unspent === 0 || lease.pending) return;
      lease.unspent = 0;
      lease.count -= unspent;
      // Lost only if the database is unreachable: then the unspent part stays counted, as after a crash.
      returnDailyQuota(this.db, keyId, lease.day, unspent).catch(() => undefined);
    };
    lease.idleReturn = setTimeout(check, IDLE_RETURN_MS).unref();
  }

  /** Takes a lease (or a single request) for `lease`; when the quota is used up, marks it so. */
  private async lease(lease: Lease, keyId: string, quota: number): Promise<void> {
    const size = Math.max(1, Math.min(MAX_LEASE, Math.floor((quota - lease.count) / 10)));
    if (size > 1) {
      const count = await leaseDailyQuota(this.db, keyId, lease.day, quota, size);
      if (count !== undefined) {
        lease.count = count;
        lease.exhaustedAtMs = undefined;
        lease.unspent += size;
        lease.size = size;
        return;
      }
    }
    const count = await consumeDailyQuota(this.db, keyId, lease.day, quota);
    lease.size = 1;
    if (count === undefined) {
      lease.count = quota;
      lease.exhaustedAtMs = this.nowMs();
      return;
    }
    lease.count = count;
    lease.exhaustedAtMs = undefined;
    lease.unspent += 1;
  }
}
