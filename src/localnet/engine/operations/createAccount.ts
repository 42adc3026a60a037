// createAccount (CreateAccountOpFrame, protocol >= 14): the destination's two base reserves come from its starting
// balance, or from the sponsor of a begin/end sandwich, in which case a starting balance of 0 works. CAP-67 event:
// an XLM transfer of the starting balance from the source to the new account (even of 0).

import { CREATE_ACCOUNT, OP_TYPE } from '../codes';
import { accountIdFromWire } from '../encode';
import {
  addAccountBalance,
  availableBalance,
  createEntryWithPossibleSponsorship,
  startingSequenceNumber,
} from '../reserves';
import { opInner } from '../results';
import { accountKey } from '../state';
import { loadAccount, newAccountRecord, sponsorshipFailure } from './common';
import { defineOperation } from './types';

const T = OP_TYPE.CREATE_ACCOUNT;

export const createAccount = defineOperation({
  type: T,
  checkValid({ createAccountOp: op }, { source }) {
    if (op.startingBalance < 0n) return opInner(T, CREATE_ACCOUNT.MALFORMED);
    if (accountIdFromWire(op.destination) === source) return opInner(T, CREATE_ACCOUNT.MALFORMED);
    return undefined;
  },
  apply({ createAccountOp: op }, { ltx, header, source, sourceMuxed, events }) {
    const destination = accountIdFromWire(op.destination);
    if (ltx.get(accountKey(destination))) return opInner(T, CREATE_ACCOUNT.ALREADY_EXIST);

    const created = newAccountRecord(destination, op.startingBalance, startingSequenceNumber(header.ledgerSeq));
    const failure = sponsorshipFailure(
      createEntryWithPossibleSponsorship(ltx, header, created, created),
      T,
      CREATE_ACCOUNT.LOW_RESERVE,
    );
    if (failure) return failure;

    const src = loadAccount(ltx, source);
    if (!src || availableBalance(header, src) < op.startingBalance) return opInner(T, CREATE_ACCOUNT.UNDERFUNDED);
    if (!addAccountBalance(header, src, -op.startingBalance))
      throw new Error('createAccount: debit refused after check');
    ltx.create(created);
    events.nativeTransfer(sourceMuxed, { type: 0, ed25519: op.destination.ed25519 }, op.startingBalance);
    return opInner(T, CREATE_ACCOUNT.SUCCESS);
  },
});
