// What the Server API distribution rule tests (<operationId>.test.ts for listServerDistributionRules,
// createServerDistributionRule, updateServerDistributionRule, deleteServerDistributionRule) share: a service, apps
// seeded with a secret key and their global wallet (which does distribution), and helpers. The rules' own checks are
// one domain module with the Dashboard API's (tests/operations/dashboard-distribution/ go through each); these tests
// check the Server API surface: the key's app, its network, the key as the audited actor.
import { after, before } from 'node:test';
import { updateAppSettings } from '../../../src/domain/apps/store';
import { ensureAppWallet } from '../../../src/domain/wallets/appWallets';
import { seedCredentials, type SeededCredentials } from '../../support/credentials';
import { call, type CallOptions } from '../../support/http';
import { startTestService, type TestService } from '../../support/service';

/** Set by useService()'s hooks: ES module bindings are live, so read them inside tests, not at load time. */
export let svc: TestService;

/** A seeded app with its global wallet (no account on the chain is needed for rules) and `assets` configured. */
export async function keyApp(opts: { assets?: string[]; wallet?: boolean } = {}): Promise<SeededCredentials> {
  const creds = await seedCredentials(svc.deps.db);
  if (opts.wallet !== false) await ensureAppWallet(svc.deps, { app: creds.app, role: 'global' });
  if (opts.assets) await updateAppSettings(svc.deps.db, creds.app.id, { assets: opts.assets });
  return creds;
}

const key = (secretKey: string, opts: CallOptions = {}): CallOptions => ({
  ...opts,
  headers: { ...opts.headers, 'x-service-api-key': secretKey },
});

export const listRules = (secretKey: string) =>
  call(svc.url, 'listServerDistributionRules', 'GET', '/v1/distribution-rules', key(secretKey));
export const createRule = (secretKey: string, body: unknown, opts: CallOptions = {}) =>
  call(svc.url, 'createServerDistributionRule', 'POST', '/v1/distribution-rules', key(secretKey, { ...opts, body }));
export const updateRule = (secretKey: string, ruleId: string, body: unknown) =>
  call(svc.url, 'updateServerDistributionRule', 'PATCH', `/v1/distribution-rules/${ruleId}`, key(secretKey, { body }));
export const deleteRule = (secretKey: string, ruleId: string) =>
  call(svc.url, 'deleteServerDistributionRule', 'DELETE', `/v1/distribution-rules/${ruleId}`, key(secretKey));

/** A valid new rule: 1 XLM per claim, nothing else set. */
export const xlmRule = (overrides: Record<string, unknown> = {}) => ({
  name: 'Welcome bonus',
  asset: 'native',
  amountPerClaim: '1',
  ...overrides,
});

/** The app's audit entries of a distribution rule action, oldest first. */
export const auditOf = (appId: string, action: string) =>
  svc.deps.db('audit_log').where({ app_id: appId, action }).orderBy('created_at');

/** Starts the service before the calling suite's tests and stops it after. */
export function useService(): void {
  before(async () => {
    svc = await startTestService();
  });
  after(async () => {
    await svc?.stop();
  });
}
