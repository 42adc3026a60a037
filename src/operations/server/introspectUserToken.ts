import type { Deps } from '../../domain/deps';
import { AppError } from '../../domain/errors';
import { sessionServiceFor } from '../../domain/sessions/sessions';
import type { AuthProvider } from '../../domain/users/users';
import { findUserWallet } from '../../domain/funding/userWallets';
import type { Handler } from '../types';

/**
 * Tells the app's backend whose an end-user access token is: signature, expiry, app and live session are checked.
 * The DPoP binding cannot be (there is no proof here), and the answer says so in the contract.
 */
export function introspectUserToken(
  deps: Pick<Deps, 'db' | 'clock' | 'secrets' | 'sessionSettings'>,
): Handler<'introspectUserToken'> {
  const sessions = sessionServiceFor(deps);
  return async (req) => {
    const { appId, network } = req.auth.apiKey!;
    // 1. the token: signature, end-user audience, expiry (SDK_AUTH_TOKEN_EXPIRED / SDK_AUTH_INVALID_TOKEN)
    const claims = await sessions.tokens.verify(req.body.token, 'user', deps.clock.now());
    // 2. the app: a genuine token of another app is told apart from a bad one
    if (claims.appId !== appId)
      throw new AppError('SDK_TOKEN_WRONG_APPLICATION', { message: 'The token belongs to another application' });
    // 3. the session must be live (signed out or revoked: SDK_AUTH_INVALID_TOKEN)
    const session = await sessions.requireLive(deps.db, claims.sessionId, 'user', claims.subjectId);
    // 4. the user's wallet on the app's network (every sign-in makes one)
    const wallet = await findUserWallet(deps.db, { appId, userId: claims.subjectId, network });
    if (!wallet)
      throw new AppError('SDK_AUTH_INVALID_TOKEN', { message: "The token's user has no wallet; sign in again" });
    // 5. respond
    return {
      content: {
        active: true,
        userId: claims.subjectId,
        applicationId: appId,
        expiresAt: claims.expiresAt.toISOString(),
        network,
        wallet: { publicKey: wallet.publicKey, funded: wallet.funded },
        // End-user sessions are started only by the end-user providers (never SEP-10, which is the Dashboard's).
        authProvider: session.authMethod as AuthProvider,
      },
    };
  };
}
