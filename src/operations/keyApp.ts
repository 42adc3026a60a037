// The app an API-key request acts on. The gate let the key through only for an active app; the app is read again
// here for its settings, and one archived (or removed) in between answers as the gate would have.
import type { Knex } from 'knex';
import { findApp, type App } from '../domain/apps/store';
import { AppError } from '../domain/errors';

export async function requireKeyApp(db: Knex, appId: string): Promise<App> {
  const app = await findApp(db, appId);
  if (!app || app.status !== 'active')
    throw new AppError('APPLICATION_NOT_FOUND', { message: 'No active application for this key' });
  return app;
}
