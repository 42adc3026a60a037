import { createRampQuote as priceRamp, type RampsDeps } from '../../domain/ramps/transactions';
import type { Handler } from '../types';
import { rampCallerOf } from './rampCaller';

/** Prices an on- or off-ramp with one of the app's providers; the quote is valid for 15 minutes. */
export function createRampQuote(deps: RampsDeps): Handler<'createRampQuote'> {
  return async (req) => {
    // 1. the session user's wallet
    const caller = await rampCallerOf(deps, req);
    // 2. the provider prices it, the quote is kept (domain)
    return { content: await priceRamp(deps, caller, req.body) };
  };
}
