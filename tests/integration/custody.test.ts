// Custodial wallets on real PostgreSQL: creation (sealed secret, wrapped data key), the user wallet's race-safety,
// decryption through withWalletKeypair (audited first, zeroed after), refusal of a secret moved to another row, app
// wallets created with their app, and no key material in clear in the database, the log or the API's answers.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Keypair, StrKey } from '@stellar/stellar-sdk';
import { runAdminCommand } from '../../src/cli/adminCommands';
import { findApp } from '../../src/domain/apps/store';
import { auditEntriesSql } from '../../src/domain/audit/auditLog';
import { findOrCreateUser } from '../../src/domain/users/users';
import { createAppWithWallet, ensureAppWallet, findAppWallet } from '../../src/domain/wallets/appWallets';
import { createWallet, planKeyUses, withWalletKeypair } from '../../src/domain/wallets/custody';
import {
  ensureUserWallet,
  findUserWallet,
  listUserWallets,
  listWalletsByUser,
} from '../../src/domain/funding/userWallets';
import { KmsDecryptError } from '../../src/infra/kms/keyManagement';
import { seedCredentials, type SeededCredentials } from '../support/credentials';
import { capturingLogger } from '../support/log';
import { signInOperator } from '../support/operators';
import { startTestService, type TestService } from '../support/service';

let svc: TestService;
let creds: SeededCredentials;
let userSeq = 0;

async function newUser(): Promise<string> {
  userSeq += 1;
  const email = `user-${userSeq}@example.com`;
  const user = await findOrCreateUser(svc.deps.db, {
    appId: creds.app.id,
    identity: { provider: 'email', subject: email, email },
    now: new Date(),
  });
  return user.id;
}

before(async () => {
  svc = await startTestService();
  creds = await seedCredentials(svc.deps.db);
  // Custody, not funding, is under test here: Deferred mode keeps ensureUserWallet off the chain (funding.test.ts
  // covers Immediate mode).
  await svc.deps.db('apps').where({ id: creds.app.id }).update({ funding_mode: 'deferred' });
  creds.app = { ...creds.app, fundingMode: 'deferred' };
});
after(async () => {
  await svc?.stop();
});

describe('user wallets', () => {
  test('ensureUserWallet creates an unfunded wallet on the app network at the first call and answers it again after', async () => {
    const userId = await newUser();
    assert.equal(await findUserWallet(svc.deps.db, { appId: creds.app.id, userId, network: 'testnet' }), undefined);
    const first = await ensureUserWallet(svc.deps, { app: creds.app, userId });
    assert.match(first.walletId, /^wal_[0-9A-Za-z]{22}$/);
    assert.ok(StrKey.isValidEd25519PublicKey(first.publicKey), first.publicKey);
    assert.equal(first.network, 'testnet');
    assert.equal(first.funded, false);
    assert.equal(first.fundedAt, null);
    assert.ok(!Number.isNaN(Date.parse(first.createdAt)));
    assert.deepEqual(await ensureUserWallet(svc.deps, { app: creds.app, userId }), first);
    assert.deepEqual(await findUserWallet(svc.deps.db, { appId: creds.app.id, userId, network: 'testnet' }), first);
    assert.deepEqual(await listUserWallets(svc.deps.db, userId), [first]);
  });

  test('a new user wallet writes one wallet.created event in its transaction (status unfunded in Deferred mode)', async () => {
    const userId = await newUser();
    const view = await ensureUserWallet(svc.deps, { app: creds.app, userId });
    await ensureUserWallet(svc.deps, { app: creds.app, userId });
    const events = await svc.deps
      .db('outbox_events')
      .where({ app_id: creds.app.id, type: 'wallet.created' })
      .whereRaw("data->>'walletId' = ?", [view.walletId]);
    assert.equal(events.length, 1);
    assert.deepEqual(events[0].data, { walletId: view.walletId, address: view.publicKey, status: 'unfunded' });
  });

  test('20 concurrent first calls for one user leave exactly one wallet, and all of them answer it', async () => {
    const userId = await newUser();
    const views = await Promise.all(
      Array.from({ length: 20 }, () => ensureUserWallet(svc.deps, { app: creds.app, userId })),
    );
    assert.equal(new Set(views.map((v) => v.walletId)).size, 1);
    const rows = await svc.deps.db('wallets').where({ user_id: userId });
    assert.equal(rows.length, 1);
    assert.equal(rows[0].id, views[0]!.walletId);
  });

  test('listWalletsByUser reads a page of users in one call, users without a wallet included', async () => {
    const [withWallet, without] = [await newUser(), await newUser()];
    const view = await ensureUserWallet(svc.deps, { app: creds.app, userId: withWallet });
    const byUser = await listWalletsByUser(svc.deps.db, [withWallet, without]);
    assert.deepEqual(byUser.get(withWallet), [view]);
    assert.deepEqual(byUser.get(without), []);
  });
});

