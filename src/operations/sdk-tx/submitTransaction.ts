import { submitUserTransaction, type TxDeps } from '../../domain/transactions/submission';
import type { Handler } from '../types';
import { txContextOf } from './txContext';

/** Sponsors (fee-bump by the gas wallet, after the policy) and submits the user's signed transaction. */
export function submitTransaction(deps: TxDeps): Handler<'submitTransaction'> {
  return async (req) => {
    const ctx = await txContextOf(deps, req);
    return {
      content: await submitUserTransaction(deps, ctx, {
        signedXdr: req.body.signedXdr,
        dryRun: req.body.dryRun ?? false,
      }),
    };
  };
}
