// listAppUsers (GET /api/v1/apps/{appId}/users): list the app's users. Shared set-up: setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { addMember } from '../../../src/domain/apps/members';
import { setExternalId } from '../../../src/domain/users/users';
import { signInOperator, testEmail } from '../../support/operators';
import { SEEDED, allIds, creds, list, signedIn, svc, useService } from './setup';

describe('listAppUsers', () => {
  useService();

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

  test('a cursor this list did not make: 400 INVALID_CURSOR', async () => {
    for (const cursor of [
      'garbage',
      Buffer.from(JSON.stringify({ after: 'usr_notauser000000000000' })).toString('base64url'),
    ]) {
      const res = await list(`?cursor=${cursor}`);
      assert.equal(res.status, 400);
      assert.equal(res.body.code, 'INVALID_CURSOR');
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
});
