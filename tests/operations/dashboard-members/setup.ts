// What tests of the dashboard-members operations in this folder share: the service they run against, its state and helpers
// (the tests are in <operationId>.test.ts). What they cover:
// Dashboard members over HTTP with real operator sessions, every answer checked against the contract: listing (any
// member), invitations by email (owner only; an operator record for a new address, the invitation mailed after
// commit, joinedAt set at sign-in), role changes and ownership transfer (exactly one owner, LAST_OWNER), removal,
// cross-operator isolation, archived apps, and concurrency on real PostgreSQL (two transfers at once, two invitations
// of one address at once).
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { signInOperator, type OperatorClient } from '../../support/operators';
import { startTestService, type TestService } from '../../support/service';

/** Set by useService()'s hooks: ES module bindings are live, so read them inside tests, not at load time. */
export let svc: TestService;
export let owner: OperatorClient;
export let admin: OperatorClient;
export let developer: OperatorClient;
export let outsider: OperatorClient;

export async function createApp(client: OperatorClient, name = 'Team app'): Promise<string> {
  const res = await client.call('createApp', 'POST', '/api/v1/apps', { body: { name, network: 'testnet' } });
  assert.equal(res.status, 201, res.text);
  return res.body.content.appId;
}

export async function invite(
  client: OperatorClient,
  appId: string,
  email: string,
  role: 'admin' | 'developer',
): Promise<any> {
  const res = await client.call('addMember', 'POST', `/api/v1/apps/${appId}/members`, { body: { email, role } });
  assert.equal(res.status, 201, res.text);
  return res.body.content;
}

/** A new app of `owner` with `admin` and `developer` on its team; returns the app id and the member ids. */
export async function teamApp(): Promise<{
  appId: string;
  ownerMemberId: string;
  adminMemberId: string;
  developerMemberId: string;
}> {
  const appId = await createApp(owner);
  const adminMember = await invite(owner, appId, admin.email, 'admin');
  const developerMember = await invite(owner, appId, developer.email, 'developer');
  const list = await owner.call('listMembers', 'GET', `/api/v1/apps/${appId}/members`);
  return {
    appId,
    ownerMemberId: list.body.content.members[0].memberId,
    adminMemberId: adminMember.memberId,
    developerMemberId: developerMember.memberId,
  };
}

export async function owners(appId: string): Promise<{ members: string[]; app: string }> {
  const members = await svc.deps.db('app_members').where({ app_id: appId, role: 'owner' }).pluck('operator_id');
  const app = (await svc.deps.db('apps').where({ id: appId }).first()).owner_operator_id;
  return { members, app };
}

/** Starts the service (and what the tests need of it) before the calling suite's tests and stops it after. */
export function useService(): void {
  before(async () => {
    svc = await startTestService();
    [owner, admin, developer, outsider] = await Promise.all([
      signInOperator(svc),
      signInOperator(svc),
      signInOperator(svc),
      signInOperator(svc),
    ]);
  });
  after(async () => {
    await svc?.stop();
  });
}
