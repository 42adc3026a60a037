// The page tests/browser/kycStep.test.ts drives: @onboard/react's sign-in form and, once signed in, its KycStep at
// the intermediate level, polling every 300 ms. The service and the publishable key come in the query string.
import { StrictMode, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { KycStep, OnboardProvider, SignInForm, useAuth } from '@onboard/react';
import '@onboard/react/styles.css';

const params = new URL(location.href).searchParams;

function App() {
  const { state } = useAuth();
  const [approved, setApproved] = useState<string>();
  if (state.step === 'restoring') return <p>Loading…</p>;
  if (state.step !== 'authenticated') return <SignInForm />;
  return (
    <>
      <KycStep level="intermediate" intervalMs={300} onApproved={(v) => setApproved(v.verificationId)} />
      {approved ? <p data-testid="approved-callback">{approved}</p> : null}
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
