// Identity verification (KYC) for the client library: the app's KYC providers with the session user's status, a
// verification started with a provider at a level (the user is sent to the provider's `kycUrl`), a verification read
// back, and a wait that polls it until the provider decides. Each answers an outcome and never throws, like the
// distribution helpers (./distribution.ts): an API error, a network failure and a malformed answer all come back as
// `{ status: 'error', code, httpStatus, message }`. A session that expired before the user finished is an outcome of
// its own, `{ status: 'expired' }` (the API's 410 SDK_KYC_SESSION_EXPIRED): start a new one.
// Import as `import { kyc } from '@onboard/core'` and call `kyc.start(onboard.api, { providerId, level })`.
import type { KycLevel } from '../../../generated/client/types.gen.js';
import { errorOutcome, invalidOutcome, isRecord, isTransient, isWebUrl, pause, type ErrorOutcome } from './outcome.js';
import type { OnboardClient } from './types.js';

export type { KycLevel };

/** The operations these helpers call (an OnboardClient, or a stand-in with the same methods). */
export type KycClient = Pick<OnboardClient, 'listKycProviders' | 'startKycSession' | 'getKycVerification'>;

/** The levels of verification, from basic (name, date of birth) to enhanced (documents and more). */
export const KYC_LEVELS: readonly KycLevel[] = ['basic', 'intermediate', 'enhanced'];

/**
 * The session user's KYC status: `none` (never started, or the last session expired undecided), `pending` (started,
 * not decided yet), `approved` (an approved verification wins over any later one) or `rejected`.
 */
export type KycStatus = 'none' | 'pending' | 'approved' | 'rejected';

/** A KYC provider of the app (enabled or not) with the levels it verifies through this app. */
export interface KycProvider {
  providerId: string;
  name: string;
  /** False when the app configured the provider but switched it off: starting with it answers SDK_KYC_PROVIDER_NOT_ENABLED. */
  enabled: boolean;
  levels: KycLevel[];
}

export interface KycProvidersListed {
  status: 'listed';
  providers: KycProvider[];
  /** The session user's KYC status. */
  kycStatus: KycStatus;
  /** The user's latest verification (the approved one when approved), null when none was started. */
  verificationId: string | null;
}

/** A verification session opened with a provider: send the user to `kycUrl` before `expiresAt`. */
export interface KycStarted {
  status: 'started';
  sessionId: string;
  /** What getVerification and waitForDecision take. */
  verificationId: string;
  /** The provider's hosted page (http or https), when it has one; otherwise embed its widget with `sessionId`. */
  kycUrl?: string;
  expiresAt: string;
}

/** A verification as the service has it: `pending` until the provider decides, then `approved` or `rejected`. */
export interface KycVerification {
  status: 'pending' | 'approved' | 'rejected';
  verificationId: string;
  providerId: string;
  level: KycLevel;
  updatedAt: string;
}

/** A decided verification. */
export type KycDecided = KycVerification & { status: 'approved' | 'rejected' };

/** The verification's session expired before the user finished (SDK_KYC_SESSION_EXPIRED): start a new one. */
export interface KycExpired {
  status: 'expired';
  verificationId: string;
  message?: string;
}

/** waitForDecision stopped because its signal was aborted. */
export interface KycWaitAborted {
  status: 'aborted';
  verificationId: string;
}

/**
 * The error outcome, the transaction and distribution helpers' shape: `code` is a catalogue code
 * (SDK_KYC_PROVIDER_NOT_FOUND, SDK_KYC_PROVIDER_NOT_ENABLED, SDK_KYC_VERIFICATION_NOT_FOUND, VALIDATION_ERROR...) or
 * NETWORK_ERROR / INVALID_RESPONSE.
 */
export type KycError = ErrorOutcome;

export type KycProvidersResult = KycProvidersListed | KycError;
export type KycStartResult = KycStarted | KycError;
export type KycVerificationResult = KycVerification | KycExpired | KycError;
export type KycDecisionResult = KycDecided | KycExpired | KycWaitAborted | KycError;

export interface KycStartInput {
  /** One of the app's enabled providers (listProviders). */
  providerId: string;
  level: KycLevel;
}

export interface KycWaitOptions {
  /** Pause between reads (default 3 000 ms; at least 250). */
  intervalMs?: number;
  /** Stops the wait (and a read in flight): the answer is then `{ status: 'aborted' }`. */
  signal?: AbortSignal;
  /** Called with each read that is still pending. */
  onPending?: (verification: KycVerification) => void;
}

export const DEFAULT_KYC_POLL_INTERVAL_MS = 3_000;
const MIN_POLL_INTERVAL_MS = 250;

const STATUSES: readonly string[] = ['none', 'pending', 'approved', 'rejected'];
const isLevel = (value: unknown): value is KycLevel => KYC_LEVELS.includes(value as KycLevel);

function providerOf(value: unknown): KycProvider | undefined {
  if (!isRecord(value)) return undefined;
  const { providerId, name, enabled, levels } = value;
  if (typeof providerId !== 'string' || typeof name !== 'string' || typeof enabled !== 'boolean') return undefined;
  if (!Array.isArray(levels) || !levels.every(isLevel)) return undefined;
  return { providerId, name, enabled, levels: [...levels] };
}

/**
 * The app's KYC providers (enabled or not, with the levels each verifies) and the session user's KYC status, with
 * the id of their latest verification to poll (null when none).
 */
