// Entry: reads the settings (/onboard.config.json), then renders the app under StrictMode with one Onboard client.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { OnboardProvider } from '@onboard/react';
import '@onboard/react/styles.css';
import './app.css';
import { App } from './App';

interface Settings {
  baseUrl?: string;
  publishableKey?: string;
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
const { baseUrl, publishableKey } = await settings();
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
      <OnboardProvider options={{ baseUrl, publishableKey }}>
        <App />
      </OnboardProvider>
    </StrictMode>,
  );
}
