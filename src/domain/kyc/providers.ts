// The KYC provider layer: one interface every identity-verification provider implements, and the registry of the
// providers this service supports. A provider opens a verification session for a user at a level (a hosted page the
// user is sent to, or a widget the app embeds) and later decides it; the service keeps the verification and its
// status (verifications.ts). Personal data goes to the provider directly, never through this service.
//
// Supported so far: `sandbox` (sandbox.ts), a page of this service where the developer approves or rejects, offered to
// testnet apps of a development service. The anchor (SEP-12), Etherfuse and Bridge adapters of issue 20 implement the
// same interface.
import type { App } from '../apps/store';
import type { Deps } from '../deps';

export type KycLevel = 'basic' | 'intermediate' | 'enhanced';
export const KYC_LEVELS: readonly KycLevel[] = ['basic', 'intermediate', 'enhanced'];

/** What a provider is asked to open. */
export interface KycSessionRequest {
  app: App;
  userId: string;
  verificationId: string;
  sessionId: string;
  level: KycLevel;
  /** The app's credentials for the provider (unsealed), empty for a provider that takes none. */
  credentials: Record<string, string>;
  now: Date;
}

/** What a provider answers for a new session. */
export interface KycSessionOpened {
  /** The provider's hosted page, when it has one. */
  kycUrl?: string;
  expiresAt: Date;
  /** The provider's own id for the verification, if it has one. */
  providerRef?: string;
}

export interface KycProvider {
  id: string;
  name: string;
  /** The levels the provider can verify. */
  levels: readonly KycLevel[];
  /** Credential names the app must store to enable it; none for the sandbox. */
  credentialNames: readonly string[];
  /** Whether the provider may be offered to `app` on this service (the sandbox: testnet apps of a dev service). */
  availableFor(deps: Pick<Deps, 'kyc'>, app: Pick<App, 'network'>): boolean;
  openSession(deps: Pick<Deps, 'kyc'>, request: KycSessionRequest): Promise<KycSessionOpened>;
}
