// The on-chain leg of an off-ramp: the asset paid from the user's wallet to where the provider asked. The service does
// it, not the provider: for a custodial wallet through the sponsored transaction path (transactions/submission.ts:
// recorded in the wallet's history before it is signed, the app's fee policy, the gas wallet's fee-bump, submitted in
// the wallet's sequence turn); for a wallet the service cannot sign for, as an unsigned transaction the user signs
// (`awaiting_signature`).
//
// The balance is checked before anything is built (422 SDK_RAMPS_INSUFFICIENT_BALANCE: nothing recorded, nothing
// sent), and a network refusal is 422 SDK_RAMPS_ONCHAIN_SUBMIT_FAILED with the Stellar result code in `details`: the
// transaction failed as a whole, so nothing moved (its fee was the gas wallet's).
import { gatewayFor } from '../chain/gateways';
import { AppError, appErrorOf } from '../errors';
import { fromStroops, toStroops } from '../money/amounts';
import { buildUserTransaction } from '../transactions/build';
import { runUserTransaction, type TxDeps } from '../transactions/submission';
import { availableStroops } from '../../infra/stellar/gateway';
import type { RampCaller } from './call';
import type { OffRampPayment } from './providers';

/** How long the leg's transaction stays valid. */
const LEG_TIMEOUT_SECONDS = 60;

/** 422 SDK_RAMPS_INSUFFICIENT_BALANCE unless the wallet can spend `amount` of `asset` now. */
export async function requireSpendable(
  deps: Pick<TxDeps, 'stellar'>,
  caller: RampCaller,
  asset: string,
  amount: string,
): Promise<void> {
  const gw = gatewayFor(deps, caller.wallet.network);
  const needed = toStroops(amount);
  let available: bigint;
  if (asset === 'native') {
    const [account, figures] = await Promise.all([gw.loadAccount(caller.wallet.publicKey), gw.ledgerFigures()]);
    available = account ? availableStroops(account, figures.baseReserveStroops) : 0n;
  } else {
    const [line] = await gw.trustlines(caller.wallet.publicKey, [asset]);
    available = line ? line.balanceStroops - line.sellingLiabilitiesStroops : 0n;
  }
  if (available < needed)
    throw new AppError('SDK_RAMPS_INSUFFICIENT_BALANCE', {
      message: `The wallet holds ${fromStroops(available > 0n ? available : 0n)} ${asset.split(':')[0]} it can spend; the off-ramp needs ${amount}`,
    });
}

export type LegOutcome =
  | { kind: 'sent'; txId: string; hash: string; confirmed: boolean }
  | { kind: 'needs_signature'; unsignedXdr: string; innerHash: string };

/** Pays `payment` from the caller's wallet (see the header). */
export async function sendOffRampPayment(
  deps: TxDeps,
  caller: RampCaller,
  payment: OffRampPayment,
  opts: { balanceChecked: boolean },
): Promise<LegOutcome> {
  // startRamp checked the balance a moment ago, before anything was recorded; a payment asked for later is checked now.
  if (!opts.balanceChecked) await requireSpendable(deps, caller, payment.asset, payment.amount);
  const operation = {
    type: 'payment' as const,
    destination: payment.destination,
    asset: payment.asset,
    amount: payment.amount,
  };
  const memo = payment.memo;
  if (caller.wallet.custody !== 'custodial') {
    const built = await buildUserTransaction(deps, {
      app: caller.app,
      wallet: caller.wallet,
      operation,
      timeoutSeconds: 24 * 3600, // the user signs when they come back; the provider's own deadline applies
      ...(memo ? { memo } : {}),
    });
    return {
      kind: 'needs_signature',
      unsignedXdr: built.tx.toXDR(),
      innerHash: Buffer.from(built.tx.hash()).toString('hex'),
    };
  }
  try {
    const outcome = await runUserTransaction(deps, caller, {
      operation,
      timeoutSeconds: LEG_TIMEOUT_SECONDS,
      ...(memo ? { memo } : {}),
    });
    if (!outcome.txId || !outcome.hash) throw new Error('the off-ramp payment was not recorded'); // not a dry run
    return { kind: 'sent', txId: outcome.txId, hash: outcome.hash, confirmed: outcome.status === 'success' };
  } catch (err) {
    const known = appErrorOf(err);
    if (known?.code === 'TX_SUBMIT_FAILED') {
      const resultCode = typeof known.fields.resultCode === 'string' ? known.fields.resultCode : 'tx_failed';
      throw new AppError('SDK_RAMPS_ONCHAIN_SUBMIT_FAILED', {
        message: `The network rejected the off-ramp payment (${resultCode}); nothing moved`,
        details: { resultCode },
        cause: err,
      });
    }
    throw err;
  }
}
