import { fromStroops } from '../../domain/money/amounts';
import { buildUserTransaction } from '../../domain/transactions/build';
import { recordBuilt, type TxDeps } from '../../domain/transactions/submission';
import type { Handler } from '../types';
import { txContextOf } from './txContext';

/** Builds one operation for the session user's wallet, unsigned, and records it in history as PENDING. */
export function buildTransaction(deps: TxDeps): Handler<'buildTransaction'> {
  return async (req) => {
    // 1. the session's wallet
    const ctx = await txContextOf(deps, req);
    // 2. build (validation and chain reads: the build rules of build.ts)
    const { operation, memo, timeoutSeconds } = req.body;
    const built = await buildUserTransaction(deps, {
      app: ctx.app,
      wallet: ctx.wallet,
      operation,
      timeoutSeconds: timeoutSeconds ?? 60,
      ...(memo ? { memo } : {}),
    });
    // 3. record (the record's transaction carries the wallet's reserved sequence number)
    const record = await recordBuilt(deps, ctx, built);
    // 4. respond
    return {
      content: {
        txId: record.id,
        status: 'built' as const,
        unsignedXdr: record.unsignedXdr!,
        networkPassphrase: built.tx.networkPassphrase,
        estimatedFeeXlm: fromStroops(built.estimatedFeeStroops),
        summary: built.summary,
      },
    };
  };
}
