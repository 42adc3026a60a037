// Balances, reserves and sponsorship bookkeeping, following stellar-core's TransactionUtils.cpp and
// SponsorshipUtils.cpp: minBalance = (2 + numSubEntries + numSponsoring - numSponsored) x baseReserve and
// available = balance - minBalance - sellingLiabilities. Liabilities stay 0 here because offers are not modelled.

import { ACCOUNT_SUBENTRY_LIMIT, INT64_MAX, TRUSTLINE_FLAGS, UINT32_MAX } from './codes';
import {
  type AccountRecord,
  type DataRecord,
  type LedgerTxn,
  type SignerRecord,
  type SponsorshipRecord,
  type TrustlineRecord,
  accountKey,
  sponsorshipKey,
} from './state';

/** The ledger-header values operations depend on. */
export interface HeaderView {
  ledgerSeq: number;
  closeTime: number;
  baseFee: number;
  baseReserve: bigint;
  protocolVersion: number;
  /** Set by the engine for the ledgers it validates and closes; Soroban authorization payloads are bound to it. */
  networkPassphrase?: string;
}

export function minBalance(header: HeaderView, acc: AccountRecord): bigint {
  const entries = 2n + BigInt(acc.numSubEntries) + BigInt(acc.numSponsoring) - BigInt(acc.numSponsored);
  if (entries < 0n) throw new Error(`account ${acc.id}: negative reserve entry count`);
  return entries * header.baseReserve;
}

export function availableBalance(header: HeaderView, acc: AccountRecord): bigint {
  return acc.balance - minBalance(header, acc) - acc.sellingLiabilities;
}

/** core addBalance for accounts: refuses to go below the reserve (for debits) or over INT64_MAX. */
export function addAccountBalance(header: HeaderView, acc: AccountRecord, delta: bigint): boolean {
  if (delta === 0n) return true;
  const next = acc.balance + delta;
  if (next < 0n || next > INT64_MAX) return false;
  if (delta < 0n && next - minBalance(header, acc) < acc.sellingLiabilities) return false;
  if (next > INT64_MAX - acc.buyingLiabilities) return false;
  acc.balance = next;
  return true;
}

export function isAuthorized(tl: TrustlineRecord): boolean {
  return (tl.flags & TRUSTLINE_FLAGS.AUTHORIZED) !== 0;
}

export function isAuthorizedToMaintainLiabilities(tl: TrustlineRecord): boolean {
  return (tl.flags & (TRUSTLINE_FLAGS.AUTHORIZED | TRUSTLINE_FLAGS.AUTHORIZED_TO_MAINTAIN_LIABILITIES)) !== 0;
}

/** core addBalance for trust lines: within [sellingLiabilities, limit - buyingLiabilities]. */
export function addTrustlineBalance(tl: TrustlineRecord, delta: bigint): boolean {
  if (delta === 0n) return true;
  if (!isAuthorizedToMaintainLiabilities(tl)) return false;
  const next = tl.balance + delta;
  if (next < 0n || next > INT64_MAX) return false;
  if (next < tl.sellingLiabilities) return false;
  if (next > tl.limit - tl.buyingLiabilities) return false;
  tl.balance = next;
  return true;
}

/** Sequence numbers of accounts created in ledger N start at N << 32. */
export function startingSequenceNumber(ledgerSeq: number): bigint {
  return BigInt(ledgerSeq) << 32n;
}

/** From protocol 19 every sequence-number change records when it happened (AccountEntryExtensionV3). */
export function noteSeqNumUpdate(header: HeaderView, acc: AccountRecord): void {
  if (header.protocolVersion < 19) return;
  acc.extVersion = 3;
  acc.seqLedger = header.ledgerSeq;
  acc.seqTime = BigInt(header.closeTime);
}

function prepareExtV2(acc: AccountRecord): void {
  if (acc.extVersion < 2) acc.extVersion = 2;
}

// ---- sponsorship ----------------------------------------------------------------------------------------------

export type SponsorshipResult = 'SUCCESS' | 'LOW_RESERVE' | 'TOO_MANY_SUBENTRIES' | 'TOO_MANY_SPONSORING';

/** A ledger entry that can carry a reserve: account (2 base reserves), trust line or data entry (1 each). */
export type ReserveEntry = AccountRecord | TrustlineRecord | DataRecord;

export function multiplier(entry: ReserveEntry): number {
  return entry.kind === 'account' ? 2 : 1;
}

export function loadSponsorship(ltx: LedgerTxn, sponsored: string): SponsorshipRecord | undefined {
  const r = ltx.get(sponsorshipKey(sponsored));
  return r && r.kind === 'sponsorship' ? r : undefined;
}

