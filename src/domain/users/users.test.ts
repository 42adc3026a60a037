// Users on real PostgreSQL: finding or creating a user by identity, linking identities by verified email, apps kept
// apart, external ids, and the race of concurrent first sign-ins (one user, one identity row, whatever the order).
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useMigratedDatabase } from '../../../tests/support/database';
import { createApp, createOperator, type App } from '../apps/store';
import { AppError } from '../errors';
import {
  findOrCreateUser,
  findUserByExternalId,
  providersOf,
  recordSignIn,
  setExternalId,
  type UserIdentity,
} from './users';

const db = useMigratedDatabase();
const T0 = new Date('2030-06-15T12:00:00.000Z');
let counter = 0;
const freshEmail = () => `user${++counter}@example.com`;
const emailIdentity = (email: string): UserIdentity => ({ provider: 'email', subject: email, email });

let app: App;
let otherApp: App;
// Inside each suite: the file-level hook that creates the database runs first.
async function seedApps(): Promise<void> {
  if (app) return;
  const operator = await createOperator(db, { email: 'owner@example.com' });
  app = await createApp(db, { name: 'A', network: 'testnet', ownerOperatorId: operator.id });
  otherApp = await createApp(db, { name: 'B', network: 'testnet', ownerOperatorId: operator.id });
}

const signIn = (identity: UserIdentity, appId = app.id) => findOrCreateUser(db, { appId, identity, now: T0 });

describe('findOrCreateUser', () => {
  before(seedApps);

  test('the first sign-in creates a usr_ user with the identity; the next finds the same user', async () => {
    const email = freshEmail();
    const first = await signIn(emailIdentity(email));
    assert.match(first.id, /^usr_[0-9A-Za-z]{22}$/);
    assert.equal(first.email, email);
    assert.equal(first.lastProvider, 'email');
    assert.deepEqual(first.createdAt, T0);
    assert.equal(first.externalId, null);
    const again = await signIn(emailIdentity(email.toUpperCase()));
    assert.equal(again.id, first.id, 'email identities are compared lower case');
    assert.equal(
      await db('user_identities')
        .where({ user_id: first.id })
        .count()
        .first()
        .then((r) => Number(r!.count)),
      1,
    );
  });

  test('a provider identity with the verified email of a user is linked to that user', async () => {
    const email = freshEmail();
    const byEmail = await signIn(emailIdentity(email));
    const byGoogle = await signIn({ provider: 'google', subject: 'google-sub-1', email: email.toUpperCase() });
    assert.equal(byGoogle.id, byEmail.id);
    assert.deepEqual((await providersOf(db, [byEmail.id])).get(byEmail.id), ['email', 'google']);
    // the linked identity now finds the user by itself
    assert.equal((await signIn({ provider: 'google', subject: 'google-sub-1', email: null })).id, byEmail.id);
  });

  test('an identity without an email is a new user each time a new subject signs in', async () => {
    const a = await signIn({ provider: 'github', subject: '1001', email: null });
    const b = await signIn({ provider: 'github', subject: '1002', email: null });
    assert.notEqual(a.id, b.id);
    assert.equal(a.email, null);
    assert.equal((await signIn({ provider: 'github', subject: '1001', email: null })).id, a.id);
  });

  test('the same address in two apps is two users', async () => {
    const email = freshEmail();
    const a = await signIn(emailIdentity(email), app.id);
    const b = await signIn(emailIdentity(email), otherApp.id);
    assert.notEqual(a.id, b.id);
    assert.equal(b.appId, otherApp.id);
  });

  test('30 concurrent first sign-ins of one identity: one user, one identity row', async () => {
    const email = freshEmail();
    const users = await Promise.all(Array.from({ length: 30 }, () => signIn(emailIdentity(email))));
    assert.equal(new Set(users.map((u) => u.id)).size, 1);
    assert.equal((await db('users').where({ app_id: app.id, email })).length, 1);
    assert.equal((await db('user_identities').where({ app_id: app.id, provider: 'email', subject: email })).length, 1);
  });

  test('concurrent first sign-ins of one person by email, Google and GitHub: one user with the three identities', async () => {
    for (let round = 0; round < 5; round++) {
      const email = freshEmail();
      const identities: UserIdentity[] = [
        emailIdentity(email),
        { provider: 'google', subject: `g-${email}`, email },
        { provider: 'github', subject: `gh-${email}`, email },
      ];
      const users = await Promise.all([...identities, ...identities].map((i) => signIn(i)));
      assert.equal(new Set(users.map((u) => u.id)).size, 1, `round ${round}: one user`);
      assert.equal((await db('user_identities').where({ user_id: users[0]!.id })).length, 3);
    }
  });

  test('concurrent first sign-ins of one GitHub account without email: one user, no orphan user', async () => {
    const before = Number((await db('users').where({ app_id: app.id }).count().first())!.count);
    const users = await Promise.all(
      Array.from({ length: 20 }, () => signIn({ provider: 'github', subject: 'race-2001', email: null })),
    );
    assert.equal(new Set(users.map((u) => u.id)).size, 1);
    assert.equal(Number((await db('users').where({ app_id: app.id }).count().first())!.count), before + 1);
  });
});

