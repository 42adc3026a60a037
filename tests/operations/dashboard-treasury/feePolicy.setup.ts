// What tests of the dashboard-treasury operations in this folder share: the service they run against, its state and helpers
// (the tests are in <operationId>.test.ts). What they cover:
// The fee-bump policy over HTTP with real operator sessions, every answer checked against the contract: the defaults,
// a full replacement read back exactly, the audit entry, field errors (the fee range, assets the app does not
// configure, merge destinations) with nothing stored, who may read and change it, and cross-operator isolation.
import { after, before } from 'node:test';
import { updateAppSettings } from '../../../src/domain/apps/store';
import { signInOperator, teamAppOf, type OperatorClient } from '../../support/operators';
import { startTestService, type TestService } from '../../support/service';

export const USDC = 'USDC:GBBD47IF6LWK7P7MDEVSCWR7DPUWV3NY3DTQEVFL4NAT4AQH3ZLLFLA5';
export const EURC = 'EURC:GCQ53WWRBL6HVSDNRMZKFZD7SP5DKYC6JFWSRLPQCVGD6Y42TYIN73Q2';
export const DEST = 'GCQ53WWRBL6HVSDNRMZKFZD7SP5DKYC6JFWSRLPQCVGD6Y42TYIN73Q2';

export const DEFAULTS = {
  maxFeePerTxXlm: '10',
  dailyOpsCap: null,
  approvedAssets: [],
  gasMinimumBalanceXlm: '10',
  allowAccountMerge: false,
  accountMergeDestinations: [],
};

export const CUSTOM = {
  maxFeePerTxXlm: '0.0123456',
  dailyOpsCap: 500,
  approvedAssets: ['native', USDC],
  gasMinimumBalanceXlm: '25.5',
  allowAccountMerge: true,
  accountMergeDestinations: [DEST],
};

/** Set by useService()'s hooks: ES module bindings are live, so read them inside tests, not at load time. */
export let svc: TestService;
export let owner: OperatorClient;
export let admin: OperatorClient;
export let developer: OperatorClient;
export let outsider: OperatorClient;

/** An app configuring USDC, with an admin and a developer besides its owner. */
export async function teamApp(): Promise<string> {
  const appId = await teamAppOf(
    owner,
    [
      [admin, 'admin'],
      [developer, 'developer'],
    ],
    'Fee policy app',
  );
  await updateAppSettings(svc.deps.db, appId, { assets: [USDC] });
  return appId;
}

export const get = (client: OperatorClient, appId: string) =>
  client.call('getFeePolicy', 'GET', `/api/v1/apps/${appId}/fee-policy`);
export const put = (client: OperatorClient, appId: string, body: unknown) =>
  client.call('updateFeePolicy', 'PUT', `/api/v1/apps/${appId}/fee-policy`, { body });

/** Starts the service (and what the tests need of it) before the calling suite's tests and stops it after. */
export function useService(): void {
  before(async () => {
    svc = await startTestService({ LOCALNET: 'off' });
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
