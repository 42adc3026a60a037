// What the payout benchmarks (claims, pushes) share: waiting for a ledger close, work in chunks, USDC balances, users
// with activated custodial wallets seeded through the domain, and the baseline of the same payments sent directly.
import { Account, Keypair, Operation, TransactionBuilder, type Transaction } from '@stellar/stellar-sdk';
import { SYSTEM_ACTOR } from '../src/domain/audit/auditLog';
import type { App } from '../src/domain/apps/store';
import type { Deps } from '../src/domain/deps';
import { fundUserWallet, type FundingContext } from '../src/domain/funding/funding';
import { findOrCreateUser } from '../src/domain/users/users';
import { createWallet } from '../src/domain/wallets/custody';
import type { WalletRecord } from '../src/domain/wallets/store';
import { appWalletFor } from '../src/domain/wallets/treasuryWallets';
import { parseAsset, type StellarGateway } from '../src/infra/stellar/gateway';
import type { Localnet } from '../src/localnet/index';

/** Payment operations per baseline transaction (a transaction's maximum). */
export const BASELINE_OPS_PER_TX = 100;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits for the next ledger close, so that both measured runs start at the same point of the ledger cycle. */
export async function justAfterClose(net: Localnet): Promise<number> {
  const last = net.engine.latestLedger().sequence;
  while (net.engine.latestLedger().sequence === last) await sleep(2);
  return net.engine.latestLedger().sequence;
}

/** `fn` over `items`, `width` at a time, results in order. */
export async function inChunks<T, R>(items: T[], width: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += width)
    out.push(...(await Promise.all(items.slice(i, i + width).map((item, j) => fn(item, i + j)))));
  return out;
}

export async function usdcOf(gw: StellarGateway, address: string, asset: string): Promise<bigint> {
  const [line] = await gw.trustlines(address, [asset]);
  return line?.balanceStroops ?? 0n;
}

/** A fresh account holding `amount` demo USDC (trustline, then paid by the issuer), and `sources` funded accounts. */
export async function baselineAccounts(
  gw: StellarGateway,
  input: { usdc: string; issuer: Keypair; amount: string; sources: number },
): Promise<{ holder: Keypair; sources: Keypair[] }> {
  const holder = Keypair.random();
  const sources = Array.from({ length: input.sources }, () => Keypair.random());
  await Promise.all([holder, ...sources].map((kp) => gw.fundWithFriendbot(kp.publicKey())));
  const build = async (source: Keypair) =>
    new TransactionBuilder(new Account(source.publicKey(), (await gw.loadAccount(source.publicKey()))!.sequence), {
      fee: '100',
      networkPassphrase: gw.networkPassphrase,
    });
  const trust = (await build(holder))
    .addOperation(Operation.changeTrust({ asset: parseAsset(input.usdc) }))
    .setTimeout(60)
    .build();
  trust.sign(holder);
  await gw.submitAndConfirm(trust);
  const pay = (await build(input.issuer))
    .addOperation(
      Operation.payment({ destination: holder.publicKey(), asset: parseAsset(input.usdc), amount: input.amount }),
    )
    .setTimeout(60)
    .build();
  pay.sign(input.issuer);
  await gw.submitAndConfirm(pay);
  return { holder, sources };
}

/** The baseline's transactions: `destinations` paid `amount` USDC each by `holder`, 100 payments a transaction, one source each. */
export async function baselineTransactions(
  gw: StellarGateway,
  input: { usdc: string; holder: Keypair; sources: Keypair[]; destinations: string[]; amount: string },
): Promise<Transaction[]> {
  const txs: Transaction[] = [];
  for (let t = 0; t * BASELINE_OPS_PER_TX < input.destinations.length; t++) {
    const source = input.sources[t]!;
    const account = (await gw.loadAccount(source.publicKey()))!;
    const builder = new TransactionBuilder(new Account(source.publicKey(), account.sequence), {
      fee: '100',
      networkPassphrase: gw.networkPassphrase,
    });
    for (const destination of input.destinations.slice(t * BASELINE_OPS_PER_TX, (t + 1) * BASELINE_OPS_PER_TX))
      builder.addOperation(
        Operation.payment({
          destination,
          asset: parseAsset(input.usdc),
          amount: input.amount,
          source: input.holder.publicKey(),
        }),
      );
    const tx = builder.setTimeout(60).build();
    tx.sign(source, input.holder);
    txs.push(tx);
  }
  return txs;
}

export const countBy = <T>(values: T[]): Map<T, number> => {
  const m = new Map<T, number>();
  for (const v of values) m.set(v, (m.get(v) ?? 0) + 1);
  return m;
};

export const perLedgerText = (perLedger: Map<number, number>) =>
  [...perLedger.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([ledger, n]) => `${ledger}: ${n}`)
    .join(', ');

/**
 * `count` users of `app` with custodial wallets activated through the service (its channel accounts; the app's assets,
 * `usdc` among them, trusted at activation), checked on the ledger. `progress` gets a line per step.
 */
export async function activatedUsers(
  deps: Deps & FundingContext,
  input: { app: App; usdc: string; count: number; emailPrefix: string },
  progress: (line: string) => void = console.log,
): Promise<{ userId: string; wallet: WalletRecord }[]> {
  const { db } = deps;
  const { app, usdc, count } = input;
  progress(`seeding ${count} users with custodial wallets...`);
  const wallets = await inChunks(
    Array.from({ length: count }, (_, i) => i),
    50,
    async (i) => {
      const email = `${input.emailPrefix}-${i}@example.com`;
      const user = await findOrCreateUser(db, {
        appId: app.id,
        identity: { provider: 'email', subject: email, email },
        now: new Date(),
      });
      const { wallet } = await createWallet(deps, { appId: app.id, network: app.network, userId: user.id });
      return { userId: user.id, wallet };
    },
  );
  progress(`activating ${count} wallets (USDC trustline at activation)...`);
  // 500 at a time: the activation queue batches them; 10,000 calls at once would only queue for pooled connections.
  // Each activation locks 1.5 XLM or more of the funding wallet's: friendbot tops it up (it pays 10,000 XLM to an
  // account holding less) before each 500.
  const gw = deps.stellar!.gateways![app.network]!;
  const funding = (await appWalletFor(db, app.id, app.network, 'funding'))!;
  const activated: PromiseSettledResult<unknown>[] = [];
  for (let i = 0; i < wallets.length; i += 500) {
    await gw.fundWithFriendbot(funding.publicKey);
    activated.push(
      ...(await Promise.allSettled(
        wallets
          .slice(i, i + 500)
          .map(({ wallet }) => fundUserWallet(deps, { app, wallet, trigger: 'server_api', actor: SYSTEM_ACTOR })),
      )),
    );
    if (count > 500) progress(`  ${Math.min(i + 500, count)} of ${count} activated`);
  }
  const failed = activated.filter((r) => r.status === 'rejected');
  if (failed.length)
    throw new Error(`${failed.length} activations failed: ${String((failed[0] as PromiseRejectedResult).reason)}`);
  let untrusting = 0;
  for (let i = 0; i < wallets.length; i += 200) {
    const part = wallets.slice(i, i + 200).map((w) => w.wallet.publicKey);
    untrusting += part.length - (await gw.trustlineHolders(usdc, part)).size;
  }
  if (untrusting) throw new Error(`${untrusting} activated wallets have no USDC trustline`);
  return wallets;
}