function loadAccountForWrite(ltx: LedgerTxn, id: string): AccountRecord {
  const acc = ltx.load<AccountRecord>(accountKey(id));
  if (!acc) throw new Error(`sponsoring account ${id} does not exist`);
  return acc;
}

function tooManySubEntries(acc: AccountRecord, mult: number): boolean {
  return acc.numSubEntries > ACCOUNT_SUBENTRY_LIMIT - mult || acc.numSponsoring + acc.numSubEntries + mult > UINT32_MAX;
}

function canEstablish(header: HeaderView, sponsoring: AccountRecord, mult: number): SponsorshipResult {
  if (availableBalance(header, sponsoring) < BigInt(mult) * header.baseReserve) return 'LOW_RESERVE';
  if (sponsoring.numSponsoring > UINT32_MAX - mult) return 'TOO_MANY_SPONSORING';
  if (sponsoring.numSponsoring + sponsoring.numSubEntries + mult > UINT32_MAX) return 'TOO_MANY_SPONSORING';
  return 'SUCCESS';
}

function establish(entry: ReserveEntry, sponsoring: AccountRecord, sponsored: AccountRecord | undefined): void {
  const mult = multiplier(entry);
  entry.sponsor = sponsoring.id;
  entry.extV1 = true;
  prepareExtV2(sponsoring);
  sponsoring.numSponsoring += mult;
  if (sponsored) {
    prepareExtV2(sponsored);
    sponsored.numSponsored += mult;
  }
}

function removeSponsorship(entry: ReserveEntry, sponsoring: AccountRecord, sponsored: AccountRecord | undefined): void {
  const mult = multiplier(entry);
  if (entry.sponsor !== sponsoring.id) throw new Error('sponsorship does not match');
  entry.sponsor = null;
  sponsoring.numSponsoring -= mult;
  if (sponsored) sponsored.numSponsored -= mult;
}

/**
 * Creates the reserve for a new entry: paid by the active sponsor of the owner (begin/end sandwich) or by the owner.
 * For a new account, `owner` is the new account itself. Mutates the records; the caller then creates the entry.
 */
export function createEntryWithPossibleSponsorship(
  ltx: LedgerTxn,
  header: HeaderView,
  entry: ReserveEntry,
  owner: AccountRecord,
): SponsorshipResult {
  const mult = multiplier(entry);
  const isSubentry = entry.kind !== 'account';
  const sponsorship = loadSponsorship(ltx, owner.id);
  if (sponsorship) {
    if (isSubentry && tooManySubEntries(owner, mult)) return 'TOO_MANY_SUBENTRIES';
    const sponsoring = loadAccountForWrite(ltx, sponsorship.sponsoring);
    const res = canEstablish(header, sponsoring, mult);
    if (res !== 'SUCCESS') return res;
    if (isSubentry) owner.numSubEntries += mult;
    establish(entry, sponsoring, owner);
    return 'SUCCESS';
  }
  if (isSubentry) {
    if (tooManySubEntries(owner, mult)) return 'TOO_MANY_SUBENTRIES';
    if (availableBalance(header, owner) < BigInt(mult) * header.baseReserve) return 'LOW_RESERVE';
    owner.numSubEntries += mult;
    return 'SUCCESS';
  }
  // A new account pays its own two base reserves from its starting balance.
  return owner.balance < minBalance(header, owner) ? 'LOW_RESERVE' : 'SUCCESS';
}

/** Releases an entry's reserve (from its sponsor or its owner) before the entry is erased. */
export function removeEntryWithPossibleSponsorship(ltx: LedgerTxn, entry: ReserveEntry, owner: AccountRecord): void {
  if (entry.sponsor) {
    const sponsoring = entry.sponsor === owner.id ? owner : loadAccountForWrite(ltx, entry.sponsor);
    if (entry.kind !== 'account') owner.numSubEntries -= multiplier(entry);
    removeSponsorship(entry, sponsoring, owner);
    return;
  }
  if (entry.kind !== 'account') owner.numSubEntries -= multiplier(entry);
}

