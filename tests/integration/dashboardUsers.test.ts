// Dashboard Users page, on real PostgreSQL: the app's users newest first with provider, wallet and last seen; search
// by email, externalId, userId (exact or prefix) and wallet address; offset and cursor paging over the same order; one
// user with every provider and wallet; object-level authorization (members only, users of this app only).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { addMember } from '../../src/domain/apps/members';
import { findOrCreateUser, recordSignIn, setExternalId } from '../../src/domain/users/users';
import { seedCredentials, type SeededCredentials } from '../support/credentials';
import { signInOperator, testEmail, type OperatorClient } from '../support/operators';
import { startTestService, type TestService } from '../support/service';
import { signInUser, type UserClient } from '../support/users';

describe('Dashboard: app users', () => {
  let svc: TestService;
  let creds: SeededCredentials;
  let owner: OperatorClient;
  let signedIn: UserClient[];
  /** Every user id of the app, newest first. */
  let allIds: string[];
  const SEEDED = 23;

  before(async () => {
    svc = await startTestService();
    creds = await seedCredentials(svc.deps.db);
    owner = await signInOperator(svc, creds.operator.email!);
    // 23 users without a sign-in through the API (so without a wallet), created a day apart in the past...
    for (let i = 0; i < SEEDED; i++) {
      const email = `seeded-${String(i).padStart(2, '0')}@example.com`;
      await findOrCreateUser(svc.deps.db, {
        appId: creds.app.id,
        identity: { provider: 'email', subject: email, email },
        now: new Date(Date.UTC(2020, 0, 1 + i)),
      });
    }
    // ...then two who signed in now, with wallets
    signedIn = [await signInUser(svc, creds, testEmail('ada')), await signInUser(svc, creds, testEmail('bob'))];
    allIds = (
      await svc.deps
        .db('users')
        .where({ app_id: creds.app.id })
        .orderBy([
          { column: 'created_at', order: 'desc' },
          { column: 'id', order: 'desc' },
        ])
    ).map((r) => r.id);
  });
  after(async () => {
    await svc?.stop();
  });

  const list = (query = '', op: OperatorClient = owner, appId = creds.app.id) =>
    op.call('listAppUsers', 'GET', `/api/v1/apps/${appId}/users${query}`);

  test('the first page: 20 users newest first, the total, a cursor; a signed-in user with provider, wallet and last seen', async () => {
    const res = await list();
    assert.equal(res.status, 200);
    assert.equal(res.body.code, 'APP_USERS_LISTED');
    const { users, total, limit, offset, nextCursor } = res.body.content;
    assert.deepEqual([total, limit, offset], [SEEDED + 2, 20, 0]);
    assert.ok(nextCursor);
    assert.deepEqual(
      users.map((u: { userId: string }) => u.userId),
      allIds.slice(0, 20),
    );
    const bob = users[0];
    assert.equal(bob.userId, signedIn[1]!.userId);
    assert.deepEqual(bob.wallet, {
      publicKey: signedIn[1]!.signIn.wallet.publicKey,
      funded: signedIn[1]!.signIn.wallet.funded,
    });
    assert.equal(bob.provider, 'email');
    assert.equal(bob.email, signedIn[1]!.email);
    assert.equal(bob.externalId, null);
    assert.ok(bob.lastSeenAt);
    const seeded = users.at(-1);
    assert.equal(seeded.wallet, null, 'no wallet yet');
    assert.equal(seeded.lastSeenAt, null);
  });

  test('offset and cursor paging walk the same users in the same order; the last page has no cursor', async () => {
    const byOffset: string[] = [];
    for (let offset = 0; offset < SEEDED + 2; offset += 7) {
      const page = (await list(`?limit=7&offset=${offset}`)).body.content;
      byOffset.push(...page.users.map((u: { userId: string }) => u.userId));
    }
    const byCursor: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: { users: { userId: string }[]; nextCursor: string | null } = (
        await list(`?limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)
      ).body.content;
      byCursor.push(...page.users.map((u) => u.userId));
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor);
    assert.equal(pages, 4);
    assert.deepEqual(byOffset, allIds);
    assert.deepEqual(byCursor, allIds);
  });

  test('a cursor this list did not make: 400 VALIDATION_ERROR', async () => {
    for (const cursor of [
      'garbage',
      Buffer.from(JSON.stringify({ after: 'usr_notauser000000000000' })).toString('base64url'),
    ]) {
      const res = await list(`?cursor=${cursor}`);
      assert.equal(res.status, 400);
      assert.equal(res.body.code, 'VALIDATION_ERROR');
    }
  });

  test('search: an email exactly or by prefix (any case), an externalId or userId prefix, a wallet address exactly', async () => {
    const ada = signedIn[0]!;
    await setExternalId(svc.deps.db, creds.app.id, ada.userId, 'crm-000123');
    const ids = async (search: string) => {
      const res = await list(`?search=${encodeURIComponent(search)}`);
      assert.equal(res.body.content.total, res.body.content.users.length);
      return res.body.content.users.map((u: { userId: string }) => u.userId);
    };
    assert.deepEqual(await ids(ada.email), [ada.userId]);
    assert.deepEqual(await ids(ada.email.slice(0, 8).toUpperCase()), [ada.userId]);
    assert.equal((await ids('seeded-1')).length, 10, 'seeded-10 to seeded-19');
    assert.deepEqual(await ids('crm-000'), [ada.userId]);
    assert.deepEqual(await ids(ada.userId.slice(0, 12)), [ada.userId]);
    assert.deepEqual(await ids(ada.signIn.wallet.publicKey), [ada.userId]);
    assert.deepEqual(await ids(ada.signIn.wallet.publicKey.slice(0, 20)), [], 'a wallet address matches only exactly');
    assert.deepEqual(await ids('seeded-%'), [], 'LIKE wildcards are literal');
    assert.deepEqual(await ids('seeded_0'), []);
  });

  test('a member of any role reads the list; an operator who is not a member gets 404 APPLICATION_NOT_FOUND', async () => {
    const devEmail = testEmail('dev');
    await addMember(svc.deps.db, { appId: creds.app.id, email: devEmail, role: 'developer', at: new Date() });
    const developer = await signInOperator(svc, devEmail);
    assert.equal((await list('', developer)).body.content.total, SEEDED + 2);
    const outsider = await signInOperator(svc);
    const res = await list('', outsider);
    assert.equal(res.status, 404);
    assert.equal(res.body.code, 'APPLICATION_NOT_FOUND');
    assert.equal(
      (await outsider.call('getAppUser', 'GET', `/api/v1/apps/${creds.app.id}/users/${allIds[0]}`)).body.code,
      'APPLICATION_NOT_FOUND',
    );
  });

  test('one user: every provider used and every wallet; the provider of the latest sign-in in the list', async () => {
    const ada = signedIn[0]!;
    await findOrCreateUser(svc.deps.db, {
      appId: creds.app.id,
      identity: { provider: 'google', subject: 'google-ada', email: ada.email },
      now: new Date(),
    });
    await recordSignIn(svc.deps.db, ada.userId, 'google', new Date());
    const res = await owner.call('getAppUser', 'GET', `/api/v1/apps/${creds.app.id}/users/${ada.userId}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.code, 'APP_USER_FETCHED');
    assert.equal(res.body.content.userId, ada.userId);
    assert.deepEqual(res.body.content.providers, ['email', 'google']);
    assert.deepEqual(res.body.content.wallets, [ada.signIn.wallet]);
    const row = (await list(`?search=${encodeURIComponent(ada.email)}`)).body.content.users[0];
    assert.equal(row.provider, 'google');
  });

  test("an unknown user, or a user of another of the operator's apps: 404 USER_NOT_FOUND", async () => {
    const otherApp = await owner.call('createApp', 'POST', '/api/v1/apps', {
      body: { name: 'Second', network: 'testnet' },
    });
    const otherAppId = otherApp.body.content.appId;
    const stranger = await findOrCreateUser(svc.deps.db, {
      appId: otherAppId,
      identity: { provider: 'github', subject: '77', email: null },
      now: new Date(),
    });
    for (const userId of [stranger.id, 'usr_doesnotexist00000000000']) {
      const res = await owner.call('getAppUser', 'GET', `/api/v1/apps/${creds.app.id}/users/${userId}`);
      assert.equal(res.status, 404);
      assert.equal(res.body.code, 'USER_NOT_FOUND');
    }
    const inItsApp = await owner.call('getAppUser', 'GET', `/api/v1/apps/${otherAppId}/users/${stranger.id}`);
    assert.equal(inItsApp.status, 200);
    assert.equal(inItsApp.body.content.email, null);
    assert.deepEqual(inItsApp.body.content.providers, ['github']);
    assert.deepEqual(inItsApp.body.content.wallets, []);
    assert.equal((await list('', owner, otherAppId)).body.content.users[0].userId, stranger.id);
  });
});
