import { findApp, type App } from '../../domain/apps/store';
import type { Deps } from '../../domain/deps';
import { AppError } from '../../domain/errors';
import type { OperationId } from '../../../generated/server/catalogue.gen';
import { requireUser } from '../sdk-auth/sessionUser';
import type { OperationRequest } from '../types';

/** The session user and their app (the key's): what every KYC operation starts from. */
export async function sessionUserApp(
  deps: Pick<Deps, 'db'>,
  auth: OperationRequest<OperationId>['auth'],
): Promise<{ userId: string; app: App }> {
  const user = requireUser(auth);
  const app = await findApp(deps.db, user.appId);
  if (!app)
    throw new AppError('SDK_AUTH_INVALID_TOKEN', {
      message: "This operation needs an end-user session of the key's app",
    });
  return { userId: user.userId, app };
}
