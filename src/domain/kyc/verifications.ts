// A user's identity verifications: started with a provider of the app at a level (a session the user is sent to),
// `pending` until the provider decides, then `approved` or `rejected`. A session that expires before a decision is
// dead: reading its verification answers 410 SDK_KYC_SESSION_EXPIRED, and the user starts a new one. Only the user's
// own verifications are visible to them.
import type { Knex } from 'knex';
import type { App } from '../apps/store';
import type { Deps } from '../deps';
import { AppError } from '../errors';
import { newId } from '../ids';
import type { KycLevel } from './providers';
import { kycProviderOf, kycSettingsOf, providerCredentials } from './settings';

export type KycStatus = 'pending' | 'approved' | 'rejected';

interface VerificationRow {
  id: string;
  app_id: string;
  user_id: string;
  provider_id: string;
  level: KycLevel;
  status: KycStatus;
  session_id: string;
  session_expires_at: Date;
  provider_ref: string | null;
  decided_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const verifications = (db: Knex) => db<VerificationRow>('kyc_verifications');

/** startKycSession's content. */
export interface KycSessionView {
  sessionId: string;
  verificationId: string;
  kycUrl?: string;
  expiresAt: string;
}

/**
 * Opens a session with `providerId` at `level` for the user: 404 SDK_KYC_PROVIDER_NOT_FOUND for a provider the app
 * does not have (or this service does not know), 403 SDK_KYC_PROVIDER_NOT_ENABLED when the app switched it off or it
 * does not offer the level.
 */
export async function startKycSession(
  deps: Pick<Deps, 'db' | 'kms' | 'clock' | 'kyc'>,
  input: { app: App; userId: string; providerId: string; level: KycLevel },
): Promise<KycSessionView> {
  const provider = kycProviderOf(input.providerId);
  const setting = (await kycSettingsOf(deps, input.app)).find((p) => p.providerId === input.providerId);
  if (!setting)
    throw new AppError('SDK_KYC_PROVIDER_NOT_FOUND', { message: `The app has no KYC provider ${input.providerId}` });
  if (!setting.enabled || (!provider.availableFor(deps, input.app) && provider.credentialNames.length === 0))
    throw new AppError('SDK_KYC_PROVIDER_NOT_ENABLED', {
      message: `The KYC provider ${input.providerId} is not enabled for this app`,
    });
  if (!setting.levels.includes(input.level))
    throw new AppError('SDK_KYC_PROVIDER_NOT_ENABLED', {
      message: `The app offers ${input.providerId} at ${setting.levels.join(', ')}, not ${input.level}`,
    });
  const now = deps.clock.now();
  const verificationId = newId('kyv');
  const sessionId = newId('kys');
  const opened = await provider.openSession(deps, {
    app: input.app,
    userId: input.userId,
    verificationId,
    sessionId,
    level: input.level,
    credentials: await providerCredentials(deps, input.app, input.providerId),
    now,
  });
  await verifications(deps.db).insert({
    id: verificationId,
    app_id: input.app.id,
    user_id: input.userId,
    provider_id: input.providerId,
    level: input.level,
    status: 'pending',
    session_id: sessionId,
    session_expires_at: opened.expiresAt,
    provider_ref: opened.providerRef ?? null,
    decided_at: null,
    created_at: now,
    updated_at: now,
  });
  return {
    sessionId,
    verificationId,
    ...(opened.kycUrl ? { kycUrl: opened.kycUrl } : {}),
    expiresAt: opened.expiresAt.toISOString(),
  };
}

/** getKycVerification's content. */
export interface KycVerificationView {
  verificationId: string;
  providerId: string;
  level: KycLevel;
  status: KycStatus;
  updatedAt: string;
}

const expiredUndecided = (row: VerificationRow, now: Date) =>
  row.status === 'pending' && row.session_expires_at.getTime() <= now.getTime();

/** One of the user's verifications: 404 SDK_KYC_VERIFICATION_NOT_FOUND, 410 SDK_KYC_SESSION_EXPIRED. */
export async function userVerification(
  deps: Pick<Deps, 'db' | 'clock'>,
  input: { appId: string; userId: string; verificationId: string },
): Promise<KycVerificationView> {
  const row = await verifications(deps.db)
    .where({ id: input.verificationId, app_id: input.appId, user_id: input.userId })
    .first();
  if (!row)
    throw new AppError('SDK_KYC_VERIFICATION_NOT_FOUND', { message: 'No verification with this id for this user' });
  if (expiredUndecided(row, deps.clock.now()))
    throw new AppError('SDK_KYC_SESSION_EXPIRED', {
      message: 'The KYC session expired before it was finished: start a new one',
    });
  return {
    verificationId: row.id,
    providerId: row.provider_id,
    level: row.level,
    status: row.status,
    updatedAt: row.updated_at.toISOString(),
  };
}

/**
 * The user's KYC status (listKycProviders): `approved` with the approved verification when there is one; otherwise
 * the latest verification's status and id, a session that expired undecided counting as `none`.
 */
export async function userKycStatus(
  deps: Pick<Deps, 'db' | 'clock'>,
  input: { appId: string; userId: string },
): Promise<{ status: 'none' | KycStatus; verificationId: string | null }> {
  const mine = verifications(deps.db).where({ app_id: input.appId, user_id: input.userId });
  const approved = await mine.clone().where({ status: 'approved' }).orderBy('created_at', 'desc').first('id');
  if (approved) return { status: 'approved', verificationId: approved.id };
  const latest = await mine.clone().orderBy('created_at', 'desc').first();
  if (!latest) return { status: 'none', verificationId: null };
  if (expiredUndecided(latest, deps.clock.now())) return { status: 'none', verificationId: latest.id };
  return { status: latest.status, verificationId: latest.id };
}
