// The admin commands behind `npm run admin -- <command> ...`, apart from process set-up so tests run them in-process
// against their own database. Keys are printed once, here, and never again: only their hashes are stored.
import { parseArgs } from 'node:util';
import type { Deps } from '../domain/deps';
import { createApiKey, listApiKeys, revokeApiKey, type CreatedApiKey } from '../domain/apiKeys/apiKeys';
import type { ApiKeyNetwork, ApiKeyType } from '../domain/apiKeys/keyFormat';
import { addAppOrigins, findApp, findOrCreateOperatorByEmail, normalizeOrigin, type App } from '../domain/apps/store';
import { fundAppWalletWithFriendbot } from '../domain/treasury/treasury';
import { createAppWithWallet } from '../domain/wallets/appWallets';
import type { WalletRecord } from '../domain/wallets/store';
import { listAllApps } from '../domain/apps/allApps';
import { table } from './table';

export const ADMIN_USAGE = `usage: npm run admin -- <command> [options]

  create-app --name <name> --network <testnet|mainnet> --owner-email <email> [--origin <https://host>]...
      creates the operator (unless one has this email), the app with its global wallet, and one publishable and one
      secret key of the network; prints the keys once; on testnet, funds the app wallet from friendbot
  create-key --app <app_...> --type <secret|publishable> --network <testnet|mainnet> [--label <text>] [--expires <ISO date>]
      mints one more key for an app; prints it once
  revoke-key --key <key_...>
      revokes a key (requests with it then answer API_KEY_NOT_FOUND)
  add-origin --app <app_...> --origin <https://host>...
      allows browser requests from these origins
  list-apps
      every app: id, name, network, status, owner, created, app wallet
  list-keys --app <app_...>
      the app's keys: id, display prefix, type, network, label, expiry, last use, revoked (never a secret)`;

export class UsageError extends Error {}

/** What the commands need; `stellar` only for funding a testnet app wallet (AdminOptions.stellar opens it otherwise). */
export type AdminDeps = Pick<Deps, 'db' | 'kms' | 'clock' | 'jobs'> & Partial<Pick<Deps, 'stellar'>>;

export interface AdminOptions {
  /** The service's public URL, for the curl line. */
  baseUrl?: string;
  /**
   * Opens the chain when a command first needs it and `deps.stellar` is absent (the CLI process: see admin.ts);
   * `note` prints a progress line.
   */
  stellar?: (note: (line: string) => void) => Promise<Deps['stellar']>;
}

/**
 * Funds a new testnet app's wallet from friendbot, as the Dashboard's createApp does, saying what happens. Friendbot or
 * the RPC out of reach is reported in one line (FRIENDBOT_NOT_AVAILABLE), never thrown: the app exists either way.
 */
async function fundNewAppWallet(
  deps: AdminDeps,
  app: App,
  publicKey: string,
  out: (line: string) => void,
  opts: AdminOptions,
): Promise<void> {
  if (app.network !== 'testnet') {
    out(`funding:         none on mainnet (no friendbot): send XLM to ${publicKey} before its users are funded`);
    return;
  }
  out(`funding:         asking friendbot to fund ${publicKey}...`);
  const stellar = deps.stellar ?? (await opts.stellar?.((line) => out(`                 ${line}`)));
  const result = await fundAppWalletWithFriendbot({ ...deps, ...(stellar ? { stellar } : {}) }, app);
  if (result.outcome === 'funded') out('funding:         done: the app wallet holds 10,000 XLM from friendbot');
  else if (result.outcome === 'exists') out('funding:         not needed: the app wallet already exists on the ledger');
  else if (result.outcome === 'unavailable') {
    out(`funding:         FRIENDBOT_NOT_AVAILABLE: ${result.reason}`);
    out(`                 the app was created; fund its wallet later by sending XLM to ${publicKey}`);
  }
}

function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], name: string): T {
  if (!value || !allowed.includes(value as T)) throw new UsageError(`--${name} must be one of ${allowed.join(', ')}`);
  return value as T;
}

