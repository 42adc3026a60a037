// setUserExternalId (PUT /v1/users/{userId}/external-id): set or clear a user's external id.
// Shared set-up: externalId.setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { signInUser } from '../../support/users';
import { creds, getUser, setExternalId, svc, useService } from './externalId.setup';

describe('setUserExternalId', () => {
  useService();

  test('the next sign-in shows the externalId in the sign-in answer', async () => {
    const user = await signInUser(svc, creds);
    await setExternalId(user.userId, 'shown-at-sign-in');
    await svc.deps
      .db('email_codes')
      .where({ email: user.email })
      .update({ sent_at: new Date(Date.now() - 61_000) });
    const again = await signInUser(svc, creds, user.email);
    assert.equal(again.signIn.user.externalId, 'shown-at-sign-in');
  });

  test('the value the user already has: unchanged; null clears it (then getUser: 404 USER_NOT_FOUND)', async () => {
    const user = await signInUser(svc, creds);
    await setExternalId(user.userId, 'same-1');
    const same = await setExternalId(user.userId, 'same-1');
    assert.equal(same.status, 200);
    assert.equal(same.body.content.externalId, 'same-1');
    const cleared = await setExternalId(user.userId, null);
    assert.equal(cleared.body.content.externalId, null);
    const gone = await getUser('same-1');
    assert.equal(gone.status, 404);
    assert.equal(gone.body.code, 'USER_NOT_FOUND');
  });

  test("another user's externalId: 409 EXTERNAL_ID_TAKEN and nothing changes", async () => {
    const a = await signInUser(svc, creds);
    const b = await signInUser(svc, creds);
    await setExternalId(a.userId, 'taken');
    await setExternalId(b.userId, 'b-own');
    const res = await setExternalId(b.userId, 'taken');
    assert.equal(res.status, 409);
    assert.equal(res.body.code, 'EXTERNAL_ID_TAKEN');
    assert.equal((await getUser('taken')).body.content.userId, a.userId);
    assert.equal((await getUser('b-own')).body.content.userId, b.userId);
  });

  test('a malformed externalId: 400 VALIDATION_ERROR', async () => {
    const user = await signInUser(svc, creds);
    const res = await setExternalId(user.userId, 'has spaces');
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'VALIDATION_ERROR');
  });
});
