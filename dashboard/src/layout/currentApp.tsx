// The app a page under /apps/:appId works on, with the operator's role in it (owner-only actions check it).
import { createContext, useContext } from 'react';
import type { App } from '../../../generated/dashboard/types.gen';

export const CurrentAppContext = createContext<App | undefined>(undefined);

/** The current app; only used inside /apps/:appId pages (the layout loads it before rendering them). */
export function useCurrentApp(): App {
  const app = useContext(CurrentAppContext);
  if (!app) throw new Error('useCurrentApp outside an app page');
  return app;
}

export const isOwner = (app: App) => app.role === 'owner';