function required(value: string | undefined, name: string): string {
  if (!value) throw new UsageError(`--${name} is required`);
  return value;
}

function origins(values: string[] | undefined): string[] {
  for (const o of values ?? [])
    if (!normalizeOrigin(o)) throw new UsageError(`--origin ${o} is not an origin (scheme://host[:port])`);
  return values ?? [];
}

/** An app made by create-app (or the demo seed), with the two keys that exist in clear only now. */
export interface CreatedApp {
  operator: { id: string; email: string | null };
  app: App;
  wallet: WalletRecord;
  allowedOrigins: string[];
  publishable: CreatedApiKey;
  secret: CreatedApiKey;
}

/** The operator (unless one has this email), the app with its global wallet, its origins and one key of each type. */
export async function createAppWithKeys(
  deps: AdminDeps,
  input: { name: string; network: ApiKeyNetwork; ownerEmail: string; origins: string[] },
): Promise<CreatedApp> {
  // The operator first (an operator without apps is what a first sign-in makes too), then the app in one transaction.
  const operator = await findOrCreateOperatorByEmail(deps.db, input.ownerEmail);
  const created = await createAppWithWallet(
    deps,
    { name: input.name, network: input.network, ownerOperatorId: operator.id },
    async (trx, app) => {
      await addAppOrigins(trx, app.id, input.origins);
      const label = 'created by admin CLI';
      const publishable = await createApiKey(trx, {
        appId: app.id,
        type: 'publishable',
        network: input.network,
        label,
      });
      const secret = await createApiKey(trx, { appId: app.id, type: 'secret', network: input.network, label });
      return { publishable, secret };
    },
  );
  return {
    operator,
    app: created.app,
    wallet: created.wallet,
    allowedOrigins: input.origins.map((o) => normalizeOrigin(o) ?? o),
    ...created.also,
  };
}

const NETWORKS = ['testnet', 'mainnet'] as const;
const TYPES = ['secret', 'publishable'] as const;