describe('sealing and decryption', () => {
  test('the secret is stored only sealed, with the data key wrapped by the key management', async () => {
    const userId = await newUser();
    const { wallet, created } = await createWallet(svc.deps, { appId: creds.app.id, network: 'testnet', userId });
    assert.equal(created, true);
    const row = await svc.deps.db('wallets').where({ id: wallet.id }).first();
    assert.equal(row.public_key, wallet.publicKey);
    assert.match(row.kms_key_id, /^local:[0-9a-f]{16}$/);
    assert.equal(row.sealed_secret.length, 1 + 12 + 16 + 32, 'version, IV, tag and the 32-byte seed');
    assert.equal(row.wrapped_data_key.length, 1 + 12 + 16 + 32);
    assert.equal(row.funding_state, 'unfunded');
    // A second creation for the same slot answers the first wallet.
    const again = await createWallet(svc.deps, { appId: creds.app.id, network: 'testnet', userId });
    assert.deepEqual(again, { wallet, created: false });
  });

  test('withWalletKeypair records key.decrypt before lending the key, signs with the wallet key, then zeroes it', async () => {
    const userId = await newUser();
    const view = await ensureUserWallet(svc.deps, { app: creds.app, userId });
    const message = Buffer.from('sign me');
    let lent: Keypair | undefined;
    let auditedBeforeUse = false;
    const signature = await withWalletKeypair(
      svc.deps,
      { walletId: view.walletId, purpose: 'tx.sign', actor: { type: 'user', id: userId }, ip: '203.0.113.24' },
      async (keypair) => {
        lent = keypair;
        auditedBeforeUse = Boolean(
          await svc.deps.db('audit_log').where({ wallet_id: view.walletId, action: 'key.decrypt' }).first(),
        );
        return keypair.sign(message);
      },
    );
    assert.ok(auditedBeforeUse, 'the audit entry exists while the key is in use');
    assert.ok(Keypair.fromPublicKey(view.publicKey).verify(message, signature), 'signed by the wallet key');
    assert.ok(
      lent!.rawSecretKey().every((b) => b === 0),
      'the lent keypair is zeroed afterwards',
    );
    const entries = await svc.deps.db('audit_log').where({ wallet_id: view.walletId });
    assert.equal(entries.length, 1);
    assert.equal(entries[0].app_id, creds.app.id);
    assert.equal(entries[0].action, 'key.decrypt');
    assert.equal(entries[0].purpose, 'tx.sign');
    assert.equal(entries[0].actor_type, 'user');
    assert.equal(entries[0].actor_id, userId);
    assert.equal(entries[0].ip, '203.0.113.24');
  });

  test("planKeyUses: the audit entries are written by the caller's statement, only when its condition holds, and each key opens as its own wallet's", async () => {
    const a = await ensureUserWallet(svc.deps, { app: creds.app, userId: await newUser() });
    const b = await ensureUserWallet(svc.deps, { app: creds.app, userId: await newUser() });
    const actor = { type: 'system' as const, id: null };
    const entries = (walletId: string) =>
      svc.deps.db('audit_log').where({ wallet_id: walletId, action: 'key.decrypt' }).select('purpose');
    const planned = await planKeyUses(svc.deps, [
      { walletId: a.walletId, purpose: 'tx.sign', actor },
      { walletId: b.walletId, purpose: 'tx.fee_bump', actor },
    ]);
    // The statement of a caller whose own write did not happen (`gate` answers no row): nothing is written.
    const write = (gate: string) => {
      const audit = auditEntriesSql(planned.audits, 'gate');
      return svc.deps.db.raw(`with gate as (${gate}), audited as (${audit.sql}) select 1`, audit.bindings);
    };
    await write('select 1 where false');
    assert.deepEqual(await entries(a.walletId), []);
    assert.deepEqual(await entries(b.walletId), []);
    // Its write happened: one entry per use, written together.
    await write('select 1');
    const committed = planned.recorded();
    const message = Buffer.from('sign me');
    let lent: Keypair | undefined;
    const signature = await committed.withKeypair(1, (kp) => {
      lent = kp;
      return kp.sign(message);
    });
    assert.ok(Keypair.fromPublicKey(b.publicKey).verify(message, Buffer.from(signature)));
    assert.ok(
      lent!.rawSecretKey().every((x) => x === 0),
      'wiped after use',
    );
    assert.throws(() => lent!.sign(message));
    assert.deepEqual(
      (await entries(a.walletId)).map((e) => e.purpose),
      ['tx.sign'],
    );
    assert.deepEqual(
      (await entries(b.walletId)).map((e) => e.purpose),
      ['tx.fee_bump'],
    );
    await assert.rejects(
      committed.withKeypair(2, () => undefined),
      RangeError,
    );
  });

  test('the keypair is zeroed even when the function using it fails', async () => {
    const view = await ensureUserWallet(svc.deps, { app: creds.app, userId: await newUser() });
    let lent: Keypair | undefined;
    await assert.rejects(
      withWalletKeypair(
        svc.deps,
        { walletId: view.walletId, purpose: 'tx.sign', actor: { type: 'system', id: null } },
        async (keypair) => {
          lent = keypair;
          throw new Error('submission failed');
        },
      ),
      /submission failed/,
    );
    assert.ok(lent!.rawSecretKey().every((b) => b === 0));
  });

  test("a sealed secret and wrapped key copied onto another wallet's row do not decrypt (the context is bound)", async () => {
    const victim = await ensureUserWallet(svc.deps, { app: creds.app, userId: await newUser() });
    const attacker = await ensureUserWallet(svc.deps, { app: creds.app, userId: await newUser() });
    const stolen = await svc.deps
      .db('wallets')
      .where({ id: victim.walletId })
      .first('sealed_secret', 'wrapped_data_key', 'public_key');
    // Copy only the encrypted material: the attacker's row keeps its own id, so its context differs.
    await svc.deps
      .db('wallets')
      .where({ id: attacker.walletId })
      .update({ sealed_secret: stolen.sealed_secret, wrapped_data_key: stolen.wrapped_data_key });
    await assert.rejects(
      withWalletKeypair(
        svc.deps,
        { walletId: attacker.walletId, purpose: 'tx.sign', actor: { type: 'system', id: null } },
        async () => 'used',
      ),
      KmsDecryptError,
    );
  });

  test('an unknown wallet answers WALLET_NOT_FOUND and records nothing', async () => {
    await assert.rejects(
      withWalletKeypair(
        svc.deps,
        { walletId: 'wal_0000000000000000000000', purpose: 'tx.sign', actor: { type: 'system', id: null } },
        async () => 'used',
      ),
      (err: unknown) => (err as { code?: string }).code === 'WALLET_NOT_FOUND',
    );
    assert.equal((await svc.deps.db('audit_log').where({ wallet_id: 'wal_0000000000000000000000' })).length, 0);
  });
});

