// The user's identity verification as a step of the app: their status; when not verified (or rejected, or the last
// session expired) a button that starts a verification with the app's first enabled provider offering `level` and
// opens the provider's page in a new tab; then "Waiting for the decision" while the hook polls, and the decision.
import { useEffect } from 'react';
import type { kyc } from '@onboard/core';
import { useKyc, useSession, type KycFlowState } from '../hooks.js';
import { kycMessage } from '../messages.js';

export interface KycStepProps {
  /** The level to verify at (default `basic`): the first enabled provider offering it is used. */
  level?: kyc.KycLevel;
  /** Pause between reads of the verification while waiting (default 3 000 ms). */
  intervalMs?: number;
  className?: string;
  /** Called once the verification is approved. */
  onApproved?: (verification: kyc.KycDecided) => void;
}

const STATUS_TEXT: Record<kyc.KycStatus, string> = {
  none: 'Not verified yet. Verify your identity to continue.',
  pending: 'Waiting for the decision…',
  approved: 'Your identity is verified.',
  rejected: 'The verification was not approved.',
};

/** The sentence for the user's status, and for the ends of a wait that leave the status without one. */
function statusText(status: kyc.KycStatus, flow: KycFlowState): string {
  if (flow.step === 'expired' && status === 'none') return 'The verification session expired before it was finished.';
  // Pending, but no longer followed (the wait failed): say what is known, next to the error.
  if (status === 'pending' && flow.step === 'error') return 'A verification was started and is not decided yet.';
  return STATUS_TEXT[status];
}

export function KycStep({ level = 'basic', intervalMs, className, onApproved }: KycStepProps) {
  const session = useSession();
  const { state, providers, status, flow, start } = useKyc(intervalMs !== undefined ? { intervalMs } : {});
  const approved = flow.step === 'decided' && flow.verification.status === 'approved' ? flow.verification : undefined;
  // Once per approved verification (not again when the app passes a new callback).
  const approvedId = approved?.verificationId;
  useEffect(() => {
    if (approved) onApproved?.(approved);
  }, [approvedId]);
  if (!session) return null;
  const provider = providers.find((p) => p.enabled && p.levels.includes(level));
  const expired = flow.step === 'expired';

  const begin = async () => {
    if (!provider) return;
    // Opened in the click itself: a tab opened once the answer is back would be blocked as a popup. It gets the
    // provider's address when it is known, and no way back to this page (opener cleared).
    const tab = window.open('', '_blank');
    const out = await start({ providerId: provider.providerId, level });
    if (out.status === 'started' && out.kycUrl && tab) {
      tab.opener = null;
      tab.location.href = out.kycUrl;
    } else tab?.close();
  };

  const loadingFirst = providers.length === 0 && (state.step === 'idle' || state.step === 'loading');
  // Not verified, not approved, or a wait that failed: a new verification may be started.
  const canStart = status === 'none' || status === 'rejected' || (status === 'pending' && flow.step === 'error');
  const error = flow.step === 'error' ? flow : state.step === 'error' ? state : undefined;
  return (
    <section className={['onb-kyc', className].filter(Boolean).join(' ')} aria-label="Identity verification">
      <h2 className="onb-title">Identity verification</h2>
      {loadingFirst ? (
        <p className="onb-note">Loading…</p>
      ) : (
        <p
          className={status === 'approved' ? 'onb-status onb-ok' : 'onb-status'}
          role="status"
          data-testid="kyc-status"
          data-status={status}
        >
          {statusText(status, flow)}
        </p>
      )}
      {flow.step === 'waiting' && flow.kycUrl ? (
        <p className="onb-note">
          Finish the verification on the provider’s page.{' '}
          <a href={flow.kycUrl} target="_blank" rel="noopener noreferrer">
            Open the verification page
          </a>
        </p>
      ) : null}
      {error ? (
        <p role="alert" className="onb-error">
          {kycMessage(error.code, error.message)}
        </p>
      ) : null}
      {state.step === 'loaded' && canStart && !provider ? (
        <p className="onb-note">Identity verification is not available in this app yet.</p>
      ) : null}
      {canStart && provider ? (
        <button type="button" onClick={() => void begin()} disabled={flow.step === 'starting'}>
          {flow.step === 'starting'
            ? 'Starting…'
            : status === 'none' && !expired
              ? 'Verify my identity'
              : 'Start a new verification'}
        </button>
      ) : null}
    </section>
  );
}
