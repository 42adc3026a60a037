import { startRamp as startFromQuote, type RampsDeps } from '../../domain/ramps/transactions';
import type { Handler } from '../types';
import { rampCallerOf } from './rampCaller';

/** Starts the ramp a quote priced; the same quote again answers the same ramp. */
export function startRamp(deps: RampsDeps): Handler<'startRamp'> {
  return async (req) => {
    // 1. the session user's wallet
    const caller = await rampCallerOf(deps, req);
    // 2. claim the quote, start with the provider, send an off-ramp's payment (domain)
    return { content: await startFromQuote(deps, caller, req.body.quoteId) };
  };
}
