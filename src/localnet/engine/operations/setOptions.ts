// setOptions (SetOptionsOpFrame): HIGH threshold when it touches weights, thresholds or signers, else MEDIUM.
// Signers are kept sorted by key; each costs one base reserve (from the account or its sponsor).

import { StrKey } from '@stellar/stellar-sdk';
import { ACCOUNT_FLAGS, ALL_ACCOUNT_FLAGS, MAX_SIGNERS, OP_TYPE, SET_OPTIONS } from '../codes';
import { accountIdFromWire, compareSignerKeys, signerKeyFromWire, toHex } from '../encode';
import { createSignerWithPossibleSponsorship, removeSignerWithPossibleSponsorship } from '../reserves';
import { opInner } from '../results';
import { getAccount, isAsciiPrintable, loadAccount, sponsorshipFailure } from './common';
import { defineOperation } from './types';

const T = OP_TYPE.SET_OPTIONS;

export const setOptions = defineOperation({
  type: T,
  threshold({ setOptionsOp: op }) {
    const touchesAuth =
      op.masterWeight !== null ||
      op.lowThreshold !== null ||
      op.medThreshold !== null ||
      op.highThreshold !== null ||
      op.signer !== null;
    return touchesAuth ? 'HIGH' : 'MEDIUM';
  },
  checkValid({ setOptionsOp: op }, { source }) {
    if (
      (op.setFlags !== null && op.setFlags & ~ALL_ACCOUNT_FLAGS) ||
      (op.clearFlags !== null && op.clearFlags & ~ALL_ACCOUNT_FLAGS)
    ) {
      return opInner(T, SET_OPTIONS.UNKNOWN_FLAG);
    }
    if (op.setFlags !== null && op.clearFlags !== null && (op.setFlags & op.clearFlags) !== 0) {
      return opInner(T, SET_OPTIONS.BAD_FLAGS);
    }
    for (const w of [op.masterWeight, op.lowThreshold, op.medThreshold, op.highThreshold]) {
      if (w !== null && w > 255) return opInner(T, SET_OPTIONS.THRESHOLD_OUT_OF_RANGE);
    }
    if (op.signer) {
      const key = signerKeyFromWire(op.signer.key);
      const self = key.type === 0 && key.keyHex === toHex(StrKey.decodeEd25519PublicKey(source));
      if (self || op.signer.weight > 255) return opInner(T, SET_OPTIONS.BAD_SIGNER);
      if (key.type === 3 && !key.payloadHex) return opInner(T, SET_OPTIONS.BAD_SIGNER);
    }
    if (op.homeDomain && !isAsciiPrintable(op.homeDomain.bytes)) return opInner(T, SET_OPTIONS.INVALID_HOME_DOMAIN);
    return undefined;
  },
  apply({ setOptionsOp: op }, { ltx, header, source }) {
    const acc = loadAccount(ltx, source);
    if (!acc) throw new Error('setOptions: source vanished');
    if (op.inflationDest) {
      const dest = accountIdFromWire(op.inflationDest);
      if (dest !== source && !getAccount(ltx, dest)) return opInner(T, SET_OPTIONS.INVALID_INFLATION);
      acc.inflationDest = dest;
    }
    const immutable = (acc.flags & ACCOUNT_FLAGS.AUTH_IMMUTABLE) !== 0;
    if (op.clearFlags !== null) {
      if (op.clearFlags & ALL_ACCOUNT_FLAGS && immutable) return opInner(T, SET_OPTIONS.CANT_CHANGE);
      acc.flags &= ~op.clearFlags;
    }
    if (op.setFlags !== null) {
      if (op.setFlags & ALL_ACCOUNT_FLAGS && immutable) return opInner(T, SET_OPTIONS.CANT_CHANGE);
      acc.flags |= op.setFlags;
    }
    if (op.setFlags !== null || op.clearFlags !== null) {
      // Clawback requires revocable, so that clawed-back lines can be frozen.
      if (acc.flags & ACCOUNT_FLAGS.AUTH_CLAWBACK_ENABLED && !(acc.flags & ACCOUNT_FLAGS.AUTH_REVOCABLE)) {
        return opInner(T, SET_OPTIONS.AUTH_REVOCABLE_REQUIRED);
      }
    }
    if (op.homeDomain) acc.homeDomain = op.homeDomain.toString();
    if (op.masterWeight !== null) acc.thresholds[0] = op.masterWeight & 0xff;
    if (op.lowThreshold !== null) acc.thresholds[1] = op.lowThreshold & 0xff;
    if (op.medThreshold !== null) acc.thresholds[2] = op.medThreshold & 0xff;
    if (op.highThreshold !== null) acc.thresholds[3] = op.highThreshold & 0xff;

    if (op.signer) {
      const key = signerKeyFromWire(op.signer.key);
      const index = acc.signers.findIndex((s) => compareSignerKeys(s, key) === 0);
      if (op.signer.weight > 0) {
        if (index >= 0) {
          (acc.signers[index] as { weight: number }).weight = op.signer.weight;
        } else {
          if (acc.signers.length >= MAX_SIGNERS) return opInner(T, SET_OPTIONS.TOO_MANY_SIGNERS);
          let at = acc.signers.findIndex((s) => compareSignerKeys(s, key) > 0);
          if (at < 0) at = acc.signers.length;
          acc.signers.splice(at, 0, { ...key, weight: op.signer.weight, sponsor: null });
          const failure = sponsorshipFailure(
            createSignerWithPossibleSponsorship(ltx, header, acc, at),
            T,
            SET_OPTIONS.LOW_RESERVE,
          );
          if (failure) return failure;
        }
      } else if (index >= 0) {
        removeSignerWithPossibleSponsorship(ltx, acc, index);
      }
    }
    return opInner(T, SET_OPTIONS.SUCCESS);
  },
});
