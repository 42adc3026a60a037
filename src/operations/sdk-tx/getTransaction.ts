import type { Deps } from '../../domain/deps';
import { AppError } from '../../domain/errors';
import { findWalletTransaction } from '../../domain/transactions/history';
import { describeChainTransaction } from '../../domain/transactions/chainTransactions';
import { findTransactionByHash } from '../../domain/transactions/store';
import { gatewayFor } from '../../domain/chain/gateways';
import { fromStroops } from '../../domain/money/amounts';
import { requireSessionWallet } from '../sdkWallet';
import type { Handler } from '../types';

function notFound(): AppError {
  return new AppError('TX_NOT_FOUND', { message: 'No transaction with this hash for this wallet' });
}

/**
 * One transaction of the session user's wallet by hash: from the service's records, else (a transaction made outside
 * the service that the ledger follower has not recorded yet) from Stellar RPC, within its retention window, when it
 * involves the wallet.
 */
export function getTransaction(deps: Pick<Deps, 'db' | 'stellar'>): Handler<'getTransaction'> {
  return async (req) => {
    // 1. authorize: the session user's own wallet on the key's network
    const { wallet } = await requireSessionWallet(deps, req.auth);
    const hash = req.path.hash;
    // 2. the service's record, in the wallet's own history
    const known = await findWalletTransaction(deps.db, { walletId: wallet.id, network: wallet.network, hash });
    if (known) return { content: known };
    // 3. else the chain: only a transaction this wallet is part of (source, operation source, destination) is shown
    const gateway = gatewayFor(deps, wallet.network);
    const details = await gateway.transactionDetails(hash);
    if (!details) throw notFound();
    const chain = describeChainTransaction(details, gateway.networkPassphrase);
    const view = chain?.viewOf(wallet.publicKey);
    if (!chain || !view) throw notFound();
    // A transaction the service recorded for other wallets keeps its id; one it never recorded is named by its hash.
    const recorded = await findTransactionByHash(deps.db, wallet.network, chain.hash);
    // 4. respond
    return {
      content: {
        id: recorded?.id ?? chain.hash,
        hash: chain.hash,
        network: wallet.network,
        status: details.status,
        operation: chain.description.operation,
        feeXlm: fromStroops(details.feeChargedStroops),
        resultCode: chain.resultCode,
        summary: view.summary,
        createdAt: new Date(details.createdAt * 1000).toISOString(),
        ledger: details.ledger,
        envelopeXdr: details.envelopeXdr,
      },
    };
  };
}
