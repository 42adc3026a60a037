// DPoP replay protection stays exact when proofs are recorded in groups (one insert for the proofs that arrive while
// another is in flight): on real PostgreSQL, the same proof sent many times at once is accepted once, whether its
// copies land in one group or in several and on one process or two; distinct proofs sent together are all accepted.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { secretsFromBytes } from '../../src/infra/secrets/serviceSecret';
import { createDpopVerifier, createJtiClaims } from '../../src/domain/sessions/dpop';
import { useMigratedDatabase } from '../support/database';
import { createDpopKey, dpopProof, proofOutcomes } from '../support/dpop';

const URL_ = 'http://127.0.0.1:8080/v1/wallet';

describe('DPoP proofs recorded in groups', () => {
  const db = useMigratedDatabase();
  const secrets = secretsFromBytes(randomBytes(32), 'test');

  test('one proof sent 50 times at once to one process: accepted once, 49 replays', async () => {
    const verifier = createDpopVerifier(db, secrets);
    await verifier.ready();
    const key = await createDpopKey('EdDSA');
    const proof = await dpopProof(key, { method: 'GET', url: URL_, nonce: verifier.currentNonce(new Date()) });
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, () => verifier.verify({ proof, method: 'GET', url: URL_, now: new Date() })),
    );
    assert.deepEqual(proofOutcomes(results), { accepted: 1, replays: 49, other: [] });
  });

  test('one proof sent 40 times at once, half to each of two processes: accepted once', async () => {
    const a = createDpopVerifier(db, secrets);
    const b = createDpopVerifier(db, secrets);
    await Promise.all([a.ready(), b.ready()]);
    const key = await createDpopKey('ES256');
    const proof = await dpopProof(key, { method: 'GET', url: URL_, nonce: a.currentNonce(new Date()) });
    const results = await Promise.allSettled(
      Array.from({ length: 40 }, (_, i) =>
        (i % 2 ? a : b).verify({ proof, method: 'GET', url: URL_, now: new Date() }),
      ),
    );
    assert.deepEqual(proofOutcomes(results), { accepted: 1, replays: 39, other: [] });
  });

  test('300 distinct proofs at once (more than one group holds), with a replay of each behind them: 300 accepted, 300 replays', async () => {
    const verifier = createDpopVerifier(db, secrets);
    await verifier.ready();
    const key = await createDpopKey('EdDSA');
    const nonce = verifier.currentNonce(new Date());
    const proofs = await Promise.all(
      Array.from({ length: 300 }, () => dpopProof(key, { method: 'GET', url: URL_, nonce })),
    );
    const results = await Promise.allSettled(
      [...proofs, ...proofs].map((proof) => verifier.verify({ proof, method: 'GET', url: URL_, now: new Date() })),
    );
    assert.deepEqual(proofOutcomes(results.slice(0, 300)), { accepted: 300, replays: 0, other: [] });
    assert.deepEqual(proofOutcomes(results.slice(300)), { accepted: 0, replays: 300, other: [] });
    const rows = await db('dpop_proof_jtis').where({ jkt: key.jkt }).count<{ count: string }[]>('* as count');
    assert.equal(Number(rows[0]!.count), 300);
  });

  test('copies of one proof within one group: the first wins, the others are replays, and nothing else is held back', async () => {
    const claims = createJtiClaims(db);
    const keepUntil = new Date(Date.now() + 60_000);
    // The first claim goes at once; the ones made while it is in flight are the next group, together.
    const blocker = claims.claim({ jkt: 'jkt-a', jti: 'blocker', keepUntil });
    const copies = Array.from({ length: 5 }, () => claims.claim({ jkt: 'jkt-a', jti: 'same', keepUntil }));
    const other = claims.claim({ jkt: 'jkt-b', jti: 'same', keepUntil });
    const [first, ...rest] = await Promise.all([blocker, ...copies, other]);
    assert.ok(first?.epoch);
    assert.deepEqual(
      rest.map((r) => r !== undefined),
      [true, false, false, false, false, true],
    );
  });
});
