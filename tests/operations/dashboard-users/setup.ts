// What tests of the dashboard-users operations in this folder share: the service they run against, its state and helpers
// (the tests are in <operationId>.test.ts). What they cover:
// Dashboard Users page, on real PostgreSQL: the app's users newest first with provider, wallet and last seen; search
// by email, externalId, userId (exact or prefix) and wallet address; offset and cursor paging over the same order; one
// user with every provider and wallet; object-level authorization (members only, users of this app only).
import { after, before } from 'node:test';
import { findOrCreateUser } from '../../../src/domain/users/users';
import { seedCredentials, type SeededCredentials } from '../../support/credentials';
import { signInOperator, testEmail, type OperatorClient } from '../../support/operators';
import { startTestService, type TestService } from '../../support/service';
import { signInUser, type UserClient } from '../../support/users';

/** Set by useService()'s hooks: ES module bindings are live, so read them inside tests, not at load time. */
export let svc: TestService;
export let creds: SeededCredentials;
export let owner: OperatorClient;
export let signedIn: UserClient[];
/** Every user id of the app, newest first. */
export let allIds: string[];
export const SEEDED = 23;

export const list = (query = '', op: OperatorClient = owner, appId = creds.app.id) =>
  op.call('listAppUsers', 'GET', `/api/v1/apps/${appId}/users${query}`);

/** Starts the service (and what the tests need of it) before the calling suite's tests and stops it after. */
export function useService(): void {
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
}
