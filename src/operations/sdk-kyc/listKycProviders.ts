import type { Deps } from '../../domain/deps';
import { KYC_PROVIDERS, kycSettingsOf } from '../../domain/kyc/settings';
import { userKycStatus } from '../../domain/kyc/verifications';
import type { Handler } from '../types';
import { sessionUserApp } from './sessionApp';

/** The app's KYC providers (enabled or not) with their levels, and the session user's KYC status. */
export function listKycProviders(deps: Pick<Deps, 'db' | 'clock' | 'kyc'>): Handler<'listKycProviders'> {
  return async (req) => {
    // 1. the session user and their app
    const { userId, app } = await sessionUserApp(deps, req.auth);
    // 2. read and respond
    const [settings, status] = await Promise.all([
      kycSettingsOf(deps, app),
      userKycStatus(deps, { appId: app.id, userId }),
    ]);
    return {
      content: {
        providers: settings
          .filter((p) => p.levels.length > 0)
          .map((p) => {
            const provider = KYC_PROVIDERS.get(p.providerId);
            // Saved enabled, but not usable here (the sandbox while KYC_SANDBOX is off): what a start would refuse.
            const offered =
              provider !== undefined && (provider.credentialNames.length > 0 || provider.availableFor(deps, app));
            return {
              providerId: p.providerId,
              name: provider?.name ?? p.providerId,
              enabled: p.enabled && offered,
              levels: p.levels,
            };
          }),
        ...status,
      },
    };
  };
}
