// Ledger state as plain records, plus a nested-transaction overlay (the counterpart of stellar-core's LedgerTxn):
// every transaction and every operation runs in its own LedgerTxn, so a failure rolls back by simply not committing,
// and the meta's ledger-entry changes are the overlay's delta against its parent.

/** A signer of an account. key is the raw signer key (hex); payload only for ed25519 signed-payload signers. */
export interface SignerRecord {
  /** SignerKeyType: 0 ed25519, 1 preAuthTx, 2 hashX, 3 ed25519SignedPayload. */
  type: 0 | 1 | 2 | 3;
  keyHex: string;
  payloadHex?: string;
  weight: number;
  /** AccountEntryExtensionV2.signerSponsoringIDs entry for this signer. */
  sponsor: string | null;
}

interface LedgerEntryCommon {
  lastModified: number;
  /** LedgerEntry.ext.v1.sponsoringID (G-address) when a sponsor pays this entry's reserve. */
  sponsor: string | null;
  /** Whether LedgerEntry.ext is v1 (core keeps v1 once a sponsorship was ever set on the entry). */
  extV1: boolean;
}

export interface AccountRecord extends LedgerEntryCommon {
  kind: 'account';
  id: string;
  balance: bigint;
  seqNum: bigint;
  numSubEntries: number;
  inflationDest: string | null;
  flags: number;
  homeDomain: string;
  /** [master weight, low, medium, high] */
  thresholds: [number, number, number, number];
  /** Kept sorted by signer key, as core does. */
  signers: SignerRecord[];
  buyingLiabilities: bigint;
  sellingLiabilities: bigint;
  numSponsored: number;
  numSponsoring: number;
  seqLedger: number;
  seqTime: bigint;
  /** Highest AccountEntry extension present (core only ever upgrades it). */
  extVersion: 0 | 1 | 2 | 3;
}

/** A credit asset; code is the trimmed ASCII code (1-4 chars = alphanum4, 5-12 = alphanum12). */
export interface CreditAsset {
  code: string;
  issuer: string;
}

export interface TrustlineRecord extends LedgerEntryCommon {
  kind: 'trustline';
  account: string;
  asset: CreditAsset;
  balance: bigint;
  limit: bigint;
  flags: number;
  buyingLiabilities: bigint;
  sellingLiabilities: bigint;
  extVersion: 0 | 1;
}

export interface DataRecord extends LedgerEntryCommon {
  kind: 'data';
  account: string;
  name: string;
  value: Uint8Array;
}

/** Contract data/code entries are stored as their XDR (they are only installed, never executed). */
export interface ContractRecord {
  kind: 'contract';
  lastModified: number;
  keyXdr: string;
  dataXdr: string;
  liveUntil: number;
}

/** Tx-scoped: "S begins sponsoring future reserves of sponsored" (core's InternalLedgerEntry SPONSORSHIP). */
export interface SponsorshipRecord {
  kind: 'sponsorship';
  sponsored: string;
  sponsoring: string;
}

/** Tx-scoped: how many begin-sponsoring sandwiches an account has open (core's SPONSORSHIP_COUNTER). */
export interface SponsorshipCounterRecord {
  kind: 'sponsorshipCounter';
  sponsoring: string;
  count: number;
}

export type LedgerRecord = AccountRecord | TrustlineRecord | DataRecord | ContractRecord;
export type StateRecord = LedgerRecord | SponsorshipRecord | SponsorshipCounterRecord;

// ---- keys ---------------------------------------------------------------------------------------------------

export const accountKey = (id: string): string => `A${id}`;
export const trustlineKey = (account: string, asset: CreditAsset): string =>
  `T${account}|${asset.code.length <= 4 ? 1 : 2}|${asset.code}|${asset.issuer}`;
/** Trustline key from an XDR asset type (used when a LedgerKey names an alphanum type explicitly). */
export const trustlineKeyTyped = (account: string, type: number, code: string, issuer: string): string =>
  `T${account}|${type}|${code}|${issuer}`;
export const dataKey = (account: string, name: string): string => `D${account}|${name}`;
export const contractKey = (keyXdr: string): string => `C${keyXdr}`;
export const sponsorshipKey = (sponsored: string): string => `S${sponsored}`;
export const sponsorshipCounterKey = (sponsoring: string): string => `N${sponsoring}`;

