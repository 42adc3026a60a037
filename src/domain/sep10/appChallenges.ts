// SEP-10 for an app's end users (the SDK's wallet sign-in): challenges on the app's network whose home domain is the
// app's own site (the host of an allowed Origin), so the user's wallet shows the site the user is on; the service's
// SEP-10 domain stays the web-auth domain. Without an Origin (a native app, a server) the service's home domain is used.
import type { Deps } from '../deps';
import type { NetworkName } from '../../config';
import { listAppOrigins } from '../apps/store';
import { createSep10Issuer, DEFAULT_SEP10_SETTINGS, type Sep10Issuer } from './challenges';

export interface AppSep10 {
  issuer(network: NetworkName): Sep10Issuer;
  /** The home domain a challenge names for a request from `origin` (already checked against the app's list). */
  homeDomainFor(origin: string | undefined): string;
  /** Every home domain a challenge of the app may name: its allowed origins' hosts and the service's own. */
  homeDomainsOf(appId: string): Promise<string[]>;
}

export function appSep10(deps: Pick<Deps, 'db' | 'secrets' | 'sep10'>): AppSep10 {
  const settings = deps.sep10 ?? DEFAULT_SEP10_SETTINGS;
  const issuers = new Map<NetworkName, Sep10Issuer>();
  return {
    issuer(network) {
      let issuer = issuers.get(network);
      if (!issuer) {
        issuer = createSep10Issuer(deps.secrets, { network, webAuthDomain: settings.homeDomain });
        issuers.set(network, issuer);
      }
      return issuer;
    },
    homeDomainFor(origin) {
      if (!origin) return settings.homeDomain;
      try {
        return new URL(origin).hostname;
      } catch {
        return settings.homeDomain;
      }
    },
    async homeDomainsOf(appId) {
      const hosts = (await listAppOrigins(deps.db, appId)).map((o) => new URL(o).hostname);
      return [...new Set([...hosts, settings.homeDomain])];
    },
  };
}
