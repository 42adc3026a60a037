import { signUserTransaction, type TxDeps } from '../../domain/transactions/submission';
import type { Handler } from '../types';
import { txContextOf } from './txContext';

/** Signs the user's own transaction (a built one by txId, or an unsigned XDR of the wallet) with the custodial key. */
export function signTransaction(deps: TxDeps): Handler<'signTransaction'> {
  return async (req) => {
    const ctx = await txContextOf(deps, req);
    const input =
      'txId' in req.body && req.body.txId !== undefined
        ? { txId: req.body.txId }
        : { unsignedXdr: (req.body as { unsignedXdr: string }).unsignedXdr };
    return { content: await signUserTransaction(deps, ctx, input) };
  };
}
