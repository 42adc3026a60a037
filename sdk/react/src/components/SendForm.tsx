// Sends a payment from the user's wallet (the app pays the fee) and follows it to its final status.
import { useId, useState, type FormEvent } from 'react';
import { useBalances, useTransaction } from '../hooks.js';
import { txMessage } from '../messages.js';

export interface SendFormProps {
  className?: string;
  /** Called with the hash once the payment is in a ledger. */
  onSent?: (hash: string) => void;
}

const AMOUNT = /^(?:0|[1-9]\d{0,14})(?:\.\d{1,7})?$/;
const ADDRESS = /^G[A-Z2-7]{55}$/;

export function SendForm({ className, onSent }: SendFormProps) {
  const { state: balances, refresh } = useBalances();
  const { state, run, reset } = useTransaction();
  const [destination, setDestination] = useState('');
  const [amount, setAmount] = useState('');
  const [asset, setAsset] = useState('native');
  const ids = { destination: useId(), amount: useId(), asset: useId(), error: useId() };
  const busy = state.step === 'running' || state.step === 'submitted';
  const invalid = {
    destination: destination !== '' && !ADDRESS.test(destination.trim()),
    amount: amount !== '' && (!AMOUNT.test(amount.trim()) || /^0(\.0*)?$/.test(amount.trim())),
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const result = await run(
      { operation: { type: 'payment', destination: destination.trim(), asset, amount: amount.trim() } },
      { wait: { timeoutMs: 60_000 } },
    );
    if (result.status === 'success') {
      setAmount('');
      onSent?.(result.hash);
      void refresh();
    }
  };

  return (
    <section className={['onb-send', className].filter(Boolean).join(' ')} aria-label="Send">
      <h2 className="onb-title">Send</h2>
      <form className="onb-form" onSubmit={(e) => void submit(e)} noValidate>
        <label htmlFor={ids.destination}>To (Stellar address)</label>
        <input
          id={ids.destination}
          value={destination}
          onChange={(e) => setDestination(e.target.value)}
          placeholder="G…"
          spellCheck={false}
          aria-invalid={invalid.destination || undefined}
          disabled={busy}
        />
        {invalid.destination && <p className="onb-error">A Stellar address starts with G and has 56 characters.</p>}
        <label htmlFor={ids.asset}>Asset</label>
        <select id={ids.asset} value={asset} onChange={(e) => setAsset(e.target.value)} disabled={busy}>
          {balances.step === 'loaded' && balances.balances.length > 0 ? (
            balances.balances.map((b) => (
              <option key={b.asset} value={b.asset}>
                {b.code}
              </option>
            ))
          ) : (
            <option value="native">XLM</option>
          )}
        </select>
        <label htmlFor={ids.amount}>Amount</label>
        <input
          id={ids.amount}
          inputMode="decimal"
          value={amount}
          onChange={(e) => setAmount(e.target.value)}
          aria-invalid={invalid.amount || undefined}
          disabled={busy}
        />
        {invalid.amount && <p className="onb-error">An amount above zero with at most 7 decimals.</p>}
        <button type="submit" disabled={busy || !destination || !amount || invalid.destination || invalid.amount}>
          {state.step === 'running' ? 'Sending…' : state.step === 'submitted' ? 'Confirming…' : 'Send'}
        </button>
      </form>
      <div aria-live="polite" className="onb-status" data-testid="send-status">
        {state.step === 'success' && (
          <p className="onb-ok">
            Sent. Transaction <code>{state.hash.slice(0, 12)}…</code>
            {state.ledger !== undefined ? ` in ledger ${state.ledger}` : ''}.{' '}
            <button type="button" className="onb-link" onClick={reset}>
              New payment
            </button>
          </p>
        )}
        {state.step === 'error' && (
          <p role="alert" id={ids.error} className="onb-error">
            {txMessage(state.resultCode, state.message)}
          </p>
        )}
      </div>
    </section>
  );
}
