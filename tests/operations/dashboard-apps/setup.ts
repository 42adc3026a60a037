// What tests of the dashboard-apps operations in this folder share: the service they run against, its state and helpers
// (the tests are in <operationId>.test.ts). What they cover:
// Dashboard apps over HTTP with real operator sessions, every answer checked against the contract: create, list, read,
// change, archive and restore; object-level authorization (another operator's app is a 404 exactly like a missing
// one and is never listed), owner-only archive and restore (403 for admins and developers), archived-app behaviour
// (hidden, 404 everywhere but getApp and restoreApp, its keys refused by the gate).
import { after, before } from 'node:test';
import { signInOperator, teamAppOf, type OperatorClient } from '../../support/operators';
import { startTestService, type TestService } from '../../support/service';

export const ISSUER = 'GBBD47IF6LWK7P7MDEVSCWR7DPUWV3NY3DTQEVFL4NAT4AQH3ZLLFLA5';
export const BAD_CHECKSUM_ISSUER = 'GBBD47IF6LWK7P7MDEVSCWR7DPUWV3NY3DTQEVFL4NAT4AQH3ZLLFLA6';
export const VALID_G = 'GCQ53WWRBL6HVSDNRMZKFZD7SP5DKYC6JFWSRLPQCVGD6Y42TYIN73Q2';

/** Set by useService()'s hooks: ES module bindings are live, so read them inside tests, not at load time. */
export let svc: TestService;
export let owner: OperatorClient;
export let admin: OperatorClient;
export let developer: OperatorClient;
export let outsider: OperatorClient;

/** A new app of `owner` with `admin` and `developer` on its team. */
export const teamApp = (name = 'Team app'): Promise<string> =>
  teamAppOf(
    owner,
    [
      [admin, 'admin'],
      [developer, 'developer'],
    ],
    name,
  );

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
