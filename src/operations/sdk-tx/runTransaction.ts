import { runUserTransaction, type TxDeps } from '../../domain/transactions/submission';
import type { Handler } from '../types';
import { txContextOf } from './txContext';

/** buildTransaction + signTransaction + submitTransaction in one call (a dry run builds and decides only). */
export function runTransaction(deps: TxDeps): Handler<'runTransaction'> {
  return async (req) => {
    const ctx = await txContextOf(deps, req);
    const { operation, memo, timeoutSeconds, dryRun } = req.body;
    return {
      content: await runUserTransaction(deps, ctx, {
        operation,
        timeoutSeconds: timeoutSeconds ?? 60,
        dryRun: dryRun ?? false,
        ...(memo ? { memo } : {}),
      }),
    };
  };
}
