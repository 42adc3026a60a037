// What the dashboard-distribution operations' tests in this folder share: a service, operators (an owner with a
// developer on the team, and an outsider), apps with a configured issued asset, and helpers to call the four
// operations and read what they stored and audited.
import { after, before } from 'node:test';
import { Keypair } from '@stellar/stellar-sdk';
import type { OperationId } from '../../../generated/server/catalogue.gen';
import { updateAppSettings } from '../../../src/domain/apps/store';
import { signInOperator, teamAppOf, type OperatorClient } from '../../support/operators';
import { call, type CallOptions } from '../../support/http';
import { startTestService, type TestService } from '../../support/service';

/** Set by useService()'s hooks: ES module bindings are live, so read them inside tests, not at load time. */
export let svc: TestService;
export let owner: OperatorClient;
export let developer: OperatorClient;
export let outsider: OperatorClient;

/** An issued asset of a random issuer (`CODE:ISSUER`); nothing on the ledger is needed to configure it. */
export const issuedAsset = (code = 'USDC'): string => `${code}:${Keypair.random().publicKey()}`;

/**
 * A new app of `owner` (with its global wallet, which does distribution in the single layout) with `developer` on
 * its team and `assets` configured; answers the app id.
 */
export async function teamApp(assets: string[] = []): Promise<string> {
  const appId = await teamAppOf(owner, [[developer, 'developer']], 'Distribution app');
  if (assets.length > 0) await updateAppSettings(svc.deps.db, appId, { assets });
  return appId;
}

/** Leaves the app without a wallet doing distribution: its global wallet becomes the split layout's funding wallet. */
export async function withoutDistributionWallet(appId: string): Promise<void> {
  await svc.deps.db('wallets').where({ app_id: appId, role: 'global' }).update({ role: 'funding' });
}

/** The rules' collection path; a rule's path is `${rulesPath(appId)}/${ruleId}`. */
export const rulesPath = (appId: string) => `/api/v1/apps/${appId}/distribution/rules`;
const rules = rulesPath;
export const listRules = (client: OperatorClient, appId: string) =>
  client.call('listAppDistributionRules', 'GET', rules(appId));
export const createRule = (client: OperatorClient, appId: string, body: unknown, opts: CallOptions = {}) =>
  client.call('createDistributionRule', 'POST', rules(appId), { ...opts, body });
export const updateRule = (client: OperatorClient, appId: string, ruleId: string, body: unknown) =>
  client.call('updateDistributionRule', 'PATCH', `${rules(appId)}/${ruleId}`, { body });
export const deleteRule = (client: OperatorClient, appId: string, ruleId: string) =>
  client.call('deleteDistributionRule', 'DELETE', `${rules(appId)}/${ruleId}`);
/** A call without a session (401), checked against the contract. */
export const anonymous = (operationId: OperationId, method: string, path: string, body?: unknown) =>
  call(svc.url, operationId, method, path, body === undefined ? {} : { body });

/** A valid new rule: 1 XLM per claim, nothing else set. */
export const xlmRule = (overrides: Record<string, unknown> = {}) => ({
  name: 'Welcome bonus',
  asset: 'native',
  amountPerClaim: '1',
  ...overrides,
});

/** Creates a rule as the owner and answers its DistributionRule. */
export async function newRule(appId: string, overrides: Record<string, unknown> = {}): Promise<any> {
  const res = await createRule(owner, appId, xlmRule(overrides));
  if (res.status !== 201) throw new Error(`createDistributionRule answered ${res.status}: ${res.text}`);
  return res.body.content;
}

/** The stored row of a rule (deleted or not). */
export const storedRule = (ruleId: string) => svc.deps.db('distribution_rules').where({ id: ruleId }).first();

/** The app's audit entries of an action, oldest first. */
export const auditOf = (appId: string, action: string) =>
  svc.deps.db('audit_log').where({ app_id: appId, action }).orderBy('created_at');

/** Starts the service (and what the tests need of it) before the calling suite's tests and stops it after. */
export function useService(): void {
  before(async () => {
    svc = await startTestService();
    [owner, developer, outsider] = await Promise.all([signInOperator(svc), signInOperator(svc), signInOperator(svc)]);
  });
  after(async () => {
    await svc?.stop();
  });
}