describe('app wallets', () => {
  test('an app created in the Dashboard gets its global wallet in the same transaction, unfunded, on its network', async () => {
    const owner = await signInOperator(svc);
    const res = await owner.call('createApp', 'POST', '/api/v1/apps', {
      body: { name: 'Wallet app', network: 'mainnet' },
    });
    assert.equal(res.status, 201, res.text);
    const appId = res.body.content.appId;
    const wallet = await findAppWallet(svc.deps.db, { id: appId, network: 'mainnet' }, 'global');
    assert.ok(wallet, 'the global wallet exists');
    assert.equal(wallet.role, 'global');
    assert.equal(wallet.userId, null);
    assert.equal(wallet.network, 'mainnet');
    assert.equal(wallet.fundingState, 'unfunded');
    assert.equal((await svc.deps.db('wallets').where({ app_id: appId })).length, 1);
  });

  test('the admin CLI creates the global wallet with the app', async () => {
    const lines: string[] = [];
    await runAdminCommand(
      svc.deps,
      ['create-app', '--name', 'CLI app', '--network', 'testnet', '--owner-email', 'cli-owner@example.com'],
      (l) => lines.push(l),
    );
    const appId = lines.join('\n').match(/app:\s+(app_[0-9A-Za-z]+)/)![1]!;
    const wallet = await findAppWallet(svc.deps.db, { id: appId, network: 'testnet' }, 'global');
    assert.ok(wallet);
    assert.ok(
      lines.some((l) => l.includes(wallet.publicKey)),
      'the CLI prints the wallet address',
    );
  });

  test('when the key management fails, no app is created either', async () => {
    const owner = (await seedCredentials(svc.deps.db)).operator;
    const failingKms = {
      ...svc.deps.kms,
      generateDataKey: async () => {
        throw new Error('KMS unreachable');
      },
    };
    await assert.rejects(
      createAppWithWallet(
        { ...svc.deps, kms: failingKms },
        { name: 'Never created', network: 'testnet', ownerOperatorId: owner.id },
      ),
      /KMS unreachable/,
    );
    assert.equal((await svc.deps.db('apps').where({ owner_operator_id: owner.id, name: 'Never created' })).length, 0);
  });

  test('ensureAppWallet gives an app without a wallet exactly one per role, even when raced', async () => {
    const { app } = await seedCredentials(svc.deps.db); // stored directly, without a wallet
    assert.equal(await findAppWallet(svc.deps.db, app, 'global'), undefined);
    const wallets = await Promise.all(
      Array.from({ length: 10 }, () => ensureAppWallet(svc.deps, { app, role: 'global' })),
    );
    assert.equal(new Set(wallets.map((w) => w.id)).size, 1);
    const gas = await ensureAppWallet(svc.deps, { app, role: 'gas' });
    assert.notEqual(gas.id, wallets[0]!.id);
    assert.deepEqual(await svc.deps.db('wallets').where({ app_id: app.id }).orderBy('role').pluck('role'), [
      'gas',
      'global',
    ]);
  });
});

