// What the Server API distribution push tests (<operationId>.test.ts for createServerDistributionPush,
// listServerDistributionPushes, getServerDistributionPush, listServerDistributionPushRecipients,
// retryServerDistributionPush) share: a service, apps seeded with a secret key and their global wallet (which does
// distribution), their users, and helpers. The pushes' own rules are one domain module with the Dashboard API's
// (tests/operations/dashboard-distribution/ go through each, and pay a push on the localnet); these tests check the
// Server API surface: the key's app, the key as the audited actor, the runner's outcome read through the key.
import { after, before } from 'node:test';
import { updateAppSettings } from '../../../src/domain/apps/store';
import { ensureAppWallet } from '../../../src/domain/wallets/appWallets';
import { seedCredentials, type SeededCredentials } from '../../support/credentials';
import { userWallet } from '../../support/funding';
import { call, type CallOptions } from '../../support/http';
import { startTestService, type TestService } from '../../support/service';
import { untilPushCompleted } from '../../support/pushes';

/** Set by useService()'s hooks: ES module bindings are live, so read them inside tests, not at load time. */
export let svc: TestService;

/** A seeded app with its global wallet (no account on the chain is needed to record a push) and `assets` configured. */
export async function keyApp(opts: { assets?: string[]; wallet?: boolean } = {}): Promise<SeededCredentials> {
  const creds = await seedCredentials(svc.deps.db);
  if (opts.wallet !== false) await ensureAppWallet(svc.deps, { app: creds.app, role: 'global' });
  if (opts.assets) await updateAppSettings(svc.deps.db, creds.app.id, { assets: opts.assets });
  return creds;
}

/** A new user of the key's app with an unfunded custodial wallet on its network (the wallet row only). */
export async function keyAppUser(
  creds: SeededCredentials,
): Promise<{ userId: string; walletId: string; address: string }> {
  const wallet = await userWallet(svc, creds.app);
  return { userId: wallet.userId!, walletId: wallet.id, address: wallet.publicKey };
}

const key = (secretKey: string, opts: CallOptions = {}): CallOptions => ({
  ...opts,
  headers: { ...opts.headers, 'x-service-api-key': secretKey },
});

/** `?name=value&...` of the parameters given (none: ''). */
function query(params: Record<string, string | number | undefined>): string {
  const given = Object.entries(params).filter((e): e is [string, string | number] => e[1] !== undefined);
  return given.length === 0 ? '' : `?${new URLSearchParams(given.map(([k, v]) => [k, String(v)])).toString()}`;
}

export const PUSHES_PATH = '/v1/distribution-pushes';
export const createPush = (secretKey: string, body: unknown, opts: CallOptions = {}) =>
  call(svc.url, 'createServerDistributionPush', 'POST', PUSHES_PATH, key(secretKey, { ...opts, body }));
export const listPushes = (secretKey: string, params: { limit?: number; cursor?: string } = {}) =>
  call(svc.url, 'listServerDistributionPushes', 'GET', `${PUSHES_PATH}${query(params)}`, key(secretKey));
export const getPush = (secretKey: string, pushId: string) =>
  call(svc.url, 'getServerDistributionPush', 'GET', `${PUSHES_PATH}/${pushId}`, key(secretKey));
export const listRecipients = (
  secretKey: string,
  pushId: string,
  params: { status?: string; limit?: number; cursor?: string } = {},
) =>
  call(
    svc.url,
    'listServerDistributionPushRecipients',
    'GET',
    `${PUSHES_PATH}/${pushId}/recipients${query(params)}`,
    key(secretKey),
  );
export const retryPush = (secretKey: string, pushId: string, opts: CallOptions = {}) =>
  call(svc.url, 'retryServerDistributionPush', 'POST', `${PUSHES_PATH}/${pushId}/retry`, key(secretKey, opts));
/** setUserExternalId: the app's own id for one of its users. */
export const setExternalId = (secretKey: string, userId: string, externalId: string) =>
  call(
    svc.url,
    'setUserExternalId',
    'PUT',
    `/v1/users/${userId}/external-id`,
    key(secretKey, { body: { externalId } }),
  );

/** A valid new push: 1 XLM to each of `recipients`. */
export const xlmPush = (recipients: Record<string, string[]>, overrides: Record<string, unknown> = {}) => ({
  name: 'Airdrop',
  asset: 'native',
  amount: '1',
  recipients,
  ...overrides,
});

/** Creates a push through the key and answers its DistributionPush. */
export async function newPush(
  secretKey: string,
  recipients: Record<string, string[]>,
  overrides: Record<string, unknown> = {},
): Promise<any> {
  const res = await createPush(secretKey, xlmPush(recipients, overrides));
  if (res.status !== 201) throw new Error(`createServerDistributionPush answered ${res.status}: ${res.text}`);
  return res.body.content;
}

/** Polls getServerDistributionPush until the push is `completed`; answers it. */
export async function untilCompleted(secretKey: string, pushId: string, timeoutMs = 60_000): Promise<any> {
  return untilPushCompleted(() => getPush(secretKey, pushId), pushId, timeoutMs);
}

export { recipientLine } from '../../support/pushes';

/** The app's audit entries of an action, oldest first. */
export const auditOf = (appId: string, action: string) =>
  svc.deps.db('audit_log').where({ app_id: appId, action }).orderBy('created_at');

/**
 * The service runs no background jobs (WORKERS=off): the push runner never takes a recipient, so a push is read as it
 * was created. For the suites of what creating and reading store; getServerDistributionPush and
 * retryServerDistributionPush run the runner as the service does.
 */
export const WITHOUT_JOBS = { WORKERS: 'off' };

/** Starts the service (with `env` added to its configuration) before the calling suite's tests and stops it after. */
export function useService(env: Record<string, string> = {}): void {
  before(async () => {
    svc = await startTestService(env);
  });
  after(async () => {
    await svc?.stop();
  });
}
