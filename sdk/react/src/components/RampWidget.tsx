// Buying or selling an asset for fiat as one widget: the user picks a provider, buy or sell, the currency, the asset
// and an amount from the app's ramp providers; gets a quote (what they pay, what they get, the fee, a countdown to its
// expiry and a new quote once it is over); starts it; then sees what the ramp needs by its status: the deposit
// instructions to pay (awaiting_deposit), the provider's identity check to open (pending_kyc, opened in the click),
// progress while it settles, and how it ended. Refusals say why (an amount out of range shows the bound). Built on
// useRamp (../useRamp.ts); its words are in ../messages.ts (rampText, rampMessage).
import { useEffect, useId, useState, type FormEvent } from 'react';
import type { ramps } from '@onboard/core';
import { useSession } from '../hooks.js';
import { rampMessage, rampText } from '../messages.js';
import { useRamp, type RampFlowState } from '../useRamp.js';

export interface RampWidgetProps {
  /** Pause between reads of a started ramp (default 5 000 ms). */
  intervalMs?: number;
  /** How long to follow a ramp before saying it is still in progress (default ten minutes). */
  timeoutMs?: number;
  /** The direction selected first (default: the provider's first). */
  defaultDirection?: ramps.RampDirection;
  className?: string;
  /** Called once a ramp completed. */
  onCompleted?: (transaction: ramps.FinalRampTransaction) => void;
}

// The contract's Amount: a positive decimal string with at most 7 decimals (never parsed into a float).
const AMOUNT = /^(?:0|[1-9]\d{0,11})(?:\.\d{1,7})?$/;
const isPositiveAmount = (value: string) => AMOUNT.test(value) && !/^0(?:\.0*)?$/.test(value);

/** `XLM` for native, else the CODE of CODE:ISSUER. */
const assetCode = (asset: string) => (asset === 'native' ? 'XLM' : (asset.split(':')[0] ?? asset));

/** A deposit detail's label: the known ones by name, any other spelled out from its camelCase key. */
function detailLabel(key: string): string {
  const known = rampText.depositDetails[key];
  if (known) return known;
  const words = key.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Seconds left until `iso`, ticking every second while `active`; undefined when there is no time to count. */
function useSecondsLeft(iso: string | undefined, active: boolean): number | undefined {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active || !iso) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, [iso, active]);
  if (!iso) return undefined;
  const at = Date.parse(iso);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1_000));
}

