// DPoP replay records that go with the change feed's round trips (dpop.ts createJtiClaims, changeFeed.ts FeedCarrier):
// on real PostgreSQL and a real listening connection, a proof checked while a round trip is queued is recorded as
// that round trip's statement, and replay protection stays exact: the same proof sent many times at once, to one
// process or to two with feeds of their own, is accepted once. What the feed cannot carry is never lost or misread: a
// queued round trip that is never sent leaves its proofs to the pool, and a statement that fails on the feed fails
// its proofs (a first use is never reported as a replay).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { createDb, type Db } from '../../src/infra/db/database';
import { startChangeFeed, type ChangeFeed, type FeedCarrier } from '../../src/infra/db/changeFeed';
import { secretsFromBytes } from '../../src/infra/secrets/serviceSecret';
import { createDpopVerifier, createJtiClaims } from '../../src/domain/sessions/dpop';
import type { AppError } from '../../src/domain/errors';
import { freshMigratedDatabase } from '../support/database';
import { createDpopKey, dpopProof, proofOutcomes } from '../support/dpop';

const URL_ = 'http://127.0.0.1:8080/v1/wallet';
// A claim that is never settled would hang its test: each has a timeout, so it fails instead.
const silent = pino({ level: 'silent' });

/** The feed, counting the proofs its round trips carried. */
function counted(feed: ChangeFeed): ChangeFeed & { carried: () => number } {
  let carried = 0;
  return {
    get connected() {
      return feed.connected;
    },
    sync: () => feed.sync(),
    queuedSync: () => feed.queuedSync(),
    carry(carrier: FeedCarrier) {
      feed.carry({
        take() {
          const statement = carrier.take();
          if (statement) carried += (statement.values[0] as unknown[]).length;
          return statement;
        },
      });
    },
    subscribe: (channel, subscriber) => feed.subscribe(channel, subscriber),
    close: () => feed.close(),
    carried: () => carried,
  };
}

/** A connected feed whose queued round trip is `queued` (settled by the test), keeping the carrier it is given. */
function feedStandIn(queued: Promise<void>): ChangeFeed & { carrier?: FeedCarrier } {
  const feed: ChangeFeed & { carrier?: FeedCarrier } = {
    connected: true,
    sync: () => queued,
    queuedSync: () => queued,
    carry: (c) => (feed.carrier = c),
    subscribe: () => undefined,
    close: async () => undefined,
  };
  return feed;
}