/** Runs one admin command; writes its output with `out`. Throws UsageError on bad arguments. */
export async function runAdminCommand(
  deps: AdminDeps,
  argv: string[],
  out: (line: string) => void,
  opts: AdminOptions = {},
): Promise<void> {
  const { db } = deps;
  const [command, ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    strict: true,
    options: {
      name: { type: 'string' },
      network: { type: 'string' },
      'owner-email': { type: 'string' },
      origin: { type: 'string', multiple: true },
      app: { type: 'string' },
      type: { type: 'string' },
      label: { type: 'string' },
      expires: { type: 'string' },
      key: { type: 'string' },
    },
  });
  const baseUrl = opts.baseUrl ?? 'http://127.0.0.1:8080';
  switch (command) {
    case 'create-app': {
      const name = required(values.name, 'name');
      const network = oneOf<ApiKeyNetwork>(values.network, NETWORKS, 'network');
      const email = required(values['owner-email'], 'owner-email');
      if (!/^[^@\s]+@[^@\s]+$/.test(email)) throw new UsageError('--owner-email is not an email address');
      const created = await createAppWithKeys(deps, {
        name,
        network,
        ownerEmail: email,
        origins: origins(values.origin),
      });
      out(`operator:        ${created.operator.id} (${created.operator.email})`);
      out(`app:             ${created.app.id} "${created.app.name}" (${network})`);
      out(`app wallet:      ${created.wallet.publicKey} (global; its secret is stored only encrypted)`);
      out(
        `allowed origins: ${created.allowedOrigins.length ? created.allowedOrigins.join(', ') : '(none: browser requests are refused until one is added)'}`,
      );
      out(`publishable key: ${created.publishable.key}`);
      out(`secret key:      ${created.secret.key}`);
      out('These keys are shown only now; only their hashes are stored. Keep the secret key out of client code.');
      out(
        `try:             curl -s -X POST ${baseUrl}/v1/wallets/fund -H 'content-type: application/json' -H 'x-service-api-key: ${created.secret.key}' -d '{"publicKey":"GCQ53WWRBL6HVSDNRMZKFZD7SP5DKYC6JFWSRLPQCVGD6Y42TYIN73Q2"}'`,
      );
      // Last: the keys are out whatever the chain does.
      await fundNewAppWallet(deps, created.app, created.wallet.publicKey, out, opts);
      return;
    }
    case 'create-key': {
      const appId = required(values.app, 'app');
      const type = oneOf<ApiKeyType>(values.type, TYPES, 'type');
      const network = oneOf<ApiKeyNetwork>(values.network, NETWORKS, 'network');
      const expiresAt = values.expires ? new Date(values.expires) : undefined;
      if (expiresAt && Number.isNaN(expiresAt.getTime())) throw new UsageError('--expires must be an ISO date');
      const app = await findApp(db, appId);
      if (!app) throw new UsageError(`no app ${appId}`);
      // A key's network is its app's (testnet and mainnet apps are separate apps), as in the Dashboard.
      if (app.network !== network)
        throw new UsageError(`${appId} is a ${app.network} app: its keys are ${app.network} keys`);
      const key = await createApiKey(db, {
        appId,
        type,
        network,
        ...(values.label ? { label: values.label } : {}),
        ...(expiresAt ? { expiresAt } : {}),
      });
      out(`key id: ${key.id}`);
      out(`${type} key: ${key.key}`);
      out('This key is shown only now; only its hash is stored.');
      return;
    }
    case 'revoke-key': {
      const keyId = required(values.key, 'key');
      const found = await db<{ id: string; display_prefix: string }>('api_keys').where({ id: keyId }).first();
      if (!found) throw new UsageError(`no key ${keyId}`);
      await revokeApiKey(db, keyId);
      out(`revoked ${keyId} (${found.display_prefix}...)`);
      return;
    }
    case 'add-origin': {
      const appId = required(values.app, 'app');
      const allowed = origins(values.origin);
      if (allowed.length === 0) throw new UsageError('--origin is required');
      if (!(await findApp(db, appId))) throw new UsageError(`no app ${appId}`);
      await addAppOrigins(db, appId, allowed);
      out(`${appId} allows ${allowed.map((o) => normalizeOrigin(o)).join(', ')}`);
      return;
    }
    case 'list-apps': {
      const apps = await listAllApps(db);
      if (apps.length === 0) return out('no apps yet: npm run admin -- create-app ...');
      for (const line of table(
        ['app', 'name', 'network', 'status', 'owner', 'created', 'app wallet'],
        apps.map((a) => [
          a.id,
          a.name,
          a.network,
          a.status,
          a.ownerEmail ?? a.ownerId,
          day(a.createdAt),
          a.walletPublicKey ?? '-',
        ]),
      ))
        out(line);
      return;
    }
    case 'list-keys': {
      const appId = required(values.app, 'app');
      if (!(await findApp(db, appId))) throw new UsageError(`no app ${appId}`);
      const keys = await listApiKeys(db, appId, 1000);
      if (keys.length === 0) return out(`${appId} has no keys: npm run admin -- create-key --app ${appId} ...`);
      // The display prefix is all that is stored in clear: the key itself exists only in its creator's hands.
      for (const line of table(
        ['key', 'prefix', 'type', 'network', 'label', 'expires', 'last used', 'revoked'],
        keys.map((k) => [
          k.id,
          `${k.displayPrefix}...`,
          k.type,
          k.network,
          k.label ?? '-',
          k.expiresAt ? day(k.expiresAt) : 'never',
          k.lastUsedAt ? k.lastUsedAt.toISOString() : 'never',
          k.revokedAt ? day(k.revokedAt) : '-',
        ]),
      ))
        out(line);
      return;
    }
    default:
      throw new UsageError(command ? `unknown command ${command}` : 'no command given');
  }
}

function day(at: Date): string {
  return at.toISOString().slice(0, 10);
}
