import type { Deps } from '../../domain/deps';
import { signAuthEntry as signEntry } from '../../domain/sorobanAuth/entries';
import type { Handler } from '../types';
import { txContextOf } from './txContext';

/** Signs a Soroban authorization entry for the session's custodial wallet when the app's allowlist permits it. */
export function signAuthEntry(deps: Pick<Deps, 'db' | 'kms' | 'clock' | 'stellar'>): Handler<'signAuthEntry'> {
  return async (req) => {
    // 1. the session user's wallet on the key's network, and who the key use is audited for
    const ctx = await txContextOf(deps, req);
    // 2. decode, check the address, the allowlist and the expiration, then sign (domain)
    const content = await signEntry(deps, {
      app: ctx.app,
      wallet: ctx.wallet,
      entry: req.body.entry,
      ...(req.body.validUntilLedger !== undefined ? { validUntilLedger: req.body.validUntilLedger } : {}),
      actor: ctx.actor,
      ...(ctx.ip !== undefined ? { ip: ctx.ip } : {}),
    });
    // 3. respond
    return { content };
  };
}
