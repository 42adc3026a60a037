// Every ramp provider this service supports, by id (the contract's RampSettings providerId).
import { AppError } from '../errors';
import type { RampProvider } from './providers';
import { sandboxRampProvider } from './sandbox';
import { sep24RampProvider } from './sep24';
import { bridgeRampProvider } from './bridge';
import { etherfuseRampProvider } from './etherfuse';

export const RAMP_PROVIDERS: ReadonlyMap<string, RampProvider> = new Map(
  [sandboxRampProvider, sep24RampProvider, etherfuseRampProvider, bridgeRampProvider].map((p) => [p.id, p]),
);

/** The provider, or 404 SDK_RAMPS_PROVIDER_NOT_FOUND. */
export function rampProviderOf(providerId: string): RampProvider {
  const provider = RAMP_PROVIDERS.get(providerId);
  if (!provider)
    throw new AppError('SDK_RAMPS_PROVIDER_NOT_FOUND', { message: `Ramp provider ${providerId} not found` });
  return provider;
}
