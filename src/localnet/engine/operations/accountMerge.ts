// accountMerge (MergeOpFrame, protocol >= 16): HIGH threshold; moves the whole balance to the destination and
// deletes the source, which must have no sub-entries other than signers and sponsor nothing. CAP-67 event: an XLM
// transfer of the merged balance from the source to the destination.

import { ACCOUNT_FLAGS, ACCOUNT_MERGE, OP_TYPE } from '../codes';
import { accountIdFromMuxed } from '../encode';
import {
  addAccountBalance,
  removeEntryWithPossibleSponsorship,
  removeSignerWithPossibleSponsorship,
  startingSequenceNumber,
} from '../reserves';
import { opInner } from '../results';
import { accountKey, sponsorshipCounterKey } from '../state';
import { getAccount, loadAccount } from './common';
import { defineOperation } from './types';

const T = OP_TYPE.ACCOUNT_MERGE;

export const accountMerge = defineOperation({
  type: T,
  threshold: () => 'HIGH',
  checkValid({ destination }, { source }) {
    if (accountIdFromMuxed(destination) === source) return opInner(T, ACCOUNT_MERGE.MALFORMED);
    return undefined;
  },
  apply({ destination }, { ltx, header, source, sourceMuxed, events }) {
    const destId = accountIdFromMuxed(destination);
    if (!getAccount(ltx, destId)) return opInner(T, ACCOUNT_MERGE.NO_ACCOUNT);
    const src = loadAccount(ltx, source);
    if (!src) throw new Error('accountMerge: source vanished');
    if (src.flags & ACCOUNT_FLAGS.AUTH_IMMUTABLE) return opInner(T, ACCOUNT_MERGE.IMMUTABLE_SET);
    if (src.numSubEntries !== src.signers.length) return opInner(T, ACCOUNT_MERGE.HAS_SUB_ENTRIES);
    // Recreating the account must not make its sequence number go backwards.
    if (src.seqNum >= startingSequenceNumber(header.ledgerSeq)) return opInner(T, ACCOUNT_MERGE.SEQNUM_TOO_FAR);
    if (ltx.get(sponsorshipCounterKey(source))) return opInner(T, ACCOUNT_MERGE.IS_SPONSOR);
    if (src.numSponsoring > 0) return opInner(T, ACCOUNT_MERGE.IS_SPONSOR);

    while (src.signers.length > 0) removeSignerWithPossibleSponsorship(ltx, src, src.signers.length - 1);
    const balance = src.balance;
    const dest = loadAccount(ltx, destId);
    if (!dest || !addAccountBalance(header, dest, balance)) return opInner(T, ACCOUNT_MERGE.DEST_FULL);
    removeEntryWithPossibleSponsorship(ltx, src, src);
    ltx.erase(accountKey(source));
    events.nativeTransfer(sourceMuxed, destination, balance);
    return opInner(T, ACCOUNT_MERGE.SUCCESS, { sourceAccountBalance: balance });
  },
});
