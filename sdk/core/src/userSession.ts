// The end user's session as the client library keeps it: the generic session (session.ts) whose principal is the
// signed-in user, their wallet, and the adapter of their own wallet when they signed in with one.
import type { SdkSignInResult, Wallet } from '../../../generated/client/types.gen.js';
import { SessionManager, type SessionState } from './session.js';

export type SessionUser = SdkSignInResult['user'];

export type UserPrincipal = {
  user: SessionUser;
  wallet: Wallet;
  /** The wallet adapter that signs for an external wallet (its id), when the user signed in with one. */
  walletAdapterId?: string;
};

/** What the app may know of the session (never the tokens). */
export type SessionInfo = SessionState<UserPrincipal>;

export type UserSessionManager = SessionManager<UserPrincipal>;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A stored end-user session names a user and a wallet (and, optionally, its adapter by id). */
export function isUserPrincipal(value: Record<string, unknown>): boolean {
  return (
    isRecord(value.user) &&
    isRecord(value.wallet) &&
    (value.walletAdapterId === undefined || typeof value.walletAdapterId === 'string')
  );
}
