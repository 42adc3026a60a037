// Wallets in the user's own custody (SEP-10 sign-in): the app never funds them, so "funded" only means the account
// exists on the ledger. One that did not exist at sign-in becomes funded when it is seen there (someone paid it its
// reserve): looked up again when the user reads the wallet or submits a transaction, never by a background job.
import type { Deps } from '../deps';
import { gatewayFor } from '../chain/gateways';
import { StellarUnavailableError } from '../../infra/stellar/errors';
import type { WalletRecord } from './store';

/**
 * The wallet with its funded state as the ledger has it now. With `keepWhenUnreachable` (a read of the wallet), an
 * unreachable chain answers the stored state; otherwise (a submission, which needs the chain anyway) it fails as 503.
 */
export async function refreshExternalFunding(
  deps: Pick<Deps, 'db' | 'clock' | 'stellar'>,
  wallet: WalletRecord,
  opts: { keepWhenUnreachable?: boolean } = {},
): Promise<WalletRecord> {
  if (wallet.custody !== 'external' || wallet.fundingState === 'funded') return wallet;
  let account;
  try {
    account = await gatewayFor(deps, wallet.network).loadAccount(wallet.publicKey);
  } catch (err) {
    if (opts.keepWhenUnreachable && err instanceof StellarUnavailableError) return wallet;
    throw err;
  }
  if (!account) return wallet;
  const fundedAt = deps.clock.now();
  await deps
    .db('wallets')
    .where({ id: wallet.id, funding_state: 'unfunded' })
    .update({ funding_state: 'funded', funded_at: fundedAt });
  return { ...wallet, fundingState: 'funded', fundedAt };
}
