// The treasury: an app's own wallets on its network, their balances on-chain, and the layout change between one
// `global` wallet and separate funding, gas and distribution wallets. Balances are read through Stellar RPC; a layout
// change is one atomic transaction from the funding wallet, then the roles are switched in the database (a repeat
// after a crash in between finds the accounts in place and only switches the roles).
import { Account, Operation, TransactionBuilder, type Transaction, type xdr } from '@stellar/stellar-sdk';
import type { Deps } from '../deps';
import { fromStroops, toStroops } from '../money/amounts';
import {
  FriendbotUnavailableError,
  StellarUnavailableError,
  TransactionRejectedError,
} from '../../infra/stellar/errors';
import { availableStroops, parseAsset, type StellarGateway } from '../../infra/stellar/gateway';
import type { AuditActor } from '../audit/auditLog';
import type { App } from '../apps/store';
import { AppError } from '../errors';
import { DEFAULT_BASE_RESERVE_STROOPS, reservePerWalletXlm } from '../funding/activation';
import { ensureAppWallet } from '../wallets/appWallets';
import { createWallet, withWalletKeypair } from '../wallets/custody';
import { gatewayFor } from '../chain/gateways';
import { lockedReserveStroops } from '../funding/store';
import type { AppWalletRole, WalletRecord } from '../wallets/store';
import { appTreasuryWallets, MINIMUM_BALANCE_XLM, type TreasuryLayout } from '../wallets/treasuryWallets';

export type TreasuryDeps = Pick<Deps, 'db' | 'kms' | 'clock' | 'log' | 'stellar' | 'jobs'>;

/** The contract's Treasury schema. */
export interface TreasuryView {
  network: 'testnet' | 'mainnet';
  layout: TreasuryLayout;
  wallets: {
    role: AppWalletRole;
    publicKey: string;
    balances: { asset: string; balance: string }[];
    minimumBalanceXlm: string;
    low: boolean;
  }[];
  reservePerWalletXlm: string;
  lockedReserveXlm: string;
}

/** Validity of a layout-change transaction, in seconds. */
const LAYOUT_TX_VALIDITY_SECONDS = 60;

/** The app's wallets; an app from before wallets existed gets its `global` wallet now. */
async function walletsOf(
  deps: Pick<Deps, 'db' | 'kms' | 'clock' | 'jobs'>,
  app: App,
): Promise<{ layout: TreasuryLayout; wallets: WalletRecord[] }> {
  const treasury = await appTreasuryWallets(deps.db, app.id, app.network);
  if (treasury) return treasury;
  return { layout: 'single', wallets: [await ensureAppWallet(deps, { app, role: 'global' })] };
}

/** What fundAppWalletWithFriendbot did. `unavailable` is FRIENDBOT_NOT_AVAILABLE (or no reachable RPC): `reason` says why. */
export type FriendbotFunding =
  | { outcome: 'funded' | 'exists'; publicKey: string }
  | { outcome: 'unavailable'; publicKey: string; reason: string; cause: unknown }
  | { outcome: 'mainnet' };

/**
 * Funds the app's main wallet from friendbot (testnet, localnet) when its account does not exist yet, and says what
 * happened; an unreachable friendbot or RPC is an outcome here, not an error (the app stays as it is).
 */
export async function fundAppWalletWithFriendbot(
  deps: Pick<Deps, 'db' | 'kms' | 'clock' | 'stellar' | 'jobs'>,
  app: App,
): Promise<FriendbotFunding> {
  if (app.network !== 'testnet') return { outcome: 'mainnet' };
  const [main] = (await walletsOf(deps, app)).wallets;
  const publicKey = main!.publicKey;
  try {
    const gw = gatewayFor(deps, app.network);
    if (await gw.loadAccount(publicKey)) return { outcome: 'exists', publicKey };
    await gw.fundWithFriendbot(publicKey);
    return { outcome: 'funded', publicKey };
  } catch (err) {
    if (!(
      err instanceof FriendbotUnavailableError ||
      err instanceof StellarUnavailableError ||
      err instanceof AppError
    ))
      throw err;
    return { outcome: 'unavailable', publicKey, reason: err.message, cause: err };
  }
}

/**
 * Funds a new app's wallet from friendbot (testnet, localnet) when its account does not exist yet. Best effort, as
 * the createApp contract says: a failure is logged and the wallet waits for a top-up. Answers whether it was funded.
 */
export async function fundAppWalletFromFriendbot(deps: TreasuryDeps, app: App): Promise<boolean> {
  const result = await fundAppWalletWithFriendbot(deps, app);
  if (result.outcome === 'unavailable') {
    deps.log.warn(
      { err: result.cause, appId: app.id, publicKey: result.publicKey },
      'the app wallet could not be funded from friendbot; top it up',
    );
  }
  return result.outcome === 'funded';
}

