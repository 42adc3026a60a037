import { refreshRamp, type RampsDeps } from '../../domain/ramps/transactions';
import type { Handler } from '../types';
import { rampCallerOf } from './rampCaller';

/** One of the session user's ramps, refreshed from its provider. */
export function getRampTransaction(deps: RampsDeps): Handler<'getRampTransaction'> {
  return async (req) => {
    // 1. the session user's wallet
    const caller = await rampCallerOf(deps, req);
    // 2. refresh and respond (domain)
    return { content: await refreshRamp(deps, caller, req.path.rampTxId) };
  };
}
