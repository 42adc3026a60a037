// The page tests/browser/rampWidget.test.ts drives: @onboard/react's sign-in form and, once signed in, its RampWidget
// polling every 300 ms. The API (a fake the test serves on this page's origin) and the publishable key come in the
// query string.
import { StrictMode, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { OnboardProvider, RampWidget, SignInForm, useAuth } from '@onboard/react';
import '@onboard/react/styles.css';

const params = new URL(location.href).searchParams;

function App() {
  const { state } = useAuth();
  const [completed, setCompleted] = useState<string>();
  if (state.step === 'restoring') return <p>Loading…</p>;
  if (state.step !== 'authenticated') return <SignInForm />;
  return (
    <>
      <RampWidget intervalMs={300} onCompleted={(t) => setCompleted(t.txId)} />
      {completed ? <p data-testid="completed-callback">{completed}</p> : null}
    </>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <OnboardProvider options={{ publishableKey: params.get('key') ?? '', baseUrl: params.get('api') ?? '' }}>
      <App />
    </OnboardProvider>
  </StrictMode>,
);
