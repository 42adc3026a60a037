// changeTrust (ChangeTrustOpFrame): creates a trust line (limit > 0), updates its limit, or removes it (limit 0,
// only when it holds nothing), taking or releasing one base reserve from the owner or its sponsor.
// Liquidity-pool share trust lines are not modelled (opNOT_SUPPORTED).

import { ACCOUNT_FLAGS, CHANGE_TRUST, OP, OP_TYPE, TRUSTLINE_FLAGS } from '../codes';
import { creditAssetFromWire, isAssetWireValid } from '../encode';
import { createEntryWithPossibleSponsorship, removeEntryWithPossibleSponsorship } from '../reserves';
import { opError, opInner } from '../results';
import { type TrustlineRecord, trustlineKey } from '../state';
import { getAccount, loadAccount, sponsorshipFailure } from './common';
import { defineOperation } from './types';

const T = OP_TYPE.CHANGE_TRUST;

export const changeTrust = defineOperation({
  type: T,
  checkValid({ changeTrustOp: op }, { source }) {
    if (op.line.type === 3) return opError(OP.NOT_SUPPORTED);
    if (op.limit < 0n) return opInner(T, CHANGE_TRUST.MALFORMED);
    if (!isAssetWireValid(op.line) || op.line.type === 0) return opInner(T, CHANGE_TRUST.MALFORMED);
    if (creditAssetFromWire(op.line)?.issuer === source) return opInner(T, CHANGE_TRUST.MALFORMED);
    return undefined;
  },
  apply({ changeTrustOp: op }, { ltx, header, source }) {
    const asset = creditAssetFromWire(op.line);
    if (!asset) throw new Error('changeTrust: native line passed validation');
    if (asset.issuer === source) return opInner(T, CHANGE_TRUST.SELF_NOT_ALLOWED);
    const key = trustlineKey(source, asset);

    const existing = ltx.load<TrustlineRecord>(key);
    if (existing) {
      if (op.limit < existing.balance + existing.buyingLiabilities) return opInner(T, CHANGE_TRUST.INVALID_LIMIT);
      if (op.limit === 0n) {
        const owner = loadAccount(ltx, source);
        if (!owner) throw new Error('changeTrust: source vanished');
        removeEntryWithPossibleSponsorship(ltx, existing, owner);
        ltx.erase(key);
      } else {
        if (!getAccount(ltx, asset.issuer)) return opInner(T, CHANGE_TRUST.NO_ISSUER);
        existing.limit = op.limit;
      }
      return opInner(T, CHANGE_TRUST.SUCCESS);
    }

    if (op.limit === 0n) return opInner(T, CHANGE_TRUST.INVALID_LIMIT);
    const issuer = getAccount(ltx, asset.issuer);
    if (!issuer) return opInner(T, CHANGE_TRUST.NO_ISSUER);
    let flags = (issuer.flags & ACCOUNT_FLAGS.AUTH_REQUIRED) === 0 ? TRUSTLINE_FLAGS.AUTHORIZED : 0;
    if (issuer.flags & ACCOUNT_FLAGS.AUTH_CLAWBACK_ENABLED) flags |= TRUSTLINE_FLAGS.CLAWBACK_ENABLED;
    const line: TrustlineRecord = {
      kind: 'trustline',
      account: source,
      asset,
      balance: 0n,
      limit: op.limit,
      flags,
      buyingLiabilities: 0n,
      sellingLiabilities: 0n,
      extVersion: 0,
      sponsor: null,
      extV1: false,
      lastModified: 0,
    };
    const owner = loadAccount(ltx, source);
    if (!owner) throw new Error('changeTrust: source vanished');
    const failure = sponsorshipFailure(
      createEntryWithPossibleSponsorship(ltx, header, line, owner),
      T,
      CHANGE_TRUST.LOW_RESERVE,
    );
    if (failure) return failure;
    ltx.create(line);
    return opInner(T, CHANGE_TRUST.SUCCESS);
  },
});
