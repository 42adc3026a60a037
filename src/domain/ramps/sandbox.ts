// The sandbox ramp provider: on- and off-ramps that really settle on the network, with a local fiat ledger standing in
// for the bank side, so every ramp path can be tried offline. Offered to testnet apps of a development service
// (RAMPS_SANDBOX, on by default when testnet is the in-process localnet), for the assets the service can settle:
// its demo USDC (treasury/demoUsdc.ts), whose issuer key the service derives, so the sandbox's "desk" is the issuer.
//
//   on-ramp   start -> awaiting_deposit with deposit instructions and a page of this service (src/http/sandbox.ts)
//             where the developer confirms the fiat deposit: a `deposit` row in the fiat ledger, then the issuer pays
//             the asset to the user's wallet (its hash recorded before it is sent, so a retry never pays twice) ->
//             completed. The payment reaches the wallet's history and `payment.received` through the ledger follower.
//   off-ramp  start -> processing with `payment`: the service pays the asset from the user's wallet to the issuer
//             (which burns it), fee-bumped by the app's gas wallet (rampLeg.ts); once it is in a ledger, a `payout`
//             row in the fiat ledger -> completed.
//
// The sandbox asks for the user's identity first when the app offers KYC (a provider enabled in its KYC settings):
// without an approved verification, starting a ramp answers 403 SDK_RAMPS_KYC_REQUIRED with the kycUrl of a new
// verification session with the app's first enabled provider.
import { Account, Keypair, Memo, Operation, TransactionBuilder } from '@stellar/stellar-sdk';
import type { Knex } from 'knex';
import type { App } from '../apps/store';
import { gatewayFor } from '../chain/gateways';
import type { Deps } from '../deps';
import { AppError } from '../errors';
import { kycSettingsOf } from '../kyc/settings';
import { startKycSession } from '../kyc/verifications';
import { fromStroops, toStroops } from '../money/amounts';
import { ceilDiv, ceilToCent } from '../money/decimals';
import { demoUsdcIssuer } from '../treasury/demoUsdc';
import { parseAsset } from '../../infra/stellar/gateway';
import {
  QUOTE_VALIDITY_MS,
  RampRefusal,
  type ProviderQuote,
  type RampCall,
  type RampDeps,
  type RampProvider,
  type RampQuoteRequest,
} from './providers';

export const SANDBOX_FIAT_CURRENCY = 'USD';
/** The route's bounds, in USD. */
const MIN_FIAT_STROOPS = toStroops('20');
const MAX_FIAT_STROOPS = toStroops('10000');
/** The sandbox's fee: 0.75 %, rounded up to the cent. */
const FEE_BASIS_POINTS = 75n;
/** How long deposit instructions stay open before the ramp expires. */
export const SANDBOX_DEPOSIT_HOURS = 24;
/** Validity of the issuer's delivery transaction. */
const DELIVERY_VALIDITY_SECONDS = 60;

/** The app's assets the sandbox can settle: those of the demo issuer. */
export function sandboxAssetsOf(deps: Pick<Deps, 'secrets'>, app: Pick<App, 'assets'>): string[] {
  const issuer = demoUsdcIssuer(deps.secrets).publicKey();
  return app.assets.filter((a) => a.split(':')[1] === issuer);
}

const feeOf = (stroops: bigint): bigint => ceilToCent(ceilDiv(stroops * FEE_BASIS_POINTS, 10_000n));

/** The sandbox's price (pure): 1 USD = 1 unit of the asset, less (or plus) the fee; bounds on the fiat amount. */
export function sandboxPrice(request: Pick<RampQuoteRequest, 'direction' | 'amount' | 'amountIn'>): {
  fiatStroops: bigint;
  cryptoStroops: bigint;
  feeStroops: bigint;
} {
  const amount = toStroops(request.amount);
  const fee = feeOf(amount);
  // The user pays fiat for crypto (on) or sends crypto for fiat (off); the fee always comes out of what they get.
  const receivesCrypto = request.direction === 'on';
  const givenIsPaid = (request.amountIn === 'fiat') === receivesCrypto;
  const paid = givenIsPaid ? amount : amount + fee;
  const received = givenIsPaid ? amount - fee : amount;
  return receivesCrypto
    ? { fiatStroops: paid, cryptoStroops: received, feeStroops: fee }
    : { fiatStroops: received, cryptoStroops: paid, feeStroops: fee };
}