/** Adds the reserve of a new signer (already inserted at `index` with sponsor null). */
export function createSignerWithPossibleSponsorship(
  ltx: LedgerTxn,
  header: HeaderView,
  acc: AccountRecord,
  index: number,
): SponsorshipResult {
  const sponsorship = loadSponsorship(ltx, acc.id);
  if (sponsorship) {
    if (tooManySubEntries(acc, 1)) return 'TOO_MANY_SUBENTRIES';
    const sponsoring = loadAccountForWrite(ltx, sponsorship.sponsoring);
    const res = canEstablish(header, sponsoring, 1);
    if (res !== 'SUCCESS') return res;
    acc.numSubEntries += 1;
    establishSigner(acc, index, sponsoring);
    return 'SUCCESS';
  }
  if (tooManySubEntries(acc, 1)) return 'TOO_MANY_SUBENTRIES';
  if (availableBalance(header, acc) < header.baseReserve) return 'LOW_RESERVE';
  acc.numSubEntries += 1;
  return 'SUCCESS';
}

function establishSigner(acc: AccountRecord, index: number, sponsoring: AccountRecord): void {
  const signer = acc.signers[index] as SignerRecord;
  prepareExtV2(acc);
  prepareExtV2(sponsoring);
  signer.sponsor = sponsoring.id;
  acc.numSponsored += 1;
  sponsoring.numSponsoring += 1;
}

/** Removes the signer at `index`, releasing its reserve from its sponsor or the account. */
export function removeSignerWithPossibleSponsorship(ltx: LedgerTxn, acc: AccountRecord, index: number): void {
  const signer = acc.signers[index];
  if (!signer) throw new Error('no such signer');
  if (signer.sponsor) {
    const sponsoring = signer.sponsor === acc.id ? acc : loadAccountForWrite(ltx, signer.sponsor);
    sponsoring.numSponsoring -= 1;
    acc.numSponsored -= 1;
  }
  acc.numSubEntries -= 1;
  acc.signers.splice(index, 1);
}

// ---- revokeSponsorship helpers (RevokeSponsorshipOpFrame) ------------------------------------------------------

export function establishEntrySponsorship(
  header: HeaderView,
  entry: ReserveEntry,
  sponsoring: AccountRecord,
  sponsored: AccountRecord,
): SponsorshipResult {
  const res = canEstablish(header, sponsoring, multiplier(entry));
  if (res !== 'SUCCESS') return res;
  establish(entry, sponsoring, sponsored);
  return 'SUCCESS';
}

export function removeEntrySponsorshipToOwner(
  header: HeaderView,
  entry: ReserveEntry,
  sponsoring: AccountRecord,
  sponsored: AccountRecord,
): SponsorshipResult {
  // The owner takes the reserve over, so it must be able to afford it.
  if (availableBalance(header, sponsored) < BigInt(multiplier(entry)) * header.baseReserve) return 'LOW_RESERVE';
  removeSponsorship(entry, sponsoring, sponsored);
  return 'SUCCESS';
}

export function transferEntrySponsorship(
  header: HeaderView,
  entry: ReserveEntry,
  oldSponsoring: AccountRecord,
  newSponsoring: AccountRecord,
): SponsorshipResult {
  const mult = multiplier(entry);
  const res = canEstablish(header, newSponsoring, mult);
  if (res !== 'SUCCESS') return res;
  if (entry.sponsor !== oldSponsoring.id) throw new Error('sponsorship does not match');
  entry.sponsor = newSponsoring.id;
  prepareExtV2(newSponsoring);
  newSponsoring.numSponsoring += mult;
  oldSponsoring.numSponsoring -= mult;
  return 'SUCCESS';
}

export function establishSignerSponsorship(
  header: HeaderView,
  acc: AccountRecord,
  index: number,
  sponsoring: AccountRecord,
): SponsorshipResult {
  const res = canEstablish(header, sponsoring, 1);
  if (res !== 'SUCCESS') return res;
  establishSigner(acc, index, sponsoring);
  return 'SUCCESS';
}

export function removeSignerSponsorshipToOwner(
  header: HeaderView,
  acc: AccountRecord,
  index: number,
  sponsoring: AccountRecord,
): SponsorshipResult {
  if (availableBalance(header, acc) < header.baseReserve) return 'LOW_RESERVE';
  const signer = acc.signers[index] as SignerRecord;
  signer.sponsor = null;
  acc.numSponsored -= 1;
  sponsoring.numSponsoring -= 1;
  return 'SUCCESS';
}

export function transferSignerSponsorship(
  header: HeaderView,
  acc: AccountRecord,
  index: number,
  oldSponsoring: AccountRecord,
  newSponsoring: AccountRecord,
): SponsorshipResult {
  const res = canEstablish(header, newSponsoring, 1);
  if (res !== 'SUCCESS') return res;
  const signer = acc.signers[index] as SignerRecord;
  signer.sponsor = newSponsoring.id;
  prepareExtV2(newSponsoring);
  newSponsoring.numSponsoring += 1;
  oldSponsoring.numSponsoring -= 1;
  return 'SUCCESS';
}