const clock = (seconds: number) => `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;

/**
 * A value with a button that copies it (where the browser allows: a secure context). The button always reads "Copy"
 * (its name, "Copy reference", must keep its visible text); the confirmation is a status beside it, announced.
 */
function Copyable({ label, value }: { label: string; value: string }) {
  const [copied, setCopied] = useState(false);
  const canCopy = typeof navigator !== 'undefined' && Boolean(navigator.clipboard);
  const copy = () => {
    void navigator.clipboard.writeText(value).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  };
  return (
    <dd>
      <span className="onb-value">{value}</span>
      {canCopy ? (
        <span className="onb-copy">
          <span role="status" className="onb-note onb-small">
            {copied ? 'Copied' : ''}
          </span>{' '}
          <button type="button" className="onb-link" onClick={copy} aria-label={`Copy ${label.toLowerCase()}`}>
            Copy
          </button>
        </span>
      ) : null}
    </dd>
  );
}

function DepositInstructions({ transaction }: { transaction: ramps.RampTransaction }) {
  const deposit = transaction.depositInstructions;
  if (!deposit) return null;
  const payBy = deposit.expiresAt ? new Date(deposit.expiresAt) : undefined;
  return (
    <div className="onb-deposit">
      <h3 className="onb-subtitle">Payment instructions</h3>
      <dl className="onb-dl" data-testid="ramp-deposit">
        <dt>Method</dt>
        <dd>{rampText.depositMethods[deposit.method]}</dd>
        <dt>Amount</dt>
        <Copyable label="Amount" value={`${deposit.amount} ${deposit.currency}`} />
        <dt>Reference</dt>
        <Copyable label="Reference" value={deposit.reference} />
        {Object.entries(deposit.details).map(([key, value]) => (
          <DetailRow key={key} label={detailLabel(key)} value={value} />
        ))}
        {payBy && !Number.isNaN(payBy.getTime()) ? (
          <>
            <dt>Pay by</dt>
            <dd>
              <time dateTime={deposit.expiresAt}>{payBy.toLocaleString()}</time>
            </dd>
          </>
        ) : null}
      </dl>
      <p className="onb-note">Put the reference on your payment, or the provider cannot match it to you.</p>
    </div>
  );
}

function DetailRow({ label, value }: { label: string; value: string }) {
  return (
    <>
      <dt>{label}</dt>
      <Copyable label={label} value={value} />
    </>
  );
}

/** Opens the provider's identity check in a new tab, in the click itself (so no popup blocker stops it). */
function KycButton({ kycUrl, label = 'Verify my identity' }: { kycUrl: string; label?: string }) {
  return (
    <button type="button" onClick={() => window.open(kycUrl, '_blank', 'noopener,noreferrer')}>
      {label}
    </button>
  );
}

/** What a started ramp shows, by its status. */
function RampProgress({
  transaction,
  following,
  providerName,
}: {
  transaction: ramps.RampTransaction;
  following: boolean;
  providerName: string;
}) {
  const { status } = transaction;
  const crypto = `${transaction.cryptoAmount} ${assetCode(transaction.asset)}`;
  const fiat = `${transaction.fiatAmount} ${transaction.fiatCurrency}`;
  const final = status === 'completed' || status === 'failed' || status === 'expired';
  const sentence =
    status === 'completed'
      ? transaction.direction === 'on'
        ? `Done. ${transaction.cryptoAmount} ${assetCode(transaction.asset)} arrived in your wallet.`
        : `Done. ${transaction.fiatAmount} ${transaction.fiatCurrency} is on its way to your bank.`
      : rampText.status[status];
  const className = status === 'completed' ? 'onb-status onb-ok' : status === 'failed' ? 'onb-error' : 'onb-status';
  return (
    <div className="onb-ramp-progress">
      <p className="onb-note" data-testid="ramp-summary">
        {transaction.direction === 'on' ? `Buying ${crypto} for ${fiat}` : `Selling ${crypto} for ${fiat}`} with{' '}
        {providerName}.
      </p>
      <p className={className} role="status" data-testid="ramp-status" data-status={status}>
        {sentence}
      </p>
      {status === 'awaiting_deposit' ? <DepositInstructions transaction={transaction} /> : null}
      {status === 'pending_kyc' && transaction.kycUrl ? <KycButton kycUrl={transaction.kycUrl} /> : null}
      {status === 'awaiting_signature' && transaction.pendingSignature ? (
        <p className="onb-note">{transaction.pendingSignature.action}</p>
      ) : null}
      {status === 'processing' ? <progress className="onb-progress" aria-label="Processing" /> : null}
      {!final && following ? <p className="onb-note onb-small">This page updates by itself.</p> : null}
      {transaction.stellarTxHash ? (
        <p className="onb-note onb-small">
          Stellar transaction <code>{transaction.stellarTxHash.slice(0, 12)}…</code>
        </p>
      ) : null}
    </div>
  );
}

function QuoteSummary({ quote, secondsLeft }: { quote: ramps.RampQuote; secondsLeft: number | undefined }) {
  const code = assetCode(quote.asset);
  const buying = quote.direction === 'on';
  const expired = secondsLeft === 0;
  return (
    <dl className={expired ? 'onb-dl onb-stale' : 'onb-dl'} data-testid="ramp-quote">
      <dt>{buying ? 'You pay' : 'You send'}</dt>
      <dd>{buying ? `${quote.fiatAmount} ${quote.fiatCurrency}` : `${quote.cryptoAmount} ${code}`}</dd>
      <dt>{buying ? 'You receive' : 'You get'}</dt>
      <dd>{buying ? `${quote.cryptoAmount} ${code}` : `${quote.fiatAmount} ${quote.fiatCurrency}`}</dd>
      <dt>Fee (included)</dt>
      <dd>
        {quote.fee} {quote.fiatCurrency}
      </dd>
      <dt>Valid for</dt>
      <dd data-testid="ramp-countdown">
        {secondsLeft === undefined ? '—' : secondsLeft > 0 ? clock(secondsLeft) : 'expired'}
      </dd>
    </dl>
  );
}

/** The failure the flow holds, if any. */
const failureOf = (flow: RampFlowState) => (flow.step === 'error' ? flow.failure : undefined);

export function RampWidget({ intervalMs, timeoutMs, defaultDirection, className, onCompleted }: RampWidgetProps) {
  const session = useSession();
  const { state, providers, flow, quote, start, follow, reset } = useRamp({
    ...(intervalMs !== undefined ? { intervalMs } : {}),
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
  });
  const ids = {
    provider: useId(),
    currency: useId(),
    asset: useId(),
    amount: useId(),
    amountHint: useId(),
    amountError: useId(),
    failure: useId(),
  };
  const [providerId, setProviderId] = useState('');
  const [direction, setDirection] = useState<ramps.RampDirection | undefined>(defaultDirection);
  const [fiatCurrency, setFiatCurrency] = useState('');
  const [asset, setAsset] = useState('');
  const [amount, setAmount] = useState('');

  // Choices fall back to the first the provider offers, so a provider change never leaves one it does not support.
  const provider = providers.find((p) => p.providerId === providerId) ?? providers[0];
  const chosen = {
    direction: direction && provider?.directions.includes(direction) ? direction : provider?.directions[0],
    fiatCurrency: provider?.fiatCurrencies.includes(fiatCurrency) ? fiatCurrency : provider?.fiatCurrencies[0],
    asset: provider?.assets.includes(asset) ? asset : provider?.assets[0],
  };

  const quoteInHand =
    flow.step === 'quoted' || flow.step === 'starting' ? flow.quote : flow.step === 'error' ? flow.quote : undefined;
  const secondsLeft = useSecondsLeft(quoteInHand?.expiresAt, flow.step === 'quoted' || flow.step === 'error');
  const completed = flow.step === 'final' && flow.transaction.status === 'completed' ? flow.transaction : undefined;
  const completedId = completed?.txId;
  useEffect(() => {
    if (completed) onCompleted?.(completed);
  }, [completedId]);

  if (!session) return null;

  const trimmed = amount.trim();
  const amountInvalid = trimmed !== '' && !isPositiveAmount(trimmed);
  const busy = flow.step === 'quoting' || flow.step === 'starting';
  const started = flow.step === 'following' || flow.step === 'final' || flow.step === 'timed_out';
  const failure = failureOf(flow);
  const quoteExpired = (quoteInHand !== undefined && secondsLeft === 0) || failure?.status === 'quote_expired';
  // While a quote is shown the choices are fixed, so what is started is what the form says; "Change" frees them.
  const locked = busy || (quoteInHand !== undefined && !quoteExpired);
  const followed = flow.step === 'error' && flow.during === 'follow' ? flow.transaction : undefined;
  const outOfRange = failure?.status === 'out_of_range';

  const requestQuote = (event?: FormEvent) => {
    event?.preventDefault();
    if (!provider || !chosen.direction || !chosen.fiatCurrency || !chosen.asset || !isPositiveAmount(trimmed)) return;
    void quote({
      providerId: provider.providerId,
      direction: chosen.direction,
      fiatCurrency: chosen.fiatCurrency,
      asset: chosen.asset,
      amount: trimmed,
    });
  };

  const loadingFirst = providers.length === 0 && (state.step === 'idle' || state.step === 'loading');
  const rootClass = ['onb-ramp', className].filter(Boolean).join(' ');
  const transaction =
    flow.step === 'following' || flow.step === 'final'
      ? flow.transaction
      : flow.step === 'timed_out' || flow.step === 'error'
        ? flow.transaction
        : undefined;

  return (
    <section className={rootClass} aria-label={rampText.title}>
      <h2 className="onb-title">{rampText.title}</h2>
      {loadingFirst ? <p className="onb-note">Loading…</p> : null}
      {state.step === 'error' && providers.length === 0 ? (
        <p role="alert" className="onb-error">
          {rampMessage({ status: 'error', ...state })}
        </p>
      ) : null}
      {state.step === 'loaded' && providers.length === 0 ? (
        <p className="onb-note">Buying and selling is not available in this app yet.</p>
      ) : null}

      {provider && !started ? (
        <form className="onb-form" onSubmit={requestQuote} noValidate aria-label="Ramp details">
          {providers.length > 1 ? (
            <>
              <label htmlFor={ids.provider}>Provider</label>
              <select
                id={ids.provider}
                value={provider.providerId}
                onChange={(e) => setProviderId(e.target.value)}
                disabled={locked}
              >
                {providers.map((p) => (
                  <option key={p.providerId} value={p.providerId}>
                    {p.name}
                  </option>
                ))}
              </select>
            </>
          ) : (
            <p className="onb-note">With {provider.name}</p>
          )}
          <fieldset className="onb-choice" disabled={locked}>
            <legend>I want to</legend>
            <div className="onb-row">
              {provider.directions.map((d) => (
                <label key={d} className="onb-radio">
                  <input
                    type="radio"
                    name={`${ids.provider}-direction`}
                    value={d}
                    checked={chosen.direction === d}
                    onChange={() => setDirection(d)}
                  />
                  {rampText.direction[d]}
                </label>
              ))}
            </div>
            {chosen.direction ? <p className="onb-note onb-small">{rampText.directionHint[chosen.direction]}</p> : null}
          </fieldset>
          <div className="onb-row onb-pair">
            <div className="onb-form">
              <label htmlFor={ids.asset}>Asset</label>
              <select id={ids.asset} value={chosen.asset} onChange={(e) => setAsset(e.target.value)} disabled={locked}>
                {provider.assets.map((a) => (
                  <option key={a} value={a}>
                    {assetCode(a)}
                  </option>
                ))}
              </select>
            </div>
            <div className="onb-form">
              <label htmlFor={ids.currency}>Currency</label>
              <select
                id={ids.currency}
                value={chosen.fiatCurrency}
                onChange={(e) => setFiatCurrency(e.target.value)}
                disabled={locked}
              >
                {provider.fiatCurrencies.map((c) => (
                  <option key={c} value={c}>
                    {c}
                  </option>
                ))}
              </select>
            </div>
          </div>
          <label htmlFor={ids.amount}>Amount ({chosen.fiatCurrency})</label>
          <input
            id={ids.amount}
            inputMode="decimal"
            autoComplete="off"
            value={amount}
            onChange={(e) => setAmount(e.target.value)}
            aria-invalid={amountInvalid || outOfRange || undefined}
            aria-describedby={amountInvalid ? ids.amountError : outOfRange ? ids.failure : undefined}
            disabled={locked}
          />
          {amountInvalid ? (
            <p className="onb-error" id={ids.amountError}>
              An amount above zero, with at most 7 decimals.
            </p>
          ) : null}
          {!quoteInHand || quoteExpired ? (
            <button type="submit" disabled={busy || !isPositiveAmount(trimmed)}>
              {flow.step === 'quoting' ? 'Getting a quote…' : quoteExpired ? 'Get a new quote' : 'Get a quote'}
            </button>
          ) : null}
        </form>
      ) : null}

      {quoteInHand && !started ? (
        <div className="onb-quote">
          <h3 className="onb-subtitle">Your quote</h3>
          <QuoteSummary quote={quoteInHand} secondsLeft={secondsLeft} />
          {quoteExpired ? (
            <p className="onb-note" role="status">
              {rampText.quoteExpired} Get a new quote to continue.
            </p>
          ) : (
            <div className="onb-row">
              <button type="button" onClick={() => void start(quoteInHand.quoteId)} disabled={busy}>
                {flow.step === 'starting'
                  ? 'Starting…'
                  : `${rampText.direction[quoteInHand.direction]} ${quoteInHand.cryptoAmount} ${assetCode(quoteInHand.asset)}`}
              </button>
              <button type="button" className="onb-secondary" onClick={reset} disabled={busy}>
                Change
              </button>
            </div>
          )}
        </div>
      ) : null}

      {transaction && started ? (
        <RampProgress
          transaction={transaction}
          following={flow.step === 'following'}
          providerName={providers.find((p) => p.providerId === transaction.provider)?.name ?? transaction.provider}
        />
      ) : null}
      {flow.step === 'timed_out' ? (
        <p className="onb-note" role="status">
          {rampText.timedOut}{' '}
          <button type="button" className="onb-link" onClick={() => void follow(flow.txId)}>
            Check again
          </button>
        </p>
      ) : null}

      {failure ? (
        <div className="onb-ramp-failure">
          <p role="alert" id={ids.failure} className="onb-error" data-testid="ramp-error" data-code={failure.code}>
            {rampMessage(failure)}
          </p>
          {failure.status === 'kyc_required' ? <KycButton kycUrl={failure.kycUrl} /> : null}
          {failure.status === 'upstream_error' && flow.step === 'error' && flow.during === 'start' && !quoteExpired ? (
            <button type="button" onClick={() => void start()}>
              Try again
            </button>
          ) : null}
          {followed ? (
            <button type="button" onClick={() => void follow(followed.txId)}>
              Check again
            </button>
          ) : null}
        </div>
      ) : null}

      {flow.step === 'final' ? (
        <button type="button" onClick={reset}>
          {flow.transaction.status === 'completed' ? 'Done' : 'Start again'}
        </button>
      ) : null}
    </section>
  );
}
