// Quotes and ramps: what the SDK's ramp operations do, provider by provider (providers.ts).
//
//   quote    the provider enabled for the app with the asset (404, 422), priced by the provider, stored for 15 minutes
//            at most (rmq_...).
//   start    idempotent by quote: the ramp row (rmt_..., `quote_id` unique) is the claim, so a quote started twice, at
//            once or later, is one ramp. Checked first: the quote is the user's (404) and not expired (410); an
//            off-ramp's balance (422 SDK_RAMPS_INSUFFICIENT_BALANCE, nothing recorded). A provider refusal or failure
//            removes the claim again (the quote stays usable until it expires) and answers its code. When the
//            provider is ready for the asset of an off-ramp, the service pays it (rampLeg.ts), once: the conditional
//            `payment_claimed_at` decides who sends.
//   refresh  getRampTransaction reads the provider's state (a provider that fails is not the user's error: the stored
//            state is answered), sends a payment the provider now asks for, follows the payment the service sent, and
//            settles it with the provider (paymentSent).
// Every status change is one UPDATE with its `ramp.updated` outbox event, in one database transaction.
import type { Knex } from 'knex';
import { findApp, type App } from '../apps/store';
import { SYSTEM_ACTOR } from '../audit/auditLog';
import { findWallet } from '../wallets/store';
import type { Deps } from '../deps';
import { AppError, appErrorOf } from '../errors';
import { recordOutboxEvent } from '../events/outbox';
import { newId } from '../ids';
import { decodeCursor, encodeCursor, invalidCursor } from '../paging/cursor';
import { findTransaction, findTransactionByInnerHash } from '../transactions/store';
import type { TxDeps } from '../transactions/submission';
import { rampCallFor, type RampCaller } from './call';
import {
  FINAL_RAMP_STATUSES,
  QUOTE_VALIDITY_MS,
  RampRefusal,
  type DepositInstructions,
  type OffRampPayment,
  type ProviderRampState,
  type RampDeps,
  type RampDirection,
  type RampProvider,
  type RampQuoteRequest,
  type RampStatus,
  type StoredQuote,
  type StoredRamp,
} from './providers';
import { requireSpendable, sendOffRampPayment } from './rampLeg';
import { rampProviderOf } from './registry';
import { rampCredentials, rampSettingsOf } from './settings';
import { UpstreamFailure } from './upstream';

export type RampsDeps = RampDeps & TxDeps & Pick<Deps, 'jobs'>;

interface QuoteRow {
  id: string;
  app_id: string;
  user_id: string;
  wallet_id: string;
  provider_id: string;
  direction: RampDirection;
  fiat_currency: string;
  asset: string;
  amount_in: 'fiat' | 'crypto';
  amount: string;
  fiat_amount: string;
  crypto_amount: string;
  fee: string;
  min_amount: string;
  max_amount: string;
  provider_ref: string | null;
  expires_at: Date;
  created_at: Date;
}

interface RampRow {
  id: string;
  app_id: string;
  user_id: string;
  wallet_id: string;
  quote_id: string;
  provider_id: string;
  status: RampStatus;
  provider_ref: string | null;
  kyc_url: string | null;
  deposit_instructions: (Omit<DepositInstructions, 'expiresAt'> & { expiresAt?: string }) | null;
  pending_signature: { unsignedXdr: string; action: string; innerHash: string } | null;
  payment: OffRampPayment | null;
  payment_claimed_at: Date | null;
  payment_tx_id: string | null;
  stellar_tx_hash: string | null;
  failure_code: string | null;
  failure_reason: string | null;
  created_at: Date;
  updated_at: Date;
}

const quotes = (db: Knex) => db<QuoteRow>('ramp_quotes');
const ramps = (db: Knex) => db<RampRow>('ramp_transactions');

