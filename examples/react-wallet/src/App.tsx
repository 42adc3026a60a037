// The example wallet: sign in with an email code, see the funded wallet and its balances, send a payment, see it in
// the history. Everything comes from @onboard/react's hooks and components.
import type { OAuthProvider, WalletAdapter } from '@onboard/core';
import { HistoryList, SendForm, SignInForm, useAuth, useOnboard, WalletCard } from '@onboard/react';

/**
 * `wallets`: the users' own Stellar wallets offered at sign-in (the dev wallet with ONBOARD_DEV_WALLET=1);
 * `providers`: Google and GitHub, in a popup that comes back to this page.
 */
export function App({ wallets = [], providers = [] }: { wallets?: WalletAdapter[]; providers?: OAuthProvider[] }) {
  const client = useOnboard();
  const { state, logout } = useAuth();
  return (
    <main className="app">
      <header className="app-header">
        <h1>Onboard example wallet</h1>
        {state.step === 'authenticated' && (
          <div className="app-user">
            <span data-testid="user-email">{state.session.user.email ?? 'Stellar wallet'}</span>
            <button type="button" onClick={() => void logout()}>
              Sign out
            </button>
          </div>
        )}
      </header>
      {state.step === 'restoring' && <p aria-live="polite">Loading…</p>}
      {state.step !== 'authenticated' && state.step !== 'restoring' && (
        <div className="app-narrow">
          <SignInForm wallets={wallets} providers={providers} redirectUri={`${location.origin}/`} />
        </div>
      )}
      {state.step === 'authenticated' && (
        <div className="app-grid">
          <WalletCard />
          <SendForm onSent={() => void client.loadHistory({ limit: 10 })} />
          <HistoryList className="app-wide" />
        </div>
      )}
    </main>
  );
}
