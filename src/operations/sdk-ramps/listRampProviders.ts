import { listRampProviders as listProviders, type RampsDeps } from '../../domain/ramps/transactions';
import { sessionUserApp } from '../sdk-kyc/sessionApp';
import type { Handler } from '../types';

/** The app's enabled ramp providers with the directions, currencies and assets each offers. */
export function listRampProviders(deps: RampsDeps): Handler<'listRampProviders'> {
  return async (req) => {
    // 1. the session user's app
    const { app } = await sessionUserApp(deps, req.auth);
    // 2. the providers' routes (domain), and respond
    return { content: await listProviders(deps, { app }) };
  };
}