/** A provider's refusal or failure as the contract's error. */
export function rampError(provider: RampProvider, err: unknown): unknown {
  if (err instanceof UpstreamFailure)
    return new AppError(provider.upstreamCode, {
      message: `${provider.name} did not answer usefully; retry`,
      cause: err,
    });
  if (!(err instanceof RampRefusal)) return err;
  const r = err.refusal;
  switch (r.kind) {
    case 'kyc_required':
      return new AppError('SDK_RAMPS_KYC_REQUIRED', { message: r.message, fields: { kycUrl: r.kycUrl } });
    case 'out_of_range':
      return new AppError('SDK_RAMPS_AMOUNT_OUT_OF_RANGE', {
        message: r.message,
        fields: { limit: r.limit, limitAmount: r.limitAmount, limitCurrency: r.limitCurrency },
      });
    case 'route_not_offered':
      return new AppError('SDK_RAMPS_ROUTE_NOT_OFFERED', { message: r.message });
    case 'wallet_unsupported':
      return new AppError('SDK_RAMPS_WALLET_UNSUPPORTED', { message: r.message });
    case 'not_configured':
      return new AppError('SDK_RAMPS_PROVIDER_NOT_CONFIGURED', { message: r.message });
    case 'testnet_not_settleable':
      return new AppError('SDK_RAMPS_BRIDGE_TESTNET_NOT_SETTLEABLE', {
        message: r.message,
        ...(r.depositInstructions ? { details: { depositInstructions: instructionsView(r.depositInstructions) } } : {}),
      });
    case 'webhook_signature_invalid':
      return new AppError('RAMP_WEBHOOK_SIGNATURE_INVALID', { message: r.message });
    case 'quote_expired':
      return new AppError('SDK_RAMPS_QUOTE_EXPIRED', { message: r.message });
  }
}

/** Runs a provider call, its refusals and failures turned into the contract's errors. */
async function callProvider<T>(provider: RampProvider, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw rampError(provider, err);
  }
}

const instructionsView = (d: DepositInstructions) => ({
  method: d.method,
  amount: d.amount,
  currency: d.currency,
  reference: d.reference,
  details: d.details,
  ...(d.expiresAt ? { expiresAt: d.expiresAt.toISOString() } : {}),
});

/** The provider enabled for the app: 404 when the app does not have it, 422 when it has no usable credentials. */
async function enabledProvider(deps: RampsDeps, caller: RampCaller, providerId: string) {
  const provider = rampProviderOf(providerId);
  const setting = (await rampSettingsOf(deps, caller.app)).find((p) => p.providerId === providerId);
  if (!setting || !setting.enabled || !provider.availableFor(deps, caller.app))
    throw new AppError('SDK_RAMPS_PROVIDER_NOT_FOUND', { message: `The app offers no ramp provider ${providerId}` });
  if (provider.credentialNames.length > 0 && !setting.credentialsSet)
    throw new AppError('SDK_RAMPS_PROVIDER_NOT_CONFIGURED', {
      message: `${provider.name} has no credentials for this app`,
    });
  return { provider, setting };
}

/** listRampProviders' content: the app's enabled providers with their routes. */
export async function listRampProviders(deps: RampsDeps, caller: Pick<RampCaller, 'app'>) {
  const settings = (await rampSettingsOf(deps, caller.app)).filter((s) => s.enabled && s.assets.length > 0);
  const listed = [];
  for (const setting of settings) {
    const provider = rampProviderOf(setting.providerId);
    if (!provider.availableFor(deps, caller.app)) continue;
    if (provider.credentialNames.length > 0 && !setting.credentialsSet) continue;
    let routes;
    try {
      const call = {
        app: caller.app,
        network: caller.app.network,
        credentials: await rampCredentials(deps, caller.app, provider.id),
        now: deps.clock.now(),
      };
      routes = await provider.routes(deps, call, setting.assets);
    } catch (err) {
      // One provider down does not hide the others.
      deps.log.warn({ providerId: provider.id, err: (err as Error).message }, 'ramp provider routes unavailable');
      continue;
    }
    if (routes.length === 0) continue;
    listed.push({
      providerId: provider.id,
      name: provider.name,
      directions: [...new Set(routes.map((r) => r.direction))],
      fiatCurrencies: [...new Set(routes.map((r) => r.fiatCurrency))].slice(0, 50),
      assets: [...new Set(routes.map((r) => r.asset))].slice(0, 20),
    });
  }
  return { providers: listed };
}

const quoteView = (q: QuoteRow) => ({
  quoteId: q.id,
  providerId: q.provider_id,
  direction: q.direction,
  fiatAmount: q.fiat_amount,
  fiatCurrency: q.fiat_currency,
  cryptoAmount: q.crypto_amount,
  asset: q.asset,
  fee: q.fee,
  minAmount: q.min_amount,
  maxAmount: q.max_amount,
  expiresAt: q.expires_at.toISOString(),
});