/** The treasury as the contract shows it, balances read from Stellar RPC now. */
export async function treasuryView(deps: TreasuryDeps, app: App): Promise<TreasuryView> {
  const treasury = await walletsOf(deps, app);
  const { wallets } = treasury;
  const gw = gatewayFor(deps, app.network);
  const accounts = await gw.loadAccounts(wallets.map((w) => w.publicKey));
  const lines = new Map(
    await Promise.all(
      wallets.map(
        async (w) =>
          [w.publicKey, accounts.has(w.publicKey) ? await gw.trustlines(w.publicKey, app.assets) : []] as const,
      ),
    ),
  );
  return {
    network: app.network,
    layout: treasury.layout,
    wallets: wallets.map((w) => {
      const account = accounts.get(w.publicKey);
      const minimum = MINIMUM_BALANCE_XLM[w.role!];
      const native = account?.balanceStroops ?? 0n;
      return {
        role: w.role!,
        publicKey: w.publicKey,
        balances: account
          ? [
              { asset: 'native', balance: fromStroops(native) },
              ...(lines.get(w.publicKey) ?? []).map((l) => ({
                asset: l.asset,
                balance: fromStroops(l.balanceStroops),
              })),
            ]
          : [],
        minimumBalanceXlm: minimum,
        low: native <= toStroops(minimum),
      };
    }),
    reservePerWalletXlm: reservePerWalletXlm(app.assets.length),
    lockedReserveXlm: fromStroops(await lockedReserveStroops(deps.db, app.id)),
  };
}

interface LayoutPlan {
  operations: xdr.Operation[];
  /** Wallets whose keys must sign (their accounts are operation sources). */
  signers: WalletRecord[];
  /** XLM the funding wallet must have available (new accounts' reserves), without the fee. */
  reserveStroops: bigint;
}

/** split: the gas and distribution accounts, created with 0 XLM and their reserves sponsored by the funding wallet. */
async function splitPlan(
  gw: StellarGateway,
  app: App,
  gas: WalletRecord,
  distribution: WalletRecord,
): Promise<LayoutPlan> {
  const existing = await gw.loadAccounts([gas.publicKey, distribution.publicKey]);
  const operations: xdr.Operation[] = [];
  const signers: WalletRecord[] = [];
  let reserves = 0n;
  for (const [wallet, assets] of [
    [gas, []],
    [distribution, app.assets],
  ] as const) {
    if (existing.has(wallet.publicKey)) continue;
    operations.push(
      Operation.beginSponsoringFutureReserves({ sponsoredId: wallet.publicKey }),
      Operation.createAccount({ destination: wallet.publicKey, startingBalance: '0' }),
      ...assets.map((asset) => Operation.changeTrust({ asset: parseAsset(asset), source: wallet.publicKey })),
      Operation.endSponsoringFutureReserves({ source: wallet.publicKey }),
    );
    signers.push(wallet);
    reserves += BigInt(2 + assets.length) * DEFAULT_BASE_RESERVE_STROOPS;
  }
  return { operations, signers, reserveStroops: reserves };
}

/**
 * single: the gas and distribution balances go to the funding wallet and their accounts are merged into it (their
 * sponsored reserves come back with them). Issued assets are paid over first (the funding wallet trusts them for it);
 * empty trustlines are removed, since an account with trustlines cannot be merged.
 */
async function joinPlan(
  gw: StellarGateway,
  app: App,
  funding: WalletRecord,
  gas: WalletRecord | undefined,
  distribution: WalletRecord | undefined,
): Promise<LayoutPlan> {
  const others = [distribution, gas].filter((w): w is WalletRecord => w !== undefined);
  const existing = await gw.loadAccounts(others.map((w) => w.publicKey));
  const fundingLines = new Set((await gw.trustlines(funding.publicKey, app.assets)).map((l) => l.asset));
  const operations: xdr.Operation[] = [];
  const signers: WalletRecord[] = [];
  for (const wallet of others) {
    if (!existing.has(wallet.publicKey)) continue;
    for (const line of await gw.trustlines(wallet.publicKey, app.assets)) {
      if (line.balanceStroops > 0n) {
        if (!fundingLines.has(line.asset)) {
          operations.push(Operation.changeTrust({ asset: parseAsset(line.asset) }));
          fundingLines.add(line.asset);
        }
        operations.push(
          Operation.payment({
            destination: funding.publicKey,
            asset: parseAsset(line.asset),
            amount: fromStroops(line.balanceStroops),
            source: wallet.publicKey,
          }),
        );
      }
      operations.push(Operation.changeTrust({ asset: parseAsset(line.asset), limit: '0', source: wallet.publicKey }));
    }
    operations.push(Operation.accountMerge({ destination: funding.publicKey, source: wallet.publicKey }));
    signers.push(wallet);
  }
  return { operations, signers, reserveStroops: 0n };
}

