// The app a Server API allowlist request acts on: the secret key's app, which the gate found active.
import type { Deps } from '../../domain/deps';
import { findApp, type App } from '../../domain/apps/store';
import { AppError } from '../../domain/errors';
import type { AuthContext } from '../caller';

/** The key's active app; 404 APPLICATION_NOT_FOUND when it was archived or removed meanwhile. */
export async function keyApp(deps: Pick<Deps, 'db'>, auth: AuthContext): Promise<App> {
  const app = auth.apiKey ? await findApp(deps.db, auth.apiKey.appId) : undefined;
  if (!app || app.status !== 'active')
    throw new AppError('APPLICATION_NOT_FOUND', { message: 'No active application for this key' });
  return app;
}