/** createRampQuote. */
export async function createRampQuote(
  deps: RampsDeps,
  caller: RampCaller,
  input: RampQuoteRequest & { providerId: string },
) {
  const { provider, setting } = await enabledProvider(deps, caller, input.providerId);
  if (!caller.app.assets.includes(input.asset) || !setting.assets.includes(input.asset))
    throw new AppError('SDK_RAMPS_ASSET_NOT_ENABLED', {
      message: `${input.asset.split(':')[0]} is not enabled for ramps with ${provider.name} in this app`,
    });
  const call = await rampCallFor(deps, caller, provider.id);
  const priced = await callProvider(provider, () => provider.quote(deps, call, input));
  const now = deps.clock.now();
  const latest = new Date(now.getTime() + QUOTE_VALIDITY_MS);
  const row: QuoteRow = {
    id: newId('rmq'),
    app_id: caller.app.id,
    user_id: caller.userId,
    wallet_id: caller.wallet.id,
    provider_id: provider.id,
    direction: input.direction,
    fiat_currency: input.fiatCurrency,
    asset: input.asset,
    amount_in: input.amountIn,
    amount: input.amount,
    fiat_amount: priced.fiatAmount,
    crypto_amount: priced.cryptoAmount,
    fee: priced.fee,
    min_amount: priced.minAmount,
    max_amount: priced.maxAmount,
    provider_ref: priced.providerRef ?? null,
    expires_at: priced.expiresAt < latest ? priced.expiresAt : latest,
    created_at: now,
  };
  await quotes(deps.db).insert(row);
  return quoteView(row);
}

const storedQuote = (q: QuoteRow): StoredQuote => ({
  quoteId: q.id,
  providerId: q.provider_id,
  direction: q.direction,
  fiatCurrency: q.fiat_currency,
  asset: q.asset,
  amount: q.amount,
  amountIn: q.amount_in,
  fiatAmount: q.fiat_amount,
  cryptoAmount: q.crypto_amount,
  fee: q.fee,
  minAmount: q.min_amount,
  maxAmount: q.max_amount,
  expiresAt: q.expires_at,
  ...(q.provider_ref ? { providerRef: q.provider_ref } : {}),
});

const storedRamp = (r: RampRow, q: QuoteRow): StoredRamp => ({
  rampTxId: r.id,
  quote: storedQuote(q),
  status: r.status,
  providerRef: r.provider_ref,
  stellarTxHash: r.stellar_tx_hash,
  createdAt: r.created_at,
});

