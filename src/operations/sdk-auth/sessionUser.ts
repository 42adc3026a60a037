// The end user of an SDK API request. The gate sets auth.user only after verifying the access token (of the key's
// app), its DPoP proof and its session, so a handler without one is a wiring fault (an operation whose contract lacks
// userSession), answered as a refusal rather than served.
import { AppError } from '../../domain/errors';
import type { AuthContext, AuthenticatedUser } from '../caller';

export function requireUser(auth: AuthContext): AuthenticatedUser {
  if (!auth.user) throw new AppError('SDK_AUTH_INVALID_TOKEN', { message: 'This operation needs an end-user session' });
  return auth.user;
}