describe('no key material in clear', () => {
  test('after creating wallets and signing with them, no seed or data key appears in any table, the log or an answer', async () => {
    const capture = capturingLogger('trace');
    const exposed = await startTestService({}, { log: capture.log });
    try {
      // Every data key the service handles in clear, seen through the service's own key management object.
      const dataKeys: Buffer[] = [];
      const kms = exposed.deps.kms;
      const generate = kms.generateDataKey.bind(kms);
      const decrypt = kms.decrypt.bind(kms);
      Object.assign(kms, {
        generateDataKey: async (...args: Parameters<typeof generate>) => {
          const key = await generate(...args);
          dataKeys.push(Buffer.from(key.plaintext));
          return key;
        },
        decrypt: async (...args: Parameters<typeof decrypt>) => {
          const key = await decrypt(...args);
          dataKeys.push(Buffer.from(key));
          return key;
        },
      });
      const answers: string[] = [];
      const owner = await signInOperator(exposed);
      const created = await owner.call('createApp', 'POST', '/api/v1/apps', {
        body: { name: 'Exposure app', network: 'testnet' },
      });
      answers.push(created.text);
      const appId = created.body.content.appId;
      const app = (await findApp(exposed.deps.db, appId))!;
      const walletIds = [(await findAppWallet(exposed.deps.db, app, 'global'))!.id];
      for (let i = 0; i < 3; i++) {
        const email = `exposed-${i}@example.com`;
        const user = await findOrCreateUser(exposed.deps.db, {
          appId,
          identity: { provider: 'email', subject: email, email },
          now: new Date(),
        });
        walletIds.push((await ensureUserWallet(exposed.deps, { app, userId: user.id })).walletId);
      }
      const seeds: Buffer[] = [];
      const secrets: string[] = [];
      for (const walletId of walletIds) {
        await withWalletKeypair(
          exposed.deps,
          { walletId, purpose: 'tx.sign', actor: { type: 'operator', id: owner.operatorId } },
          async (kp) => {
            seeds.push(Buffer.from(kp.rawSecretKey()));
            secrets.push(kp.secret());
            return kp.sign(Buffer.from('payload'));
          },
        );
      }
      answers.push((await owner.call('listAuditLog', 'GET', `/api/v1/apps/${appId}/audit-log`)).text);
      assert.equal(seeds.length, 4);
      assert.ok(dataKeys.length >= 8, 'a data key per wallet created and per decryption');

      const needles = [
        ...secrets,
        ...[...seeds, ...dataKeys].flatMap((b) => [
          b.toString('hex'),
          b.toString('base64').replace(/=+$/, ''),
          b.toString('base64url'),
        ]),
      ];
      const tables = (await exposed.deps
        .db('information_schema.tables')
        .where({ table_schema: 'public', table_type: 'BASE TABLE' })
        .pluck('table_name')) as string[];
      const dump: string[] = [];
      for (const table of tables) {
        const rows = await exposed.deps.db.raw(`select row_to_json(t)::text as j from "${table}" t`);
        dump.push(...rows.rows.map((r: { j: string }) => r.j));
      }
      const haystacks = { database: dump.join('\n'), log: capture.lines.join(''), answers: answers.join('\n') };
      // The search can fail: the public keys and the sealed secrets are there to be found.
      const global = await exposed.deps.db('wallets').where({ id: walletIds[0] }).first();
      assert.ok(haystacks.database.includes(global.public_key));
      assert.ok(haystacks.database.includes(global.sealed_secret.toString('hex')));
      assert.ok(capture.lines.length > 0, 'the log was captured');
      for (const [where, text] of Object.entries(haystacks)) {
        for (const needle of needles)
          assert.equal(text.includes(needle), false, `key material in clear in the ${where}`);
      }
    } finally {
      await exposed.stop();
    }
  });
});
