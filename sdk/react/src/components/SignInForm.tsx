// Sign-in with an email code and, when given, provider buttons (popup). Plain, labelled HTML: every control has a
// label, the current step is announced (aria-live), an error is shown next to the field it concerns (role=alert).
import { useId, useState, type FormEvent } from 'react';
import type { OAuthProvider, WalletAdapter } from '@onboard/core';
import { useAuth } from '../hooks.js';
import { authMessage } from '../messages.js';

export interface SignInFormProps {
  /** Provider buttons to show (each needs `redirectUri`). */
  providers?: OAuthProvider[];
  /** One of the app's redirect URIs; a page of this app that renders the provider (it finishes in the popup). */
  redirectUri?: string;
  /** The users' own Stellar wallets to offer (SEP-10 sign-in; the app must have turned it on). */
  wallets?: WalletAdapter[];
  className?: string;
}

const PROVIDER_NAMES: Record<OAuthProvider, string> = { google: 'Google', github: 'GitHub' };

export function SignInForm({ providers = [], redirectUri, wallets = [], className }: SignInFormProps) {
  const { state, beginEmailLogin, sendEmailCode, verifyEmailCode, loginWithOAuth, loginWithWallet, cancelLogin } =
    useAuth();
  const [email, setEmail] = useState('');
  const [code, setCode] = useState('');
  const emailId = useId();
  const codeId = useId();
  const errorId = useId();

  if (state.step === 'authenticated' || state.step === 'restoring') return null;

  const codeStep =
    state.step === 'entering_code' ||
    state.step === 'verifying_email_code' ||
    (state.step === 'error' && state.previousStep === 'verifying_email_code');
  const busy = [
    'sending_email',
    'verifying_email_code',
    'opening_oauth',
    'awaiting_oauth',
    'completing_oauth',
    'connecting_wallet',
    'signing_wallet_challenge',
    'authenticating_wallet',
  ].includes(state.step);
  const error = state.step === 'error' ? authMessage(state.errorCode, state.message) : undefined;
  const reason = state.step === 'idle' && state.reason ? authMessage(state.reason) : undefined;

  const submitEmail = (event: FormEvent) => {
    event.preventDefault();
    if (state.step === 'idle' || state.step === 'error' || state.step === 'entering_code') {
      if (state.step !== 'error' || state.flow !== 'email') beginEmailLogin();
    }
    void sendEmailCode(email);
  };
  const submitCode = (event: FormEvent) => {
    event.preventDefault();
    void verifyEmailCode(code);
  };

  return (
    <section className={['onb-signin', className].filter(Boolean).join(' ')} aria-labelledby={`${emailId}-title`}>
      <h2 id={`${emailId}-title`} className="onb-title">
        Sign in
      </h2>
      {reason && <p className="onb-note">{reason}</p>}
      {!codeStep ? (
        <form onSubmit={submitEmail} className="onb-form" noValidate>
          <label htmlFor={emailId}>Email</label>
          <input
            id={emailId}
            type="email"
            autoComplete="email"
            required
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? errorId : undefined}
            disabled={busy}
          />
          <button type="submit" disabled={busy || !email.includes('@')}>
            {state.step === 'sending_email' ? 'Sending…' : 'Send code'}
          </button>
        </form>
      ) : (
        <form onSubmit={submitCode} className="onb-form" noValidate>
          <p className="onb-note" aria-live="polite">
            We sent a 6-digit code to <strong>{email}</strong>.
          </p>
          <label htmlFor={codeId}>Code</label>
          <input
            id={codeId}
            inputMode="numeric"
            autoComplete="one-time-code"
            pattern="[0-9]{6}"
            maxLength={6}
            required
            value={code}
            onChange={(e) => setCode(e.target.value.replace(/\D/g, ''))}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? errorId : undefined}
            disabled={busy}
          />
          <button type="submit" disabled={busy || code.length !== 6}>
            {state.step === 'verifying_email_code' ? 'Checking…' : 'Verify'}
          </button>
          <button
            type="button"
            className="onb-link"
            onClick={() => {
              setCode('');
              cancelLogin();
            }}
          >
            Use another email
          </button>
        </form>
      )}
      {error && (
        <p id={errorId} role="alert" className="onb-error">
          {error}
        </p>
      )}
      {wallets.length > 0 && (
        <div className="onb-providers" role="group" aria-label="Sign in with a Stellar wallet">
          {wallets.map((wallet) => (
            <button
              key={wallet.id}
              type="button"
              disabled={busy}
              onClick={() => {
                if (state.step === 'entering_email' || state.step === 'entering_code') cancelLogin();
                void loginWithWallet(wallet);
              }}
            >
              {state.step === 'signing_wallet_challenge' ? 'Confirm in your wallet…' : `Continue with ${wallet.name}`}
            </button>
          ))}
        </div>
      )}
      {providers.length > 0 && redirectUri && (
        <div className="onb-providers" role="group" aria-label="Other ways to sign in">
          {providers.map((provider) => (
            <button
              key={provider}
              type="button"
              disabled={busy}
              onClick={() => {
                if (state.step === 'entering_email' || state.step === 'entering_code') cancelLogin();
                void loginWithOAuth({ provider, redirectUri, mode: 'popup' });
              }}
            >
              Continue with {PROVIDER_NAMES[provider]}
            </button>
          ))}
        </div>
      )}
      <p className="onb-status" aria-live="polite">
        {busy ? 'Working…' : ''}
      </p>
    </section>
  );
}
