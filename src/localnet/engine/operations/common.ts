// Helpers shared by operations: account creation defaults, trust-line lookup with the issuer's implicit line,
// and the sponsorship-result to result-code mapping every reserve-creating operation uses.

import { OP } from '../codes';
import type { SponsorshipResult } from '../reserves';
import { type OpResult, opError, opInner } from '../results';
import {
  type AccountRecord,
  type CreditAsset,
  type LedgerTxn,
  type TrustlineRecord,
  accountKey,
  trustlineKey,
} from '../state';

export function newAccountRecord(id: string, balance: bigint, seqNum: bigint): AccountRecord {
  return {
    kind: 'account',
    id,
    balance,
    seqNum,
    numSubEntries: 0,
    inflationDest: null,
    flags: 0,
    homeDomain: '',
    thresholds: [1, 0, 0, 0],
    signers: [],
    buyingLiabilities: 0n,
    sellingLiabilities: 0n,
    numSponsored: 0,
    numSponsoring: 0,
    seqLedger: 0,
    seqTime: 0n,
    extVersion: 0,
    sponsor: null,
    extV1: false,
    lastModified: 0,
  };
}

export function getAccount(ltx: LedgerTxn, id: string): AccountRecord | undefined {
  const r = ltx.get(accountKey(id));
  return r && r.kind === 'account' ? r : undefined;
}

export function loadAccount(ltx: LedgerTxn, id: string): AccountRecord | undefined {
  return ltx.load<AccountRecord>(accountKey(id));
}

/**
 * A holder's line for a credit asset, for writing. The issuer has an implicit, unlimited, always-authorized line
 * (core's TrustLineWrapper::IssuerImpl), returned as 'issuer'.
 */
export function loadLine(ltx: LedgerTxn, holder: string, asset: CreditAsset): TrustlineRecord | 'issuer' | undefined {
  if (asset.issuer === holder) return 'issuer';
  return ltx.load<TrustlineRecord>(trustlineKey(holder, asset));
}

/** Maps a failed sponsorship/reserve step to the operation's result (LOW_RESERVE code given by the caller). */
export function sponsorshipFailure(res: SponsorshipResult, type: number, lowReserveCode: number): OpResult | undefined {
  switch (res) {
    case 'SUCCESS':
      return undefined;
    case 'LOW_RESERVE':
      return opInner(type, lowReserveCode);
    case 'TOO_MANY_SUBENTRIES':
      return opError(OP.TOO_MANY_SUBENTRIES);
    case 'TOO_MANY_SPONSORING':
      return opError(OP.TOO_MANY_SPONSORING);
  }
}

/** core isStringValid: printable ASCII only (0x20-0x7e). */
export function isAsciiPrintable(bytes: Uint8Array): boolean {
  for (const b of bytes) if (b < 0x20 || b > 0x7e) return false;
  return true;
}