export function keyOf(record: StateRecord): string {
  switch (record.kind) {
    case 'account':
      return accountKey(record.id);
    case 'trustline':
      return trustlineKey(record.account, record.asset);
    case 'data':
      return dataKey(record.account, record.name);
    case 'contract':
      return contractKey(record.keyXdr);
    case 'sponsorship':
      return sponsorshipKey(record.sponsored);
    case 'sponsorshipCounter':
      return sponsorshipCounterKey(record.sponsoring);
  }
}

export function isLedgerRecord(r: StateRecord): r is LedgerRecord {
  return r.kind === 'account' || r.kind === 'trustline' || r.kind === 'data' || r.kind === 'contract';
}

export function cloneRecord<T extends StateRecord>(r: T): T {
  switch (r.kind) {
    case 'account':
      return {
        ...r,
        thresholds: [...r.thresholds] as [number, number, number, number],
        signers: r.signers.map((s) => ({ ...s })),
      };
    case 'trustline':
      return { ...r, asset: { ...r.asset } };
    default:
      return { ...r };
  }
}

// ---- overlays -------------------------------------------------------------------------------------------------

export interface StateReader {
  get(key: string): StateRecord | undefined;
}

interface StateWriter extends StateReader {
  put(key: string, value: StateRecord | null): void;
}

/** The committed state of the last closed ledger. */
export class RootState implements StateWriter {
  readonly entries = new Map<string, StateRecord>();

  get(key: string): StateRecord | undefined {
    return this.entries.get(key);
  }

  put(key: string, value: StateRecord | null): void {
    if (value) this.entries.set(key, value);
    else this.entries.delete(key);
  }
}

export interface EntryChange {
  key: string;
  before: LedgerRecord | undefined;
  after: LedgerRecord | undefined;
}

/**
 * A nested transaction over a parent state. Reads fall through to the parent; `load` returns a private copy that
 * may be mutated (and bumps lastModifiedLedgerSeq, as core does for every entry loaded for writing).
 * Records returned by `get` are shared and must never be mutated.
 */
export class LedgerTxn implements StateWriter {
  private readonly delta = new Map<string, StateRecord | null>();
  private closed = false;

  constructor(
    private readonly parent: StateWriter,
    readonly ledgerSeq: number,
  ) {}

  get(key: string): StateRecord | undefined {
    if (this.delta.has(key)) return this.delta.get(key) ?? undefined;
    return this.parent.get(key);
  }

  put(key: string, value: StateRecord | null): void {
    this.delta.set(key, value);
  }

  /** Mutable access to an existing record (copy-on-write within this transaction). */
  load<T extends StateRecord>(key: string): T | undefined {
    const own = this.delta.get(key);
    if (own) return own as T;
    if (own === null) return undefined;
    const current = this.parent.get(key);
    if (!current) return undefined;
    const copy = cloneRecord(current);
    if (isLedgerRecord(copy)) copy.lastModified = this.ledgerSeq;
    this.delta.set(key, copy);
    return copy as T;
  }

  create<T extends StateRecord>(record: T): T {
    if (isLedgerRecord(record)) record.lastModified = this.ledgerSeq;
    this.delta.set(keyOf(record), record);
    return record;
  }

  erase(key: string): void {
    this.delta.set(key, null);
  }

  /** Whether any tx-scoped sponsorship record is still open (a begin without its end: txBAD_SPONSORSHIP). */
  hasOpenSponsorship(): boolean {
    for (const [key, value] of this.delta) {
      if (value && key.startsWith('S')) return true;
    }
    return false;
  }

  /** Ledger-entry changes against the parent, in first-touch order (tx-scoped records are not ledger entries). */
  changes(): EntryChange[] {
    const out: EntryChange[] = [];
    for (const [key, value] of this.delta) {
      const prior = this.parent.get(key);
      const before = prior && isLedgerRecord(prior) ? prior : undefined;
      const after = value && isLedgerRecord(value) ? value : undefined;
      if (before || after) out.push({ key, before, after });
    }
    return out;
  }

  commit(): void {
    if (this.closed) throw new Error('LedgerTxn already closed');
    this.closed = true;
    for (const [key, value] of this.delta) this.parent.put(key, value);
  }
}