function refuseOutOfRange(fiatStroops: bigint, cryptoStroops: bigint): void {
  const bound = (limit: 'min' | 'max', stroops: bigint) =>
    new RampRefusal({
      kind: 'out_of_range',
      limit,
      limitAmount: fromStroops(stroops),
      limitCurrency: SANDBOX_FIAT_CURRENCY,
      message: `The amount is ${limit === 'min' ? 'below the minimum' : 'above the maximum'} of ${fromStroops(stroops)} ${SANDBOX_FIAT_CURRENCY}`,
    });
  if (fiatStroops < MIN_FIAT_STROOPS || cryptoStroops <= 0n) throw bound('min', MIN_FIAT_STROOPS);
  if (fiatStroops > MAX_FIAT_STROOPS) throw bound('max', MAX_FIAT_STROOPS);
}

/** 403 SDK_RAMPS_KYC_REQUIRED unless the user is approved, when the app offers KYC at all. */
async function requireKyc(deps: RampDeps, call: RampCall): Promise<void> {
  if (call.user.kycStatus === 'approved') return;
  const offered = (await kycSettingsOf(deps, call.app)).find((p) => p.enabled && p.levels.length > 0);
  if (!offered) return;
  const session = await startKycSession(deps, {
    app: call.app,
    userId: call.user.userId,
    providerId: offered.providerId,
    level: offered.levels[0]!,
  });
  if (!session.kycUrl) return; // a provider without a hosted page: nothing to send the user to
  throw new RampRefusal({
    kind: 'kyc_required',
    kycUrl: session.kycUrl,
    message: 'The sandbox ramp needs an approved identity verification first',
  });
}

export const sandboxRampProvider: RampProvider = {
  id: 'sandbox',
  name: 'Sandbox (development)',
  credentialNames: [],
  optionalCredentialNames: [],
  upstreamCode: 'SDK_RAMPS_ANCHOR_ERROR', // never used: the sandbox has no upstream
  availableFor: (deps, app) => deps.ramps?.sandbox === true && app.network === 'testnet',
  routes(deps, call, assets) {
    const settleable = new Set(sandboxAssetsOf(deps, call.app));
    return Promise.resolve(
      assets
        .filter((a) => settleable.has(a))
        .flatMap((asset) =>
          (['on', 'off'] as const).map((direction) => ({ direction, fiatCurrency: SANDBOX_FIAT_CURRENCY, asset })),
        ),
    );
  },
  quote(deps, call, request): Promise<ProviderQuote> {
    if (request.fiatCurrency !== SANDBOX_FIAT_CURRENCY || !sandboxAssetsOf(deps, call.app).includes(request.asset))
      throw new RampRefusal({
        kind: 'route_not_offered',
        message: `The sandbox ramps ${SANDBOX_FIAT_CURRENCY} and the service's demo USDC only`,
      });
    const price = sandboxPrice(request);
    refuseOutOfRange(price.fiatStroops, price.cryptoStroops);
    return Promise.resolve({
      fiatAmount: fromStroops(price.fiatStroops),
      cryptoAmount: fromStroops(price.cryptoStroops),
      fee: fromStroops(price.feeStroops),
      minAmount: fromStroops(MIN_FIAT_STROOPS),
      maxAmount: fromStroops(MAX_FIAT_STROOPS),
      expiresAt: new Date(call.now.getTime() + QUOTE_VALIDITY_MS),
    });
  },
  async start(deps, call, ramp) {
    await requireKyc(deps, call);
    const reference = sandboxReference(ramp.rampTxId);
    if (ramp.quote.direction === 'on')
      return {
        status: 'awaiting_deposit',
        providerRef: reference,
        depositInstructions: {
          method: 'other',
          amount: ramp.quote.fiatAmount,
          currency: ramp.quote.fiatCurrency,
          reference,
          details: {
            bankName: 'Sandbox bank (no real money)',
            beneficiary: 'Onboard sandbox',
            confirmDepositAt: `${deps.ramps?.baseUrl ?? ''}/sandbox/ramps/${ramp.rampTxId}`,
          },
          expiresAt: new Date(call.now.getTime() + SANDBOX_DEPOSIT_HOURS * 3_600_000),
        },
      };
    const [code] = ramp.quote.asset.split(':');
    return {
      status: 'processing',
      providerRef: reference,
      payment: {
        destination: demoUsdcIssuer(deps.secrets).publicKey(),
        asset: ramp.quote.asset,
        amount: ramp.quote.cryptoAmount,
        memo: { type: 'text', value: reference },
        action: `Send ${ramp.quote.cryptoAmount} ${code} to the sandbox ramp`,
      },
    };
  },
  async status(deps, _call, ramp) {
    // The sandbox's state is this service's own: the ramp as stored, an unpaid on-ramp expiring with its instructions.
    const row = await deps
      .db('ramp_transactions')
      .where({ id: ramp.rampTxId })
      .first<{ deposit_instructions: { expiresAt?: string } | null } | undefined>('deposit_instructions');
    const until = row?.deposit_instructions?.expiresAt;
    if (ramp.status === 'awaiting_deposit' && until && Date.parse(until) <= deps.clock.now().getTime())
      return { status: 'expired', failureReason: 'the deposit was not confirmed in time' };
    return { status: ramp.status };
  },
  async paymentSent(deps, call, ramp) {
    // The issuer received the asset (the payment is in a ledger): the bank side pays the fiat out.
    await deps
      .db('sandbox_fiat_ledger')
      .insert({
        app_id: call.app.id,
        ramp_tx_id: ramp.rampTxId,
        kind: 'payout',
        amount: ramp.quote.fiatAmount,
        currency: ramp.quote.fiatCurrency,
        reference: sandboxReference(ramp.rampTxId),
        created_at: deps.clock.now(),
      })
      .onConflict(['ramp_tx_id', 'kind'])
      .ignore();
    return { status: 'completed' };
  },
};