/** The contract's RampTransaction. */
export function rampView(r: RampRow, q: QuoteRow) {
  return {
    txId: r.id,
    provider: r.provider_id,
    status: r.status,
    quoteId: q.id,
    direction: q.direction,
    asset: q.asset,
    cryptoAmount: q.crypto_amount,
    fiatAmount: q.fiat_amount,
    fiatCurrency: q.fiat_currency,
    ...(r.kyc_url && r.status === 'pending_kyc' ? { kycUrl: r.kyc_url } : {}),
    ...(r.pending_signature && r.status === 'awaiting_signature'
      ? { pendingSignature: { unsignedXdr: r.pending_signature.unsignedXdr, action: r.pending_signature.action } }
      : {}),
    ...(r.deposit_instructions && r.status === 'awaiting_deposit'
      ? { depositInstructions: r.deposit_instructions }
      : {}),
    stellarTxHash: r.stellar_tx_hash,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}

/** What a provider's state changes on the row (only what it says; a payment once asked for is kept). */
function stateColumns(state: ProviderRampState): Partial<RampRow> {
  return {
    status: state.status,
    ...(state.providerRef ? { provider_ref: state.providerRef } : {}),
    ...(state.kycUrl ? { kyc_url: state.kycUrl } : {}),
    ...(state.depositInstructions
      ? {
          deposit_instructions: {
            ...instructionsView(state.depositInstructions),
          },
        }
      : {}),
    ...(state.payment ? { payment: state.payment } : {}),
    ...(state.stellarTxHash ? { stellar_tx_hash: state.stellarTxHash } : {}),
    ...(state.failureReason ? { failure_reason: state.failureReason.slice(0, 500) } : {}),
  };
}

/**
 * Writes `changes` to the ramp; a changed status (or the first, `announce`) also records `ramp.updated`. A final
 * status is never left again: a late provider answer cannot reopen a completed or failed ramp.
 */
async function updateRamp(
  deps: Pick<RampsDeps, 'db' | 'clock' | 'jobs'>,
  rampId: string,
  changes: Partial<RampRow>,
  opts: { announce?: boolean } = {},
): Promise<RampRow> {
  return deps.db.transaction(async (trx) => {
    const before = await ramps(trx).where({ id: rampId }).forUpdate().first();
    if (!before) throw new AppError('SDK_RAMPS_TX_NOT_FOUND', { message: 'Ramp transaction not found' });
    if (FINAL_RAMP_STATUSES.includes(before.status)) return before;
    const now = deps.clock.now();
    const [after] = await ramps(trx)
      .where({ id: rampId })
      .update({ ...changes, updated_at: now })
      .returning('*');
    if (after!.status !== before.status || opts.announce) {
      const quote = (await quotes(trx).where({ id: after!.quote_id }).first())!;
      await recordOutboxEvent(deps, trx, {
        appId: after!.app_id,
        type: 'ramp.updated',
        at: now,
        data: {
          rampTxId: after!.id,
          userId: after!.user_id,
          walletId: after!.wallet_id,
          provider: after!.provider_id,
          direction: quote.direction,
          status: after!.status,
          asset: quote.asset,
          cryptoAmount: quote.crypto_amount,
          fiatAmount: quote.fiat_amount,
          fiatCurrency: quote.fiat_currency,
          stellarTxHash: after!.stellar_tx_hash,
        },
      });
    }
    return after!;
  });
}

/** The user's quote: 404 SDK_RAMPS_QUOTE_NOT_FOUND for another user's or an unknown one. */
async function userQuote(deps: Pick<Deps, 'db'>, caller: RampCaller, quoteId: string): Promise<QuoteRow> {
  const q = await quotes(deps.db).where({ id: quoteId, app_id: caller.app.id, user_id: caller.userId }).first();
  if (!q) throw new AppError('SDK_RAMPS_QUOTE_NOT_FOUND', { message: 'Quote not found' });
  return q;
}

/** startRamp (see the header). */
export async function startRamp(deps: RampsDeps, caller: RampCaller, quoteId: string) {
  // 1. the user's quote, started already (the same ramp), or still valid
  const quote = await userQuote(deps, caller, quoteId);
  const existing = await ramps(deps.db).where({ quote_id: quote.id }).first();
  if (existing) return rampView(existing, quote);
  if (quote.expires_at.getTime() <= deps.clock.now().getTime())
    throw new AppError('SDK_RAMPS_QUOTE_EXPIRED', { message: 'The quote expired; request a new one' });
  const { provider } = await enabledProvider(deps, caller, quote.provider_id);
  if (quote.wallet_id !== caller.wallet.id)
    throw new AppError('SDK_RAMPS_QUOTE_NOT_FOUND', { message: 'The quote was made for another wallet' });
  // 2. an off-ramp's balance, before anything is recorded
  if (quote.direction === 'off') await requireSpendable(deps, caller, quote.asset, quote.crypto_amount);
  // 3. the claim: one ramp per quote
  const now = deps.clock.now();
  const claimed = await ramps(deps.db)
    .insert({
      id: newId('rmt'),
      app_id: caller.app.id,
      user_id: caller.userId,
      wallet_id: caller.wallet.id,
      quote_id: quote.id,
      provider_id: provider.id,
      status: 'processing',
      created_at: now,
      updated_at: now,
    })
    .onConflict('quote_id')
    .ignore()
    .returning('*');
  if (claimed.length === 0) return rampView((await ramps(deps.db).where({ quote_id: quote.id }).first())!, quote);
  const ramp = claimed[0]!;
  // 4. the provider starts it; a refusal or failure gives the quote back
  let state: ProviderRampState;
  try {
    const call = await rampCallFor(deps, caller, provider.id);
    state = await callProvider(provider, () => provider.start(deps, call, storedRamp(ramp, quote)));
  } catch (err) {
    await ramps(deps.db).where({ id: ramp.id }).delete();
    throw err;
  }
  let row = await updateRamp(deps, ramp.id, stateColumns(state), { announce: true });
  // 5. the asset of an off-ramp, when the provider is ready for it
  if (state.payment) {
    // Checked above only if the provider asks for what was quoted (a SEP-24 anchor may ask for another amount).
    const quoted = state.payment.asset === quote.asset && state.payment.amount === quote.crypto_amount;
    row = await payOffRamp(deps, caller, provider, row, quote, { raise: true, balanceChecked: quoted });
  }
  return rampView(row, quote);
}

/**
 * Sends the off-ramp payment the provider asked for, once (the conditional claim), and records what happened:
 * `processing` with the hash, `awaiting_signature` for a wallet the service cannot sign for, `failed` when the
 * network refused it (then raised as 422 SDK_RAMPS_ONCHAIN_SUBMIT_FAILED when `raise`).
 */
async function payOffRamp(
  deps: RampsDeps,
  caller: RampCaller,
  provider: RampProvider,
  row: RampRow,
  quote: QuoteRow,
  opts: { raise: boolean; balanceChecked?: boolean },
): Promise<RampRow> {
  if (!row.payment || row.payment_claimed_at || FINAL_RAMP_STATUSES.includes(row.status)) return row;
  const claimed = await ramps(deps.db)
    .where({ id: row.id })
    .whereNull('payment_claimed_at')
    .update({ payment_claimed_at: deps.clock.now() });
  if (claimed === 0) return (await ramps(deps.db).where({ id: row.id }).first())!;
  try {
    const leg = await sendOffRampPayment(deps, caller, row.payment, { balanceChecked: opts.balanceChecked ?? false });
    if (leg.kind === 'needs_signature')
      return updateRamp(deps, row.id, {
        status: 'awaiting_signature',
        pending_signature: { unsignedXdr: leg.unsignedXdr, action: row.payment.action, innerHash: leg.innerHash },
      });
    const sent = await updateRamp(deps, row.id, {
      status: 'processing',
      payment_tx_id: leg.txId,
      stellar_tx_hash: leg.hash,
    });
    return leg.confirmed ? settlePayment(deps, caller, provider, sent, quote, leg.hash) : sent;
  } catch (err) {
    const known = appErrorOf(err);
    if (known?.code === 'SDK_RAMPS_ONCHAIN_SUBMIT_FAILED' || known?.code === 'SDK_RAMPS_INSUFFICIENT_BALANCE') {
      await updateRamp(deps, row.id, {
        status: 'failed',
        failure_code: known.code,
        failure_reason: known.message.slice(0, 500),
      });
      if (opts.raise) throw err;
      return (await ramps(deps.db).where({ id: row.id }).first())!;
    }
    // Not sent (the network unreachable, a policy refusal): the claim is given back for the next refresh to retry.
    await ramps(deps.db).where({ id: row.id }).update({ payment_claimed_at: null });
    if (opts.raise) throw err;
    return row;
  }
}

/** The off-ramp payment is in a ledger: the provider is told (when it must be) and says what follows. */
async function settlePayment(
  deps: RampsDeps,
  caller: RampCaller,
  provider: RampProvider,
  row: RampRow,
  quote: QuoteRow,
  hash: string,
): Promise<RampRow> {
  if (!provider.paymentSent) return row;
  const call = await rampCallFor(deps, caller, provider.id);
  try {
    const state = await provider.paymentSent(deps, call, storedRamp(row, quote), hash);
    return updateRamp(deps, row.id, stateColumns(state));
  } catch (err) {
    deps.log.warn({ rampTxId: row.id, err: (err as Error).message }, 'ramp provider not told of the payment yet');
    return row;
  }
}

/** getRampTransaction: the user's ramp, refreshed (see the header). */
export async function refreshRamp(deps: RampsDeps, caller: RampCaller, rampTxId: string) {
  const row = await ramps(deps.db).where({ id: rampTxId, app_id: caller.app.id, user_id: caller.userId }).first();
  if (!row) throw new AppError('SDK_RAMPS_TX_NOT_FOUND', { message: 'Ramp transaction not found' });
  const quote = (await quotes(deps.db).where({ id: row.quote_id }).first())!;
  return rampView(await followRamp(deps, caller, row, quote), quote);
}

/** The steps of a refresh (see the header), for a user's poll, the ramps job and a provider's webhook alike. */
async function followRamp(deps: RampsDeps, caller: RampCaller, ramp: RampRow, quote: QuoteRow): Promise<RampRow> {
  let row = ramp;
  if (FINAL_RAMP_STATUSES.includes(row.status)) return row;
  const provider = rampProviderOf(row.provider_id);
  // 1. the payment the service sent (or the user signed): in a ledger yet?
  if (row.payment_claimed_at) {
    const record = row.payment_tx_id
      ? await findTransaction(deps.db, row.payment_tx_id)
      : row.pending_signature
        ? await findTransactionByInnerHash(deps.db, caller.wallet.network, row.pending_signature.innerHash)
        : undefined;
    if (record?.status === 'FAILED')
      row = await updateRamp(deps, row.id, {
        status: 'failed',
        failure_code: 'SDK_RAMPS_ONCHAIN_SUBMIT_FAILED',
        failure_reason: `the network rejected the off-ramp payment (${record.resultCode ?? 'tx_failed'})`,
      });
    else if (record?.status === 'SUCCESS' && row.status !== 'completed') {
      if (!row.stellar_tx_hash)
        row = await updateRamp(deps, row.id, { stellar_tx_hash: record.hash, status: 'processing' });
      row = await settlePayment(deps, caller, provider, row, quote, record.hash);
    }
    if (FINAL_RAMP_STATUSES.includes(row.status)) return row;
  }
  // 2. the provider's state (a provider that fails leaves the stored state; the next refresh asks again)
  try {
    const call = await rampCallFor(deps, caller, provider.id);
    const state = await provider.status(deps, call, storedRamp(row, quote));
    row = await updateRamp(deps, row.id, stateColumns(state));
  } catch (err) {
    deps.log.warn({ rampTxId: row.id, err: (err as Error).message }, 'ramp status not refreshed from the provider');
  }
  // 3. a payment the provider asks for now
  if (row.payment && !row.payment_claimed_at)
    row = await payOffRamp(deps, caller, provider, row, quote, { raise: false });
  return row;
}

/** Who a ramp acts for when no request does (the ramps job, a provider's webhook): its user, audited as the service. */
async function callerOfRamp(deps: Pick<Deps, 'db'>, row: RampRow): Promise<RampCaller | undefined> {
  const [app, wallet] = await Promise.all([findApp(deps.db, row.app_id), findWallet(deps.db, row.wallet_id)]);
  if (!app || !wallet) return undefined;
  return { app, userId: row.user_id, wallet, actor: SYSTEM_ACTOR };
}

/** Ramps the job looks at in one pass. */
export const RAMP_FOLLOW_BATCH = 50;
/** How often the job looks at open ramps, and how long a ramp rests after a change before it looks again. */
export const RAMP_FOLLOW_INTERVAL_MS = 15_000;

/**
 * The `ramps` job's pass: open ramps not touched for a while are refreshed as a poll would (the provider's state, a
 * payment it now asks for, a sent payment settled, an unpaid sandbox deposit expired). One ramp that fails is logged
 * and left for the next pass; the others go on. Answers how many were looked at.
 */
export async function followOpenRamps(deps: RampsDeps): Promise<number> {
  const due = await ramps(deps.db)
    .whereNotIn('status', FINAL_RAMP_STATUSES)
    .where('updated_at', '<', new Date(deps.clock.now().getTime() - RAMP_FOLLOW_INTERVAL_MS))
    .orderBy('updated_at')
    .limit(RAMP_FOLLOW_BATCH);
  for (const row of due) {
    try {
      const caller = await callerOfRamp(deps, row);
      const quote = await quotes(deps.db).where({ id: row.quote_id }).first();
      if (!caller || !quote) continue;
      const after = await followRamp(deps, caller, row, quote);
      // Looked at, even when nothing changed: the next pass takes the next ones first.
      if (after.updated_at.getTime() === row.updated_at.getTime())
        await ramps(deps.db).where({ id: row.id }).update({ updated_at: deps.clock.now() });
    } catch (err) {
      deps.log.warn({ rampTxId: row.id, err: (err as Error).message }, 'ramp not followed up');
    }
  }
  return due.length;
}

/**
 * receiveRampWebhook: the provider checks the signature (401 RAMP_WEBHOOK_SIGNATURE_INVALID) and reads the event; an
 * event about one of the app's ramps with that provider updates it, then the ramp is refreshed. Answers the ramp's id,
 * or null for an event about anything else.
 */
export async function receiveProviderWebhook(
  deps: RampsDeps,
  app: App,
  providerId: string,
  request: { headers: Record<string, string | undefined>; rawBody: Buffer },
): Promise<string | null> {
  const provider = rampProviderOf(providerId);
  const setting = (await rampSettingsOf(deps, app)).find((p) => p.providerId === providerId);
  if (!provider.webhook || !setting?.credentialsSet)
    throw new AppError('SDK_RAMPS_PROVIDER_NOT_FOUND', { message: `The app has no ${providerId} webhook key` });
  const call = {
    app,
    network: app.network,
    credentials: await rampCredentials(deps, app, providerId),
    now: deps.clock.now(),
  };
  const update = await callProvider(provider, async () => {
    try {
      return await provider.webhook!(deps, call, request);
    } catch (err) {
      // The provider's other credentials are stored, but no usable webhook key: as for an app without the provider.
      if (err instanceof RampRefusal && err.refusal.kind === 'not_configured')
        throw new AppError('SDK_RAMPS_PROVIDER_NOT_FOUND', {
          message: `The app has no usable ${providerId} webhook key`,
          cause: err,
        });
      throw err;
    }
  });
  if (!update) return null;
  const row = await ramps(deps.db)
    .where({ app_id: app.id, provider_id: providerId, provider_ref: update.providerRef })
    .first();
  if (!row) return null;
  // What the event says, at once; then a refresh, which also sends an off-ramp payment the provider now expects.
  const updated = await updateRamp(deps, row.id, stateColumns(update.state));
  const caller = await callerOfRamp(deps, updated);
  const quote = await quotes(deps.db).where({ id: row.quote_id }).first();
  if (caller && quote) await followRamp(deps, caller, updated, quote);
  return row.id;
}

/** A status change that does not come from a user's request (the sandbox page, a provider webhook). */
export async function recordRampStatus(
  deps: Pick<RampsDeps, 'db' | 'clock' | 'jobs'>,
  rampTxId: string,
  status: RampStatus,
  stellarTxHash: string | null,
): Promise<void> {
  await updateRamp(deps, rampTxId, { status, ...(stellarTxHash ? { stellar_tx_hash: stellarTxHash } : {}) });
}

type ListedRamp = RampRow & {
  quote: Omit<QuoteRow, 'expires_at' | 'created_at'> & { expires_at: string; created_at: string };
  public_key: string;
};

/** listAppRampTransactions: the app's ramps, newest first, keyset paging. */
export async function listAppRamps(
  deps: Pick<Deps, 'db'>,
  appId: string,
  page: { status?: RampStatus; limit: number; cursor?: string },
) {
  const after = page.cursor === undefined ? undefined : decodeCursor(page.cursor, 'rmt');
  if (page.cursor !== undefined && !after) throw invalidCursor();
  let query = deps
    .db('ramp_transactions as r')
    .join('ramp_quotes as q', 'q.id', 'r.quote_id')
    .join('wallets as w', 'w.id', 'r.wallet_id')
    .where('r.app_id', appId);
  if (page.status) query = query.where('r.status', page.status);
  if (after) {
    const anchor = await deps
      .db('ramp_transactions')
      .where({ id: after.afterId, app_id: appId })
      .first<{ created_at: Date } | undefined>('created_at');
    if (!anchor) throw invalidCursor();
    query = query.whereRaw('(r.created_at, r.id) < (?, ?)', [anchor.created_at, after.afterId]);
  }
  const rows = await query
    .orderBy([
      { column: 'r.created_at', order: 'desc' },
      { column: 'r.id', order: 'desc' },
    ])
    .limit(page.limit + 1)
    .select<ListedRamp[]>('r.*', deps.db.raw('row_to_json(q.*) as quote'), 'w.public_key');
  const shown = rows.slice(0, page.limit);
  return {
    transactions: shown.map((r) => ({
      userId: r.user_id,
      walletAddress: r.public_key,
      ramp: rampView(r, {
        ...r.quote,
        expires_at: new Date(r.quote.expires_at),
        created_at: new Date(r.quote.created_at),
      }),
    })),
    nextCursor:
      rows.length > page.limit
        ? encodeCursor({ afterId: shown[shown.length - 1]!.id, offset: (after?.offset ?? 0) + shown.length })
        : null,
  };
}