async function connected(feed: ChangeFeed): Promise<void> {
  // A feed connects once something listens; the gate's caches subscribe as the service starts.
  feed.subscribe('dpop_feed_test', { onChange: () => undefined, onReset: () => undefined });
  for (let i = 0; i < 200 && !feed.connected; i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(feed.connected, 'the feed connected');
}

describe('DPoP replay records on the change feed', () => {
  let url: string;
  let drop: () => Promise<void>;
  let db: Db;
  const feeds: ChangeFeed[] = [];
  const secrets = secretsFromBytes(randomBytes(32), 'test');

  before(async () => {
    ({ url, drop } = await freshMigratedDatabase());
    db = createDb(url);
  });
  after(async () => {
    for (const feed of feeds) await feed.close();
    await db.destroy();
    await drop();
  });

  async function feed(): Promise<ReturnType<typeof counted>> {
    const f = counted(startChangeFeed(url, silent));
    feeds.push(f);
    await connected(f);
    return f;
  }

  test(
    'proofs checked while a round trip is queued go with it; one proof sent 50 times at once is accepted once',
    { timeout: 20_000 },
    async () => {
      const f = await feed();
      const verifier = createDpopVerifier(db, secrets, f);
      await verifier.ready();
      const key = await createDpopKey('ES256');
      const nonce = verifier.currentNonce(new Date());
      const proof = await dpopProof(key, { method: 'GET', url: URL_, nonce });
      const distinct = await Promise.all(
        Array.from({ length: 20 }, () => dpopProof(key, { method: 'GET', url: URL_, nonce })),
      );
      // One round trip on the wire and one queued behind it, as under load: the proofs checked now wait for the queued one.
      void f.sync();
      void f.sync();
      assert.ok(f.queuedSync(), 'a round trip is queued');
      const results = await Promise.allSettled([
        ...Array.from({ length: 50 }, () => verifier.verify({ proof, method: 'GET', url: URL_, now: new Date() })),
        ...distinct.map((p) => verifier.verify({ proof: p, method: 'GET', url: URL_, now: new Date() })),
      ]);
      assert.deepEqual(proofOutcomes(results.slice(0, 50)), { accepted: 1, replays: 49, other: [] });
      assert.deepEqual(proofOutcomes(results.slice(50)), { accepted: 20, replays: 0, other: [] });
      assert.ok(f.carried() > 0, 'the feed carried proofs');
      const rows = await db('dpop_proof_jtis').where({ jkt: key.jkt }).count<{ count: string }[]>('* as count');
      assert.equal(Number(rows[0]!.count), 21);
    },
  );

  test(
    'one proof sent 40 times at once, half to each of two processes with feeds of their own: accepted once',
    { timeout: 20_000 },
    async () => {
      const [fa, fb] = [await feed(), await feed()];
      const a = createDpopVerifier(db, secrets, fa);
      const b = createDpopVerifier(db, secrets, fb);
      await Promise.all([a.ready(), b.ready()]);
      const key = await createDpopKey('EdDSA');
      const proof = await dpopProof(key, { method: 'GET', url: URL_, nonce: a.currentNonce(new Date()) });
      for (const f of [fa, fb]) {
        void f.sync();
        void f.sync();
      }
      const results = await Promise.allSettled(
        Array.from({ length: 40 }, (_, i) =>
          (i % 2 ? a : b).verify({ proof, method: 'GET', url: URL_, now: new Date() }),
        ),
      );
      assert.deepEqual(proofOutcomes(results), { accepted: 1, replays: 39, other: [] });
      assert.ok(fa.carried() > 0 && fb.carried() > 0, 'both feeds carried proofs');
    },
  );

  test(
    'proofs waiting for a round trip that is never sent (the feed went down) are recorded on the pool',
    { timeout: 20_000 },
    async () => {
      let fail!: (err: Error) => void;
      const down = feedStandIn(new Promise<void>((_, reject) => (fail = reject)));
      const claims = createJtiClaims(db, down);
      const keepUntil = new Date(Date.now() + 60_000);
      const pending = [
        claims.claim({ jkt: 'jkt-down', jti: 'one', keepUntil }),
        claims.claim({ jkt: 'jkt-down', jti: 'two', keepUntil }),
        claims.claim({ jkt: 'jkt-down', jti: 'one', keepUntil }),
      ];
      fail(new Error('the change feed is not connected'));
      const [one, two, again] = await Promise.all(pending);
      assert.ok(one?.epoch && two?.epoch, 'both first uses recorded');
      assert.equal(again, undefined, 'the copy is a replay');
      assert.equal(down.carrier?.take(), undefined, 'nothing is left for the feed');
      const rows = await db('dpop_proof_jtis').where({ jkt: 'jkt-down' }).orderBy('jti').pluck('jti');
      assert.deepEqual(rows, ['one', 'two']);
    },
  );

  test(
    'a statement that fails on the feed fails its proofs: none is reported as a replay',
    { timeout: 20_000 },
    async () => {
      const feedOf = feedStandIn(new Promise<void>(() => undefined));
      const claims = createJtiClaims(db, feedOf);
      const keepUntil = new Date(Date.now() + 60_000);
      const pending = Promise.allSettled([
        claims.claim({ jkt: 'jkt-fail', jti: 'a', keepUntil }),
        claims.claim({ jkt: 'jkt-fail', jti: 'b', keepUntil }),
      ]);
      const statement = feedOf.carrier!.take()!;
      assert.deepEqual(statement.values.slice(0, 2), [
        ['jkt-fail', 'jkt-fail'],
        ['a', 'b'],
      ]);
      statement.failed(new Error('connection terminated'));
      const results = await pending;
      assert.deepEqual(
        results.map((r) => (r.status === 'rejected' ? (r.reason as Error).message : 'settled')),
        ['connection terminated', 'connection terminated'],
      );
    },
  );

  test(
    'a hostile jti (NUL, invalid UTF-16, a huge one, Object.prototype names) is refused or recorded as any other: the proofs beside it are accepted',
    { timeout: 20_000 },
    async () => {
      const f = await feed();
      const verifier = createDpopVerifier(db, secrets, f);
      await verifier.ready();
      const key = await createDpopKey('ES256');
      const nonce = verifier.currentNonce(new Date());
      const hostile = ['a\u0000b', '\ud800', 'x'.repeat(100_000), '__proto__', 'constructor', 'hasOwnProperty'];
      const proofs = await Promise.all(
        hostile.map((jti) => dpopProof(key, { method: 'GET', url: URL_, nonce, claims: { jti } })),
      );
      const plain = await Promise.all(
        Array.from({ length: 5 }, () => dpopProof(key, { method: 'GET', url: URL_, nonce })),
      );
      void f.sync();
      void f.sync();
      const results = await Promise.allSettled(
        [...proofs, ...plain].map((proof) => verifier.verify({ proof, method: 'GET', url: URL_, now: new Date() })),
      );
      const codes = results.map((r) => (r.status === 'fulfilled' ? 'accepted' : (r.reason as AppError).code));
      assert.deepEqual(codes, [
        'SDK_AUTH_DPOP_INVALID',
        'SDK_AUTH_DPOP_INVALID',
        'SDK_AUTH_DPOP_INVALID',
        'accepted',
        'accepted',
        'accepted',
        ...plain.map(() => 'accepted'),
      ]);
    },
  );

  test(
    'the feed runs a carried statement as its round trip and hands it the rows; with none, a bare sync',
    { timeout: 20_000 },
    async () => {
      const f = startChangeFeed(url, silent);
      feeds.push(f);
      await connected(f);
      const seen: unknown[] = [];
      let next: { n: number } | undefined = { n: 7 };
      f.carry({
        take() {
          if (!next) return undefined;
          const { n } = next;
          next = undefined;
          return {
            name: 'feed-test-echo',
            text: 'select $1::int as n',
            values: [n],
            done: (rows) => seen.push(...rows),
            failed: (err) => seen.push(err),
          };
        },
      });
      await f.sync();
      assert.deepEqual(seen, [{ n: 7 }]);
      await f.sync();
      assert.deepEqual(seen, [{ n: 7 }], 'nothing carried the second time');
    },
  );
});
