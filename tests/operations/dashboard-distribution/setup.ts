// What the dashboard-distribution operations' tests in this folder share: a service, operators (an owner with a
// developer on the team, and an outsider), apps with a configured issued asset, and helpers to call the rule and push
// operations and read what they stored and audited.
import { after, before } from 'node:test';
import { Keypair } from '@stellar/stellar-sdk';
import type { OperationId } from '../../../generated/server/catalogue.gen';
import { findApp, updateAppSettings } from '../../../src/domain/apps/store';
import { userWallet } from '../../support/funding';
import { signInOperator, teamAppOf, type OperatorClient } from '../../support/operators';
import { call, type CallOptions } from '../../support/http';
import { startTestService, type TestService } from '../../support/service';
import { untilPushCompleted } from '../../support/pushes';

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

/** `?name=value&...` of the parameters given (none: ''). */
export function query(params: Record<string, string | number | undefined>): string {
  const given = Object.entries(params).filter((e): e is [string, string | number] => e[1] !== undefined);
  return given.length === 0 ? '' : `?${new URLSearchParams(given.map(([k, v]) => [k, String(v)])).toString()}`;
}

/** The pushes' collection path; a push's path is `${pushesPath(appId)}/${pushId}`. */
export const pushesPath = (appId: string) => `/api/v1/apps/${appId}/distribution/pushes`;
export const createPush = (client: OperatorClient, appId: string, body: unknown, opts: CallOptions = {}) =>
  client.call('createDistributionPush', 'POST', pushesPath(appId), { ...opts, body });
export const listPushes = (client: OperatorClient, appId: string, params: { limit?: number; cursor?: string } = {}) =>
  client.call('listDistributionPushes', 'GET', `${pushesPath(appId)}${query(params)}`);
export const getPush = (client: OperatorClient, appId: string, pushId: string) =>
  client.call('getDistributionPush', 'GET', `${pushesPath(appId)}/${pushId}`);
export const listRecipients = (
  client: OperatorClient,
  appId: string,
  pushId: string,
  params: { status?: string; limit?: number; cursor?: string } = {},
) => client.call('listDistributionPushRecipients', 'GET', `${pushesPath(appId)}/${pushId}/recipients${query(params)}`);
export const retryPush = (client: OperatorClient, appId: string, pushId: string, opts: CallOptions = {}) =>
  client.call('retryDistributionPush', 'POST', `${pushesPath(appId)}/${pushId}/retry`, opts);

/** A valid new push: 1 XLM to each of `recipients`. */
export const xlmPush = (recipients: Record<string, string[]>, overrides: Record<string, unknown> = {}) => ({
  name: 'Airdrop',
  asset: 'native',
  amount: '1',
  recipients,
  ...overrides,
});

/** Creates a push as `client` (the owner by default) and answers its DistributionPush. */
export async function newPush(
  appId: string,
  recipients: Record<string, string[]>,
  overrides: Record<string, unknown> = {},
  client: OperatorClient = owner,
): Promise<any> {
  const res = await createPush(client, appId, xlmPush(recipients, overrides));
  if (res.status !== 201) throw new Error(`createDistributionPush answered ${res.status}: ${res.text}`);
  return res.body.content;
}

/**
 * A new end user of the app with an unfunded custodial wallet on the app's network (the wallet row only: nothing on
 * the chain), with `externalId` as the app's own id for them when given.
 */
export async function appUser(
  appId: string,
  externalId?: string,
): Promise<{ userId: string; walletId: string; address: string }> {
  const wallet = await userWallet(svc, (await findApp(svc.deps.db, appId))!);
  if (externalId !== undefined)
    await svc.deps.db('users').where({ id: wallet.userId! }).update({ external_id: externalId });
  return { userId: wallet.userId!, walletId: wallet.id, address: wallet.publicKey };
}

/** Polls getDistributionPush (as `client`) until the push is `completed`; answers it. */
export async function untilCompleted(
  client: OperatorClient,
  appId: string,
  pushId: string,
  timeoutMs = 60_000,
): Promise<any> {
  return untilPushCompleted(() => getPush(client, appId, pushId), pushId, timeoutMs);
}

export { recipientLine } from '../../support/pushes';

/** The stored pushes of an app. */
export const storedPushes = (appId: string) => svc.deps.db('distribution_pushes').where({ app_id: appId });

/**
 * The service runs no background jobs (WORKERS=off): the push runner never takes a recipient, so a push is read as it
 * was created (`pending` stays `pending`). For the suites of what creating and reading store; the runner's suites
 * (getDistributionPush, retryDistributionPush) run it as the service does.
 */
export const WITHOUT_JOBS = { WORKERS: 'off' };

/**
 * Starts the service (and what the tests need of it) before the calling suite's tests and stops it after; `env` is
 * added to the service's configuration (e.g. WITHOUT_JOBS).
 */
export function useService(env: Record<string, string> = {}): void {
  before(async () => {
    svc = await startTestService(env);
    [owner, developer, outsider] = await Promise.all([signInOperator(svc), signInOperator(svc), signInOperator(svc)]);
  });
  after(async () => {
    await svc?.stop();
  });
}
