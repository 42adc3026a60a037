// The contract's App object (App.yaml) for an app and the caller's role in it; every dashboard-apps answer uses it.
import type { OperationTypes } from '../../../generated/server/catalogue.gen';
import type { AppMembership } from '../../domain/apps/store';

export type AppContent = OperationTypes['getApp']['content'];

export function appContent({ app, role }: AppMembership): AppContent {
  return {
    appId: app.id,
    name: app.name,
    network: app.network,
    status: app.status,
    fundingMode: app.fundingMode,
    startingBalanceXlm: app.startingBalanceXlm,
    assets: app.assets,
    accessTokenTtlMinutes: app.accessTokenTtlMinutes,
    refreshTokenTtlDays: app.refreshTokenTtlDays,
    role,
    createdAt: app.createdAt.toISOString(),
    archivedAt: app.archivedAt?.toISOString() ?? null,
  };
}