/** The reference the user quotes with a deposit (and the off-ramp payment's memo): short, from the ramp id. */
export function sandboxReference(rampTxId: string): string {
  return `SBX-${rampTxId.slice(-10).toUpperCase()}`;
}

/** An on-ramp of the sandbox as its page shows it. */
export interface SandboxDeposit {
  rampTxId: string;
  appName: string;
  status: string;
  fiatAmount: string;
  fiatCurrency: string;
  cryptoAmount: string;
  asset: string;
  walletAddress: string;
  reference: string;
  stellarTxHash: string | null;
}

interface DepositRow {
  id: string;
  app_id: string;
  status: string;
  stellar_tx_hash: string | null;
  name: string;
  fiat_amount: string;
  fiat_currency: string;
  crypto_amount: string;
  asset: string;
  public_key: string;
  network: App['network'];
}

function depositQuery(db: Knex, rampTxId: string) {
  return db('ramp_transactions as r')
    .join('ramp_quotes as q', 'q.id', 'r.quote_id')
    .join('apps as a', 'a.id', 'r.app_id')
    .join('wallets as w', 'w.id', 'r.wallet_id')
    .where({ 'r.id': rampTxId, 'r.provider_id': 'sandbox', 'q.direction': 'on' })
    .first<DepositRow | undefined>(
      'r.id',
      'r.app_id',
      'r.status',
      'r.stellar_tx_hash',
      'a.name',
      'q.fiat_amount',
      'q.fiat_currency',
      'q.crypto_amount',
      'q.asset',
      'w.public_key',
      'w.network',
    );
}

const depositView = (row: DepositRow): SandboxDeposit => ({
  rampTxId: row.id,
  appName: row.name,
  status: row.status,
  fiatAmount: row.fiat_amount,
  fiatCurrency: row.fiat_currency,
  cryptoAmount: row.crypto_amount,
  asset: row.asset,
  walletAddress: row.public_key,
  reference: sandboxReference(row.id),
  stellarTxHash: row.stellar_tx_hash,
});