describe('recordSignIn', () => {
  before(seedApps);

  test('sets the last provider and last-seen time', async () => {
    const user = await signIn(emailIdentity(freshEmail()));
    const later = new Date(T0.getTime() + 60_000);
    const seen = await recordSignIn(db, user.id, 'google', later);
    assert.equal(seen.lastProvider, 'google');
    assert.deepEqual(seen.lastSeenAt, later);
  });
});

describe('setExternalId', () => {
  before(seedApps);

  async function refusal(work: Promise<unknown>): Promise<AppError> {
    const err = await work.then(
      () => assert.fail('expected a refusal'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof AppError, String(err));
    return err;
  }

  test('sets, finds by, keeps when unchanged, and clears with null', async () => {
    const user = await signIn(emailIdentity(freshEmail()));
    assert.equal((await setExternalId(db, app.id, user.id, 'customer-1')).externalId, 'customer-1');
    assert.equal((await findUserByExternalId(db, app.id, 'customer-1'))?.id, user.id);
    assert.equal((await setExternalId(db, app.id, user.id, 'customer-1')).externalId, 'customer-1');
    assert.equal((await setExternalId(db, app.id, user.id, null)).externalId, null);
    assert.equal(await findUserByExternalId(db, app.id, 'customer-1'), undefined);
  });

  test('an id another user of the app has: EXTERNAL_ID_TAKEN, nothing changes; another app may use it', async () => {
    const a = await signIn(emailIdentity(freshEmail()));
    const b = await signIn(emailIdentity(freshEmail()));
    await setExternalId(db, app.id, a.id, 'taken-1');
    await setExternalId(db, app.id, b.id, 'mine');
    assert.equal((await refusal(setExternalId(db, app.id, b.id, 'taken-1'))).code, 'EXTERNAL_ID_TAKEN');
    assert.equal((await findUserByExternalId(db, app.id, 'mine'))?.id, b.id);
    const c = await signIn(emailIdentity(freshEmail()), otherApp.id);
    assert.equal((await setExternalId(db, otherApp.id, c.id, 'taken-1')).externalId, 'taken-1');
  });

  test('10 users claiming one id at once: exactly one gets it', async () => {
    const users = await Promise.all(Array.from({ length: 10 }, () => signIn(emailIdentity(freshEmail()))));
    const results = await Promise.allSettled(users.map((u) => setExternalId(db, app.id, u.id, 'contested')));
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
    for (const r of results)
      if (r.status === 'rejected') assert.equal((r.reason as AppError).code, 'EXTERNAL_ID_TAKEN');
  });

  test('a user of another app, or no such user: USER_NOT_FOUND', async () => {
    const user = await signIn(emailIdentity(freshEmail()), otherApp.id);
    assert.equal((await refusal(setExternalId(db, app.id, user.id, 'x'))).code, 'USER_NOT_FOUND');
    assert.equal((await refusal(setExternalId(db, app.id, 'usr_nobody', 'x'))).code, 'USER_NOT_FOUND');
  });
});
