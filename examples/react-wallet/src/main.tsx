// Entry: reads the settings (/onboard.config.json), then renders the app under StrictMode with one Onboard client.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import type { WalletAdapter } from '@onboard/core';
import { OnboardProvider } from '@onboard/react';
import '@onboard/react/styles.css';
import './app.css';
import { App } from './App';

interface Settings {
  baseUrl?: string;
  publishableKey?: string;
  /** Offer sign-in with a development Stellar wallet (a local key kept in this browser: never for real funds). */
  devWallet?: boolean;
  /** Offer Google and GitHub (popup) sign-in; this page's address must be one of the app's redirect URIs. */
  providers?: ('google' | 'github')[];
}

const DEV_WALLET_KEY = 'onboard-example:dev-wallet-secret';

/** The dev wallet of this browser: the same local key across reloads (dev only; loaded only when offered). */
async function devWallet(): Promise<WalletAdapter> {
  const { createDevWallet } = await import('@onboard/core/dev-wallet');
  const wallet = createDevWallet(localStorage.getItem(DEV_WALLET_KEY) ?? undefined);
  localStorage.setItem(DEV_WALLET_KEY, wallet.secret);
  return wallet;
}

async function settings(): Promise<Settings> {
  try {
    const response = await fetch('/onboard.config.json');
    return response.ok ? ((await response.json()) as Settings) : {};
  } catch {
    return {};
  }
}

const root = createRoot(document.getElementById('root')!);
const { baseUrl, publishableKey, devWallet: offerDevWallet, providers = [] } = await settings();
const wallets = offerDevWallet ? [await devWallet()] : [];
if (!baseUrl || !publishableKey) {
  root.render(
    <main className="app">
      <h1>Onboard example wallet</h1>
      <p role="alert">
        No settings. Start the service (<code>make run</code>), then run <code>. .data/demo-keys.env</code> and{' '}
        <code>npm run example</code> (or <code>ONBOARD_MOCK=1 npm run example</code> with <code>npm run mock</code>).
      </p>
    </main>,
  );
} else {
  root.render(
    <StrictMode>
      <OnboardProvider options={{ baseUrl, publishableKey, walletAdapters: wallets }}>
        <App wallets={wallets} providers={providers} />
      </OnboardProvider>
    </StrictMode>,
  );
}