/** The sandbox on-ramp, or undefined when there is none with this id (or it is not a sandbox on-ramp). */
export async function findSandboxDeposit(
  deps: Pick<Deps, 'db'>,
  rampTxId: string,
): Promise<SandboxDeposit | undefined> {
  const row = await depositQuery(deps.db, rampTxId);
  return row ? depositView(row) : undefined;
}

export type SandboxDeliveryDeps = Pick<Deps, 'db' | 'clock' | 'stellar' | 'secrets' | 'log' | 'jobs'>;

/**
 * The developer confirmed the fiat deposit: recorded in the fiat ledger (once), then the asset delivered from the
 * issuer. Its envelope hash is recorded before it is sent: confirming again (a retry after a failure) looks that
 * transaction up first and builds a new one only when the first can no longer land. Answers the ramp afterwards;
 * `onSettled` records the status change (transactions.ts, so the event and the history follow).
 */
export async function confirmSandboxDeposit(
  deps: SandboxDeliveryDeps,
  rampTxId: string,
  onSettled: (status: 'processing' | 'completed', stellarTxHash: string | null) => Promise<void>,
): Promise<SandboxDeposit> {
  const row = await depositQuery(deps.db, rampTxId);
  if (!row) throw new AppError('SDK_RAMPS_TX_NOT_FOUND', { message: 'No sandbox on-ramp with this id' });
  if (row.status === 'completed' || row.status === 'failed' || row.status === 'expired') return depositView(row);
  // 1. the fiat side, once
  await deps
    .db('sandbox_fiat_ledger')
    .insert({
      app_id: row.app_id,
      ramp_tx_id: rampTxId,
      kind: 'deposit',
      amount: row.fiat_amount,
      currency: row.fiat_currency,
      reference: sandboxReference(rampTxId),
      created_at: deps.clock.now(),
    })
    .onConflict(['ramp_tx_id', 'kind'])
    .ignore();
  if (row.status === 'awaiting_deposit') await onSettled('processing', null);
  // 2. the asset, once. The issuer's account is read before the recorded delivery is looked up: a recorded
  //    transaction that lands after this read carries the sequence number the new one would, so at most one of them
  //    can land. The new hash replaces the recorded one only if nobody replaced it meanwhile (a second confirmation
  //    at the same moment leaves the delivery to the first).
  const gw = gatewayFor(deps, row.network);
  const issuer: Keypair = demoUsdcIssuer(deps.secrets);
  const [account, figures] = await Promise.all([gw.loadAccount(issuer.publicKey()), gw.ledgerFigures()]);
  if (!account) throw new Error('the sandbox issuer account does not exist on this network');
  if (row.stellar_tx_hash) {
    const landed = await gw.transactionStatus(row.stellar_tx_hash);
    if (landed.status === 'SUCCESS') {
      await onSettled('completed', row.stellar_tx_hash);
      return (await findSandboxDeposit(deps, rampTxId))!;
    }
  }
  const tx = new TransactionBuilder(new Account(issuer.publicKey(), account.sequence), {
    fee: String(figures.baseFeeStroops),
    networkPassphrase: gw.networkPassphrase,
  })
    .addOperation(
      Operation.payment({ destination: row.public_key, asset: parseAsset(row.asset), amount: row.crypto_amount }),
    )
    .addMemo(Memo.text(sandboxReference(rampTxId)))
    .setTimeout(DELIVERY_VALIDITY_SECONDS)
    .build();
  tx.sign(issuer);
  const hash = Buffer.from(tx.hash()).toString('hex');
  const claimed = await deps
    .db('ramp_transactions')
    .where({ id: rampTxId })
    .andWhereRaw('stellar_tx_hash is not distinct from ?', [row.stellar_tx_hash])
    .update({ stellar_tx_hash: hash, updated_at: deps.clock.now() });
  if (claimed === 0) return (await findSandboxDeposit(deps, rampTxId))!;
  await gw.submitAndConfirm(tx, { timeoutMs: 30_000 });
  await onSettled('completed', hash);
  return (await findSandboxDeposit(deps, rampTxId))!;
}