export async function listProviders(client: KycClient): Promise<KycProvidersResult> {
  const out = await client.listKycProviders();
  if (!out.ok) return errorOutcome(out);
  const c: unknown = out.content;
  if (!isRecord(c) || !Array.isArray(c.providers))
    return invalidOutcome('a providers list without providers', out.status);
  const { status, verificationId } = c;
  if (typeof status !== 'string' || !STATUSES.includes(status))
    return invalidOutcome(`unknown KYC status ${String(status)}`, out.status);
  if (verificationId !== null && typeof verificationId !== 'string')
    return invalidOutcome('a KYC status without verificationId', out.status);
  const providers: KycProvider[] = [];
  for (const item of c.providers) {
    const provider = providerOf(item);
    if (!provider) return invalidOutcome('a provider without providerId, name, enabled or levels', out.status);
    providers.push(provider);
  }
  return { status: 'listed', providers, kycStatus: status as KycStatus, verificationId };
}

/**
 * Opens a verification session for the session user with one of the app's enabled providers at `level`. Send the
 * user to `kycUrl` (window.open, a redirect), then `waitForDecision(client, verificationId)`. Personal data goes to
 * the provider directly, never through the service. Refusals: SDK_KYC_PROVIDER_NOT_FOUND (404), SDK_KYC_PROVIDER_NOT_ENABLED
 * (403), VALIDATION_ERROR (400, a level the contract does not know), a network failure...
 */
export async function start(client: KycClient, input: KycStartInput): Promise<KycStartResult> {
  const out = await client.startKycSession({ body: { providerId: input.providerId, level: input.level } });
  if (!out.ok) return errorOutcome(out);
  const c: unknown = out.content;
  if (!isRecord(c)) return invalidOutcome('a KYC session answer without content', out.status);
  const { sessionId, verificationId, kycUrl, expiresAt } = c;
  if (typeof sessionId !== 'string' || typeof verificationId !== 'string' || typeof expiresAt !== 'string')
    return invalidOutcome('a KYC session without sessionId, verificationId or expiresAt', out.status);
  if (kycUrl !== undefined && (typeof kycUrl !== 'string' || !isWebUrl(kycUrl)))
    return invalidOutcome('a KYC session whose kycUrl is not a web address', out.status);
  return { status: 'started', sessionId, verificationId, ...(kycUrl !== undefined ? { kycUrl } : {}), expiresAt };
}

/**
 * One read of a verification of the session user: `pending`, `approved` or `rejected`; `expired` when its session
 * expired before a decision (start a new one); or an error outcome (SDK_KYC_VERIFICATION_NOT_FOUND for another
 * user's or an unknown id, a network failure...).
 */
export async function getVerification(
  client: KycClient,
  verificationId: string,
  options: { signal?: AbortSignal } = {},
): Promise<KycVerificationResult> {
  const out = await client.getKycVerification({
    path: { verificationId },
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (!out.ok) {
    if (out.code === 'SDK_KYC_SESSION_EXPIRED')
      return { status: 'expired', verificationId, ...(out.message !== undefined ? { message: out.message } : {}) };
    return errorOutcome(out);
  }
  const c: unknown = out.content;
  if (!isRecord(c)) return invalidOutcome('a verification answer without content', out.status);
  const { status, providerId, level, updatedAt } = c;
  if (status !== 'pending' && status !== 'approved' && status !== 'rejected')
    return invalidOutcome(`unknown verification status ${String(status)}`, out.status);
  if (typeof providerId !== 'string' || !isLevel(level) || typeof updatedAt !== 'string')
    return invalidOutcome('a verification without providerId, level or updatedAt', out.status);
  const id = typeof c.verificationId === 'string' ? c.verificationId : verificationId;
  return { status, verificationId: id, providerId, level, updatedAt };
}

const isDecided = (verification: KycVerification): verification is KycDecided => verification.status !== 'pending';

/**
 * Reads the verification at once, then every `intervalMs`, until the provider decides: `approved` or `rejected`;
 * `expired` when its session ended first; `aborted` when `signal` aborts. Failures that may pass (no answer, 429,
 * 5xx: the transport has already retried each read) are polled through, so a blip while the user is away at the
 * provider ends nothing; any other error outcome (e.g. SDK_KYC_VERIFICATION_NOT_FOUND, a session ended) answers at
 * once. The service expires an undecided session (30 minutes for the sandbox), so the wait ends while it answers.
 */
export async function waitForDecision(
  client: KycClient,
  verificationId: string,
  options: KycWaitOptions = {},
): Promise<KycDecisionResult> {
  const { signal, onPending } = options;
  const intervalMs = Math.max(MIN_POLL_INTERVAL_MS, options.intervalMs ?? DEFAULT_KYC_POLL_INTERVAL_MS);
  const aborted: KycWaitAborted = { status: 'aborted', verificationId };
  for (;;) {
    if (signal?.aborted) return aborted;
    const out = await getVerification(client, verificationId, signal ? { signal } : {});
    if (signal?.aborted) return aborted;
    if (out.status === 'error') {
      if (!isTransient({ status: out.httpStatus })) return out;
    } else if (out.status === 'expired' || isDecided(out)) {
      return out;
    } else {
      onPending?.(out);
    }
    await pause(intervalMs, signal);
  }
}
