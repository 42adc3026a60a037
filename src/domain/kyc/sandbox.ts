// The sandbox KYC provider: the full verification state machine without a third party. A session's `kycUrl` is a page
// of this service (src/http/sandbox.ts) that shows the app, the level and two buttons; the developer approves or
// rejects and the verification is decided at once. Offered only to testnet apps, and only while KYC_SANDBOX is on
// (by default when testnet is the in-process localnet): a mainnet app can never be "verified" by a button.
import type { Knex } from 'knex';
import type { Deps } from '../deps';
import { AppError } from '../errors';
import { KYC_LEVELS, type KycProvider } from './providers';

/** How long a sandbox session's page accepts a decision. */
export const SANDBOX_SESSION_MINUTES = 30;

export const sandboxKycProvider: KycProvider = {
  id: 'sandbox',
  name: 'Sandbox (development)',
  levels: KYC_LEVELS,
  credentialNames: [],
  availableFor: (deps, app) => deps.kyc?.sandbox === true && app.network === 'testnet',
  openSession(deps, request) {
    const base = deps.kyc?.baseUrl ?? '';
    return Promise.resolve({
      kycUrl: `${base}/sandbox/kyc/${request.sessionId}`,
      expiresAt: new Date(request.now.getTime() + SANDBOX_SESSION_MINUTES * 60_000),
      providerRef: request.sessionId,
    });
  },
};

/** A sandbox session as its page shows it. */
export interface SandboxSession {
  sessionId: string;
  appName: string;
  level: string;
  status: 'pending' | 'approved' | 'rejected';
  expiresAt: Date;
  expired: boolean;
}

/** The sandbox session, or undefined when there is none with this id (or it is another provider's). */
export async function findSandboxSession(
  deps: Pick<Deps, 'db' | 'clock'>,
  sessionId: string,
): Promise<SandboxSession | undefined> {
  const row = await deps
    .db('kyc_verifications as v')
    .join('apps as a', 'a.id', 'v.app_id')
    .where({ 'v.session_id': sessionId, 'v.provider_id': sandboxKycProvider.id })
    .first<
      | { session_id: string; name: string; level: string; status: SandboxSession['status']; session_expires_at: Date }
      | undefined
    >('v.session_id', 'a.name', 'v.level', 'v.status', 'v.session_expires_at');
  if (!row) return undefined;
  return {
    sessionId: row.session_id,
    appName: row.name,
    level: row.level,
    status: row.status,
    expiresAt: row.session_expires_at,
    expired: row.session_expires_at.getTime() <= deps.clock.now().getTime(),
  };
}

/**
 * The developer's decision on the sandbox page: a pending, unexpired session's verification becomes `approved` or
 * `rejected`. A decided session keeps its first decision; an expired one cannot be decided (410 SDK_KYC_SESSION_EXPIRED).
 */
export async function decideSandboxSession(
  deps: Pick<Deps, 'db' | 'clock'>,
  sessionId: string,
  decision: 'approved' | 'rejected',
): Promise<SandboxSession> {
  const now = deps.clock.now();
  await deps.db.transaction(async (trx: Knex.Transaction) => {
    const row = await trx('kyc_verifications')
      .where({ session_id: sessionId, provider_id: sandboxKycProvider.id })
      .forUpdate()
      .first<{ status: string; session_expires_at: Date } | undefined>('status', 'session_expires_at');
    if (!row) throw new AppError('SDK_KYC_VERIFICATION_NOT_FOUND', { message: 'No sandbox KYC session with this id' });
    if (row.status !== 'pending') return;
    if (row.session_expires_at.getTime() <= now.getTime())
      throw new AppError('SDK_KYC_SESSION_EXPIRED', {
        message: 'This KYC session expired: start a new one from the app',
      });
    await trx('kyc_verifications')
      .where({ session_id: sessionId })
      .update({ status: decision, decided_at: now, updated_at: now });
  });
  return (await findSandboxSession(deps, sessionId))!;
}
