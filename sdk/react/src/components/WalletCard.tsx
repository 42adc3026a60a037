// The signed-in user's wallet: address (copyable), network, whether it is funded, and its balances.
import { useState } from 'react';
import { useBalances, useWallet } from '../hooks.js';

export function WalletCard({ className }: { className?: string }) {
  const { wallet } = useWallet();
  const { state, refresh } = useBalances();
  const [copied, setCopied] = useState(false);
  if (!wallet) return null;
  const copy = async () => {
    await navigator.clipboard?.writeText(wallet.publicKey);
    setCopied(true);
    setTimeout(() => setCopied(false), 1500);
  };
  return (
    <section className={['onb-wallet', className].filter(Boolean).join(' ')} aria-label="Wallet">
      <h2 className="onb-title">Wallet</h2>
      <p className="onb-address">
        <code data-testid="wallet-address">{wallet.publicKey}</code>{' '}
        <button type="button" className="onb-link" onClick={() => void copy()}>
          {copied ? 'Copied' : 'Copy'}
        </button>
      </p>
      <p className="onb-note">
        {wallet.network} · <span data-testid="wallet-funded">{wallet.funded ? 'funded' : 'not funded yet'}</span> ·{' '}
        <span data-testid="wallet-custody">
          {wallet.custody === 'external' ? 'your own wallet signs' : 'kept safe for you'}
        </span>
      </p>
      <table className="onb-table" aria-label="Balances" aria-busy={state.step === 'loading'}>
        <thead>
          <tr>
            <th scope="col">Asset</th>
            <th scope="col" className="onb-num">
              Balance
            </th>
            <th scope="col" className="onb-num">
              Available
            </th>
          </tr>
        </thead>
        <tbody>
          {state.step === 'loaded' &&
            state.balances.map((b) => (
              <tr key={b.asset} data-testid={`balance-${b.code}`}>
                <td>{b.code}</td>
                <td className="onb-num">{b.balance}</td>
                <td className="onb-num">{b.available}</td>
              </tr>
            ))}
          {state.step === 'loaded' && state.balances.length === 0 && (
            <tr>
              <td colSpan={3}>No balances yet.</td>
            </tr>
          )}
        </tbody>
      </table>
      {state.step === 'error' && (
        <p role="alert" className="onb-error">
          {state.message}
        </p>
      )}
      <button type="button" onClick={() => void refresh()} disabled={state.step === 'loading'}>
        {state.step === 'loading' ? 'Loading…' : 'Refresh'}
      </button>
    </section>
  );
}
