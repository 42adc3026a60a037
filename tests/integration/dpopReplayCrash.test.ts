// DPoP replay protection stays exact across a PostgreSQL crash. The replay table is UNLOGGED (no WAL flush per proof),
// so a crash empties it; the nonces are bound to the database server's start time, so a proof accepted before the
// crash is refused after it (a nonce of the old epoch), by the process that lived through the crash and by a new one,
// while a fresh proof with the new nonce is accepted. On a PostgreSQL of this test's own, killed with SIGKILL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createDb, migrateToLatest } from '../../src/infra/db/database';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/infra/db/embeddedPostgres';
import { freePort } from '../../src/infra/freePort';
import { secretsFromBytes } from '../../src/infra/secrets/serviceSecret';
import { createDpopVerifier } from '../../src/domain/sessions/dpop';
import { AppError } from '../../src/domain/errors';
import { createDpopKey, dpopProof } from '../support/dpop';

const URL_ = 'http://127.0.0.1:8080/v1/wallet';

function refusedWith(code: string) {
  return (err: unknown) => err instanceof AppError && err.code === code;
}

test('a proof accepted before a PostgreSQL crash is refused after it; a fresh proof is accepted', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'onboard-dpop-crash-'));
  const port = await freePort();
  let pg: EmbeddedDatabase | undefined = await startEmbeddedPostgres({
    dataDir: dir,
    port,
    database: 'dpop',
    persistent: true,
  });
  const db = createDb(pg.url);
  try {
    await migrateToLatest(db);
    const secrets = secretsFromBytes(randomBytes(32), 'test');
    const verifier = createDpopVerifier(db, secrets);
    await verifier.ready();
    const key = await createDpopKey();
    const proof = await dpopProof(key, { method: 'GET', url: URL_, nonce: verifier.currentNonce(new Date()) });
    const check = () => ({ proof, method: 'GET', url: URL_, now: new Date() });

    assert.equal((await verifier.verify(check())).jkt, key.jkt);
    await assert.rejects(verifier.verify(check()), refusedWith('SDK_AUTH_DPOP_INVALID'), 'a replay is refused');
    const persistence = await db.raw<{ rows: { relpersistence: string }[] }>(
      "select relpersistence from pg_class where relname = 'dpop_proof_jtis'",
    );
    assert.equal(persistence.rows[0]?.relpersistence, 'u', 'the replay table is unlogged');

    // The crash: the postmaster killed at once (no shutdown checkpoint), then started on the same data directory.
    const postmasterPid = Number(readFileSync(join(pg.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    process.kill(postmasterPid, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 500));
    // A process starting while the database is down cannot learn the epoch yet, and learns it once it is back.
    const startedDuringOutage = createDpopVerifier(db, secrets);
    await assert.rejects(startedDuringOutage.ready());
    pg = await startEmbeddedPostgres({ dataDir: dir, port, database: 'dpop', persistent: true });
    await startedDuringOutage.ready();
    const remembered = await db('dpop_proof_jtis').count<{ count: string }[]>('* as count');
    assert.equal(Number(remembered[0]!.count), 0, 'crash recovery emptied the unlogged replay table');

    // The same proof again: refused by the process that lived through the crash, and by a new process.
    await assert.rejects(verifier.verify(check()), refusedWith('SDK_AUTH_DPOP_USE_NONCE'));
    const restarted = createDpopVerifier(db, secrets);
    await restarted.ready();
    await assert.rejects(restarted.verify(check()), refusedWith('SDK_AUTH_DPOP_USE_NONCE'));
    // A client following the new nonce is accepted, once.
    const fresh = await dpopProof(key, { method: 'GET', url: URL_, nonce: restarted.currentNonce(new Date()) });
    assert.equal((await verifier.verify({ ...check(), proof: fresh })).jkt, key.jkt);
    await assert.rejects(restarted.verify({ ...check(), proof: fresh }), refusedWith('SDK_AUTH_DPOP_INVALID'));
  } finally {
    await db.destroy();
    await pg?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
