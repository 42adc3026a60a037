// A demo USDC for localnet, so that a newcomer (and the scenario tests) can move a real issued asset at once: an
// issuer account whose key is derived from the service secret (stable across restarts, nothing to store), funded by
// friendbot; `USDC:<issuer>` configured as an asset of the app (its users' wallets then trust it at activation); and
// the app's distribution wallet holding DEMO_USDC_AMOUNT of it. Every step looks first and does only what is missing,
// so running it again (a restart, a second instance, a second app) changes nothing that is already there.
//   trustline  a changeTrust from the distribution wallet (signed through custody, purpose `treasury.trustline`),
//              wrapped in the gas wallet's fee-bump; in the split layout the funding wallet sponsors its reserve (the
//              distribution wallet holds no XLM of its own) and is the transaction's source.
//   top-up     a payment from the issuer of what the distribution wallet lacks. The issuer's sequence number is read
//              before the balance, so two runs racing each other cannot both pay: the second one's payment carries a
//              used sequence number (tx_bad_seq), and it looks again.
import { Account, Keypair, Operation, TransactionBuilder, rpc, type xdr } from '@stellar/stellar-sdk';
import type { Deps } from '../deps';
import { fromStroops, toStroops } from '../money/amounts';
import { TransactionRejectedError } from '../../infra/stellar/errors';
import { parseAsset, type StellarGateway } from '../../infra/stellar/gateway';
import { withTx } from '../../infra/db/database';
import { SYSTEM_ACTOR } from '../audit/auditLog';
import { updateAppSettings, type App } from '../apps/store';
import { sponsorFee } from '../transactions/feeBump';
import { withWalletKeypair } from '../wallets/custody';
import { gatewayFor } from '../chain/gateways';
import type { WalletRecord } from '../wallets/store';
import { enqueueTrustlineBackfill, lockAppAssets } from '../funding/trustlineBackfill';
import { appWalletFor } from '../wallets/treasuryWallets';

export type DemoUsdcDeps = Pick<Deps, 'db' | 'kms' | 'clock' | 'log' | 'stellar' | 'secrets'>;

export const DEMO_USDC_CODE = 'USDC';
/** What the distribution wallet is topped up to. */
export const DEMO_USDC_AMOUNT = '100000';
/** Attempts at the top-up when other payments of the issuer keep taking its sequence number. */
const MAX_TOP_UP_ATTEMPTS = 10;
/** Validity of the demo transactions, in seconds. */
const TX_VALIDITY_SECONDS = 60;

/** The demo issuer's keypair: the same for every app and every start of one deployment. */
export function demoUsdcIssuer(secrets: Deps['secrets']): Keypair {
  return Keypair.fromRawEd25519Seed(secrets.derive('demo-usdc-issuer'));
}

/** Whether the network's Stellar RPC is the project's localnet (its getVersionInfo names it), not a real network. */
export async function servedByLocalnet(deps: Pick<Deps, 'stellar'>, network: App['network']): Promise<boolean> {
  const url = deps.stellar?.rpcUrls?.[network];
  if (!url) return false;
  try {
    const info = await new rpc.Server(url, { allowHttp: url.startsWith('http:') }).getVersionInfo();
    return info.version.startsWith('onboard-localnet');
  } catch {
    return false;
  }
}

/**
 * Issues the demo USDC for `app` (testnet only): issuer funded, asset configured on the app, the distribution wallet
 * trusting it and holding DEMO_USDC_AMOUNT. Idempotent. `progress` gets one line per step (also logged).
 */
export async function issueDemoUsdc(
  deps: DemoUsdcDeps,
  app: App,
  opts: { progress?: (line: string) => void } = {},
): Promise<{ asset: string; issuer: Keypair }> {
  if (app.network !== 'testnet')
    throw new Error(`the demo USDC is for testnet apps only (${app.id} is on ${app.network})`);
  const say = (line: string) => {
    deps.log.info({ appId: app.id }, `demo USDC: ${line}`);
    opts.progress?.(line);
  };
  const gw = gatewayFor(deps, app.network);
  const issuer = demoUsdcIssuer(deps.secrets);
  const asset = `${DEMO_USDC_CODE}:${issuer.publicKey()}`;

  // 1. the issuer account
  if (await gw.loadAccount(issuer.publicKey())) say(`issuer ${issuer.publicKey()} exists`);
  else
    say(
      `issuer ${issuer.publicKey()} ${(await gw.fundWithFriendbot(issuer.publicKey())) === 'funded' ? 'funded from friendbot' : 'exists'}`,
    );

  // 2. configured on the app (wallets funded before get the line through the trustline backfill)
  say(
    (await configureAsset(deps, app, asset))
      ? `${asset} configured as an asset of the app`
      : `${asset} already configured`,
  );

  // 3. and 4. the distribution wallet trusts it and holds the demo amount
  const [distribution, funding, gas] = await Promise.all(
    (['distribution', 'funding', 'gas'] as const).map((duty) => appWalletFor(deps.db, app.id, app.network, duty)),
  );
  if (!distribution || !funding || !gas) throw new Error(`the app ${app.id} has no treasury wallets`);
  say(
    (await ensureTrustline(deps, gw, { asset, distribution, funding, gas }))
      ? 'the distribution wallet trusts it now'
      : 'the distribution wallet trusts it',
  );
  const paid = await topUp(gw, { asset, issuer, holder: distribution.publicKey });
  say(
    paid > 0n
      ? `paid ${fromStroops(paid)} USDC to the distribution wallet ${distribution.publicKey}`
      : `the distribution wallet ${distribution.publicKey} holds ${DEMO_USDC_AMOUNT} USDC or more`,
  );
  return { asset, issuer };
}

