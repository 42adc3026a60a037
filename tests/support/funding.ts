// Set-up shared by the funding, fundWallet and treasury tests: an app with a funded global wallet (friendbot on the
// service's localnet), end users with unfunded wallets, issued assets, and chain reads through the service's gateway.
import { Account, Asset, Keypair, Operation, TransactionBuilder } from '@stellar/stellar-sdk';
import { updateAppSettings, type App, type AppSettings } from '../../src/domain/apps/store';
import { fundAppWalletFromFriendbot } from '../../src/domain/treasury/treasury';
import { findOrCreateUser } from '../../src/domain/users/users';
import { ensureAppWallet } from '../../src/domain/wallets/appWallets';
import { createWallet } from '../../src/domain/wallets/custody';
import { findWallet, type WalletRecord } from '../../src/domain/wallets/store';
import { parseAsset, type StellarGateway } from '../../src/infra/stellar/gateway';
import { seedCredentials, type SeededCredentials } from './credentials';
import type { TestService } from './service';

/**
 * Closes a ledger of the service's localnet every `ms` (its own cadence is manual in tests), so a fund request waits
 * for its ledger as on a real network, only faster. Returns the stop function.
 */
export function closeLedgersEvery(svc: Pick<TestService, 'localnet'>, ms = 100): () => void {
  const timer = setInterval(() => void svc.localnet?.closeLedger().catch(() => undefined), ms);
  return () => clearInterval(timer);
}

export function gatewayOf(svc: Pick<TestService, 'deps'>): StellarGateway {
  const gw = svc.deps.stellar?.gateways?.testnet;
  if (!gw) throw new Error('the service has no testnet gateway');
  return gw;
}

/** A seeded app (operator, keys) with its global wallet, funded from friendbot unless `funded: false`. */
export async function appWithWallet(
  svc: Pick<TestService, 'deps'>,
  opts: { settings?: Partial<AppSettings>; funded?: boolean } = {},
): Promise<{ creds: SeededCredentials; app: App; appWallet: WalletRecord }> {
  const creds = await seedCredentials(svc.deps.db);
  const app = opts.settings ? (await updateAppSettings(svc.deps.db, creds.app.id, opts.settings))! : creds.app;
  const appWallet = await ensureAppWallet(svc.deps, { app, role: 'global' });
  if (opts.funded !== false) {
    if (!(await fundAppWalletFromFriendbot(svc.deps, app))) throw new Error('friendbot did not fund the app wallet');
  }
  return { creds, app, appWallet };
}

/** Waits until an account exists on the ledger (e.g. the app wallet createApp funds from friendbot in the background). */
export async function accountOnChain(
  svc: Pick<TestService, 'deps'>,
  publicKey: string,
  timeoutMs = 10_000,
): Promise<void> {
  const gw = gatewayOf(svc);
  for (const started = Date.now(); Date.now() - started < timeoutMs; await new Promise((r) => setTimeout(r, 100))) {
    if (await gw.loadAccount(publicKey)) return;
  }
  throw new Error(`${publicKey} does not exist on the ledger after ${timeoutMs} ms`);
}

let users = 0;

/** A new end user of the app with an unfunded wallet on the app's network. */
export async function userWallet(svc: Pick<TestService, 'deps'>, app: App): Promise<WalletRecord> {
  users += 1;
  const email = `funding-user-${users}-${Date.now()}@example.com`;
  const user = await findOrCreateUser(svc.deps.db, {
    appId: app.id,
    identity: { provider: 'email', subject: email, email },
    now: new Date(),
  });
  const { wallet } = await createWallet(svc.deps, { appId: app.id, network: app.network, userId: user.id });
  return wallet;
}

export async function reload(svc: Pick<TestService, 'deps'>, wallet: WalletRecord): Promise<WalletRecord> {
  return (await findWallet(svc.deps.db, wallet.id))!;
}

/** Issued assets (`CODE:ISSUER`) of a fresh issuer account funded from friendbot, and the issuer's keypair. */
export async function issuer(
  svc: Pick<TestService, 'deps'>,
  codes: string[],
): Promise<{ assets: string[]; keypair: Keypair }> {
  const keypair = Keypair.random();
  await gatewayOf(svc).fundWithFriendbot(keypair.publicKey());
  return { assets: codes.map((code) => `${code}:${keypair.publicKey()}`), keypair };
}

export async function issuedAssets(svc: Pick<TestService, 'deps'>, codes: string[]): Promise<string[]> {
  return (await issuer(svc, codes)).assets;
}

/** Creates `address` on the ledger with exactly `xlm`, paid by a fresh friendbot-funded account. */
export async function createAccountWith(svc: Pick<TestService, 'deps'>, address: string, xlm: string): Promise<void> {
  const gw = gatewayOf(svc);
  const { keypair: source } = await issuer(svc, []);
  const account = (await gw.loadAccount(source.publicKey()))!;
  const tx = new TransactionBuilder(new Account(source.publicKey(), account.sequence), {
    fee: '100',
    networkPassphrase: gw.networkPassphrase,
  })
    .addOperation(Operation.createAccount({ destination: address, startingBalance: xlm }))
    .setTimeout(60)
    .build();
  tx.sign(source);
  await gw.submitAndConfirm(tx);
}

/** Pays `amount` of XLM (`native`) or of an issued asset (the holder must trust it) from `from`. */
export async function payFromIssuer(
  svc: Pick<TestService, 'deps'>,
  from: Keypair,
  to: string,
  asset: string,
  amount: string,
): Promise<void> {
  const gw = gatewayOf(svc);
  const account = (await gw.loadAccount(from.publicKey()))!;
  const tx = new TransactionBuilder(new Account(from.publicKey(), account.sequence), {
    fee: '100',
    networkPassphrase: gw.networkPassphrase,
  })
    .addOperation(
      Operation.payment({ destination: to, asset: asset === 'native' ? Asset.native() : parseAsset(asset), amount }),
    )
    .setTimeout(60)
    .build();
  tx.sign(from);
  await gw.submitAndConfirm(tx);
}

/** Stroops locked by an account's reserves: (2 + subentries + sponsoring - sponsored) x 0.5 XLM. */
export async function lockedStroops(svc: Pick<TestService, 'deps'>, address: string): Promise<bigint> {
  const account = await gatewayOf(svc).loadAccount(address);
  if (!account) return 0n;
  return BigInt(2 + account.numSubEntries + account.numSponsoring - account.numSponsored) * 5_000_000n;
}

/** Polls until `check` holds (or fails after `timeoutMs`). */
export async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Waits until the wallet of a user who signed in (Immediate funding) is funded: a sign-in answers `funded: false` when
 * its activation takes longer than the sign-in waits (a busy machine), and the activation finishes in the background.
 */
export async function untilFunded(svc: Pick<TestService, 'deps'>, walletId: string, timeoutMs = 60_000): Promise<void> {
  await eventually(
    `wallet ${walletId} is funded`,
    async () =>
      (await svc.deps.db('wallets').where({ id: walletId }).first('funding_state'))?.funding_state === 'funded',
    timeoutMs,
  );
}