async function signWith(
  deps: TreasuryDeps,
  wallets: WalletRecord[],
  tx: Transaction,
  actor: AuditActor,
  ip: string | undefined,
): Promise<void> {
  const [first, ...rest] = wallets;
  if (!first) return;
  await withWalletKeypair(
    deps,
    { walletId: first.id, purpose: 'treasury.layout', actor, ...(ip !== undefined ? { ip } : {}) },
    async (kp) => {
      tx.sign(kp);
      await signWith(deps, rest, tx, actor, ip);
    },
  );
}

/** Submits a layout plan from the funding wallet (402 when it cannot cover the new reserves + fee). */
async function execute(
  deps: TreasuryDeps,
  gw: StellarGateway,
  funding: WalletRecord,
  plan: LayoutPlan,
  actor: AuditActor,
  ip: string | undefined,
): Promise<void> {
  if (plan.operations.length === 0) return;
  const [figures, account] = await Promise.all([gw.ledgerFigures(), gw.loadAccount(funding.publicKey)]);
  const needed = plan.reserveStroops + BigInt(plan.operations.length * figures.baseFeeStroops);
  if (!account || availableStroops(account, figures.baseReserveStroops) < needed) {
    throw new AppError('FUND_XLM_FAILED', { message: `The funding wallet cannot cover ${fromStroops(needed)} XLM` });
  }
  const builder = new TransactionBuilder(new Account(funding.publicKey, account.sequence), {
    fee: String(figures.baseFeeStroops),
    networkPassphrase: gw.networkPassphrase,
    timebounds: {
      minTime: 0,
      maxTime: Math.max(Math.floor(deps.clock.now().getTime() / 1000), figures.closeTime) + LAYOUT_TX_VALIDITY_SECONDS,
    },
  });
  for (const op of plan.operations) builder.addOperation(op);
  const tx = builder.build();
  await signWith(deps, [funding, ...plan.signers], tx, actor, ip);
  await gw.submitAndConfirm(tx);
}

/**
 * Sets the app's wallet layout (the current one: nothing changes). split: the global wallet becomes `funding`, gas
 * and distribution wallets are created on-chain. single: their balances move to the funding wallet, which becomes
 * `global` again. 402 FUND_XLM_FAILED when the funding wallet cannot cover it, 503 on chain trouble.
 */
export async function setTreasuryLayout(
  deps: TreasuryDeps,
  input: { app: App; layout: TreasuryLayout; actor: AuditActor; ip?: string },
): Promise<void> {
  const { app } = input;
  const gw = gatewayFor(deps, app.network);
  const current = await walletsOf(deps, app);
  const [main] = current.wallets;
  if (current.layout === input.layout || !main) return;
  try {
    if (input.layout === 'split') {
      const { wallet: gas } = await createWallet(deps, { appId: app.id, network: app.network, role: 'gas' });
      const { wallet: distribution } = await createWallet(deps, {
        appId: app.id,
        network: app.network,
        role: 'distribution',
      });
      await runPlan(deps, gw, main, () => splitPlan(gw, app, gas, distribution), input);
      await deps
        .db('wallets')
        .where({ app_id: app.id, network: app.network, role: 'global' })
        .update({ role: 'funding' });
    } else {
      const gas = current.wallets.find((w) => w.role === 'gas');
      const distribution = current.wallets.find((w) => w.role === 'distribution');
      await runPlan(deps, gw, main, () => joinPlan(gw, app, main, gas, distribution), input);
      await deps
        .db('wallets')
        .where({ app_id: app.id, network: app.network, role: 'funding' })
        .update({ role: 'global' });
    }
  } catch (err) {
    if (err instanceof TransactionRejectedError) {
      throw new AppError('STELLAR_UNAVAILABLE', {
        message: 'Stellar refused the layout change; nothing changed',
        details: { resultCodes: err.codes },
        cause: err,
      });
    }
    throw err;
  }
}

/** Plans and executes; a plan that lost a race (the accounts appeared or went meanwhile) is planned again once. */
async function runPlan(
  deps: TreasuryDeps,
  gw: StellarGateway,
  funding: WalletRecord,
  plan: () => Promise<LayoutPlan>,
  input: { actor: AuditActor; ip?: string },
): Promise<void> {
  try {
    await execute(deps, gw, funding, await plan(), input.actor, input.ip);
  } catch (err) {
    if (!(err instanceof TransactionRejectedError)) throw err;
    await execute(deps, gw, funding, await plan(), input.actor, input.ip);
  }
}