/** Adds the asset to the app's list (row locked, as a settings change does); false when it was there. */
async function configureAsset(deps: DemoUsdcDeps, app: App, asset: string): Promise<boolean> {
  return withTx(deps.db, async (trx) => {
    const current = await lockAppAssets(trx, app.id);
    if (!current) throw new Error(`no app ${app.id}`);
    if (current.includes(asset)) return false;
    const updated = await updateAppSettings(trx, app.id, { assets: [...current, asset] });
    if (!updated) throw new Error(`the app ${app.id} is archived`);
    await enqueueTrustlineBackfill(trx, { app: updated, assets: [asset], at: deps.clock.now() });
    return true;
  });
}

/** The distribution wallet's trustline, added when missing; answers whether it added it. */
async function ensureTrustline(
  deps: DemoUsdcDeps,
  gw: StellarGateway,
  input: { asset: string; distribution: WalletRecord; funding: WalletRecord; gas: WalletRecord },
): Promise<boolean> {
  const { asset, distribution, funding, gas } = input;
  if ((await gw.trustlines(distribution.publicKey, [asset])).length > 0) return false;
  const own = distribution.publicKey === funding.publicKey;
  const [source, figures] = await Promise.all([gw.loadAccount(funding.publicKey), gw.ledgerFigures()]);
  if (!source) throw new Error(`the funding wallet ${funding.publicKey} does not exist on the ledger`);
  const trust = Operation.changeTrust({ asset: parseAsset(asset), source: distribution.publicKey });
  const operations: xdr.Operation[] = own
    ? [trust]
    : [
        Operation.beginSponsoringFutureReserves({ sponsoredId: distribution.publicKey }),
        trust,
        Operation.endSponsoringFutureReserves({ source: distribution.publicKey }),
      ];
  const builder = new TransactionBuilder(new Account(funding.publicKey, source.sequence), {
    fee: String(figures.baseFeeStroops),
    networkPassphrase: gw.networkPassphrase,
  });
  for (const op of operations) builder.addOperation(op);
  const tx = builder.setTimeout(TX_VALIDITY_SECONDS).build();
  for (const wallet of own ? [distribution] : [funding, distribution]) {
    await withWalletKeypair(deps, { walletId: wallet.id, purpose: 'treasury.trustline', actor: SYSTEM_ACTOR }, (kp) =>
      tx.sign(kp),
    );
  }
  const bump = await sponsorFee(deps, {
    gasWallet: gas,
    inner: tx,
    networkPassphrase: gw.networkPassphrase,
    actor: SYSTEM_ACTOR,
  });
  try {
    await gw.submitAndConfirm(bump);
  } catch (err) {
    // A concurrent run (another instance) may have added it with the same sequence number.
    if (err instanceof TransactionRejectedError && (await gw.trustlines(distribution.publicKey, [asset])).length > 0)
      return false;
    throw err;
  }
  return true;
}

/** Pays the holder what it lacks of DEMO_USDC_AMOUNT from the issuer; answers how much was paid (stroops). */
async function topUp(gw: StellarGateway, input: { asset: string; issuer: Keypair; holder: string }): Promise<bigint> {
  const target = toStroops(DEMO_USDC_AMOUNT);
  for (let attempt = 1; ; attempt++) {
    // The sequence number first: a payment applied after this read makes ours fail, whatever balance we see next.
    const [issuerAccount, figures] = await Promise.all([gw.loadAccount(input.issuer.publicKey()), gw.ledgerFigures()]);
    if (!issuerAccount)
      throw new Error(`the demo USDC issuer ${input.issuer.publicKey()} does not exist on the ledger`);
    const [line] = await gw.trustlines(input.holder, [input.asset]);
    if (!line) throw new Error(`${input.holder} does not trust ${input.asset}`);
    const missing = target - line.balanceStroops;
    if (missing <= 0n) return 0n;
    const tx = new TransactionBuilder(new Account(input.issuer.publicKey(), issuerAccount.sequence), {
      fee: String(figures.baseFeeStroops),
      networkPassphrase: gw.networkPassphrase,
    })
      .addOperation(
        Operation.payment({ destination: input.holder, asset: parseAsset(input.asset), amount: fromStroops(missing) }),
      )
      .setTimeout(TX_VALIDITY_SECONDS)
      .build();
    tx.sign(input.issuer);
    try {
      await gw.submitAndConfirm(tx);
      return missing;
    } catch (err) {
      const usedSequence =
        err instanceof TransactionRejectedError && err.stage === 'submission' && err.codes.transaction === 'tx_bad_seq';
      if (!usedSequence || attempt >= MAX_TOP_UP_ATTEMPTS) throw err;
    }
  }
}
