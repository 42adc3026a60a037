// `sponsor.balance.low`: an app wallet (funding, gas, global, distribution) at or below its minimum is reported, and
// reported again every 24 h for as long as it stays there ("repeated every 24 h until topped up"); a wallet above its
// minimum is never reported. Whoever reads a sponsor's balance after spending from it (an activation, a fee-bump) hands
// the reading here, inside the transaction that records what happened, so the event exists exactly when that does.
import type { Knex } from 'knex';
import type { JobQueue } from '../../infra/jobs/jobQueue';
import { fromStroops, toStroops } from '../money/amounts';
import { recordOutboxEvent } from '../events/outbox';
import type { AppWalletRole } from '../wallets/store';

/** How long one report of a low wallet stands before the next reading at or below the minimum reports it again. */
export const LOW_BALANCE_REPEAT_MS = 24 * 60 * 60 * 1000;

/** A sponsor wallet's XLM balance as just read or computed (WebhookSponsorBalanceLow's data, before formatting). */
export interface SponsorBalanceReading {
  appId: string;
  walletType: AppWalletRole;
  address: string;
  balanceStroops: bigint;
  /** The minimum for the role, in XLM (Treasury.yaml's minimumBalanceXlm). */
  thresholdXlm: string;
  at: Date;
}

/** Whether a reading is low: at or below the minimum. */
export function isLow(reading: Pick<SponsorBalanceReading, 'balanceStroops' | 'thresholdXlm'>): boolean {
  return reading.balanceStroops <= toStroops(reading.thresholdXlm);
}

/**
 * Records `sponsor.balance.low` in `trx` when the wallet is low and no report of the same wallet in the same role was
 * recorded within the last 24 h (of `at`). Answers whether it recorded one.
 */
export async function reportLowBalance(
  deps: { jobs: JobQueue },
  trx: Knex.Transaction,
  reading: SponsorBalanceReading,
): Promise<boolean> {
  if (!isLow(reading)) return false;
  // One reporter per wallet at a time (until commit): two activations finishing together must not both find no
  // report and both record one.
  await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`sponsor.balance.low:${reading.address}`]);
  const recent = await trx<{ id: string; app_id: string; type: string; created_at: Date; data: unknown }>(
    'outbox_events',
  )
    .where({ app_id: reading.appId, type: 'sponsor.balance.low' })
    .where('created_at', '>', new Date(reading.at.getTime() - LOW_BALANCE_REPEAT_MS))
    .whereRaw(`data->>'address' = ?`, [reading.address])
    .whereRaw(`data->>'walletType' = ?`, [reading.walletType])
    .first('id');
  if (recent) return false;
  await recordOutboxEvent(deps, trx, {
    appId: reading.appId,
    type: 'sponsor.balance.low',
    data: {
      walletType: reading.walletType,
      address: reading.address,
      balance: fromStroops(reading.balanceStroops),
      threshold: reading.thresholdXlm,
      asset: 'native',
    },
    at: reading.at,
  });
  return true;
}
