// beginSponsoringFutureReserves / endSponsoringFutureReserves (CAP-33): between the two, every reserve the sponsored
// account creates is paid by the sponsor. The open sandwich lives only inside the transaction (tx-scoped records);
// a begin without its end makes the whole transaction fail with txBAD_SPONSORSHIP.

import { BEGIN_SPONSORING, END_SPONSORING, OP_TYPE } from '../codes';
import { accountIdFromWire } from '../encode';
import { opInner } from '../results';
import { type SponsorshipCounterRecord, sponsorshipCounterKey, sponsorshipKey } from '../state';
import { defineOperation } from './types';

const BEGIN = OP_TYPE.BEGIN_SPONSORING_FUTURE_RESERVES;
const END = OP_TYPE.END_SPONSORING_FUTURE_RESERVES;

export const beginSponsoringFutureReserves = defineOperation({
  type: BEGIN,
  checkValid({ beginSponsoringFutureReservesOp: op }, { source }) {
    if (accountIdFromWire(op.sponsoredId) === source) return opInner(BEGIN, BEGIN_SPONSORING.MALFORMED);
    return undefined;
  },
  apply({ beginSponsoringFutureReservesOp: op }, { ltx, source }) {
    const sponsored = accountIdFromWire(op.sponsoredId);
    if (ltx.get(sponsorshipKey(sponsored))) return opInner(BEGIN, BEGIN_SPONSORING.ALREADY_SPONSORED);
    if (ltx.get(sponsorshipKey(source))) return opInner(BEGIN, BEGIN_SPONSORING.RECURSIVE);
    if (ltx.get(sponsorshipCounterKey(sponsored))) return opInner(BEGIN, BEGIN_SPONSORING.RECURSIVE);

    ltx.create({ kind: 'sponsorship', sponsored, sponsoring: source });
    const counter = ltx.load<SponsorshipCounterRecord>(sponsorshipCounterKey(source));
    if (counter) counter.count += 1;
    else ltx.create({ kind: 'sponsorshipCounter', sponsoring: source, count: 1 });
    return opInner(BEGIN, BEGIN_SPONSORING.SUCCESS);
  },
});

export const endSponsoringFutureReserves = defineOperation({
  type: END,
  checkValid() {
    return undefined;
  },
  apply(_body, { ltx, source }) {
    const sponsorship = ltx.get(sponsorshipKey(source));
    if (!sponsorship || sponsorship.kind !== 'sponsorship') return opInner(END, END_SPONSORING.NOT_SPONSORED);
    const counterKey = sponsorshipCounterKey(sponsorship.sponsoring);
    const counter = ltx.load<SponsorshipCounterRecord>(counterKey);
    if (!counter || counter.count === 0) throw new Error('endSponsoring: sponsorship counter missing');
    counter.count -= 1;
    if (counter.count === 0) ltx.erase(counterKey);
    ltx.erase(sponsorshipKey(source));
    return opInner(END, END_SPONSORING.SUCCESS);
  },
});
