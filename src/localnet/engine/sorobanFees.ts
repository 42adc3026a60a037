// Soroban resource fees, shaped like the network's (CAP-46-07): a non-refundable part charged on the declared
// resources (instructions, entries read from disk, entries and bytes written, transaction size) and a refundable
// part for rent of the entries a transaction creates. The rates are localnet's own fixed schedule, of the same order
// as the public networks' (their settings change by vote); simulateTransaction and the submission checks use the same
// functions, so a prepared transaction always passes.

/** Per-resource rates in stroops. */
export const SOROBAN_FEE_RATES = {
  per10kInstructions: 25n,
  perDiskReadEntry: 6_250n,
  perWriteEntry: 10_000n,
  perKbDiskRead: 1_786n,
  perKbWrite: 11_800n,
  /** Bandwidth plus history archive, per KB of envelope. */
  perKbTxSize: 1_624n + 16_235n,
  /** Rent of a new entry, per KB of entry for its whole initial lifetime. */
  perKbRent: 20_000n,
} as const;

/** The network's per-transaction instruction limit: a declaration above it is txSOROBAN_INVALID. */
export const TX_MAX_INSTRUCTIONS = 100_000_000;

export interface DeclaredResources {
  instructions: number;
  diskReadBytes: number;
  writeBytes: number;
  /** Footprint entries read from disk (classic entries: accounts, trust lines). */
  diskReadEntries: number;
  /** Read-write footprint entries. */
  writeEntries: number;
}

/** Classic entries are read from disk (protocol 23); Soroban entries live in memory and cost no disk read. */
export function isDiskReadKey(key: { type: number }): boolean {
  return key.type === 0 || key.type === 1;
}

const perKb = (bytes: number, rate: bigint): bigint => (BigInt(bytes) * rate + 1023n) / 1024n;

/** The fee the declared resources cost whatever the transaction does (core's non_refundable_fee). */
export function nonRefundableResourceFee(r: DeclaredResources, envelopeSize: number): bigint {
  const R = SOROBAN_FEE_RATES;
  return (
    (BigInt(r.instructions) * R.per10kInstructions + 9_999n) / 10_000n +
    BigInt(r.diskReadEntries) * R.perDiskReadEntry +
    BigInt(r.writeEntries) * R.perWriteEntry +
    perKb(r.diskReadBytes, R.perKbDiskRead) +
    perKb(r.writeBytes, R.perKbWrite) +
    perKb(envelopeSize, R.perKbTxSize)
  );
}

/** Rent of the entries created (bytes of each new entry). */
export function rentFee(newEntryBytes: readonly number[]): bigint {
  return newEntryBytes.reduce((sum, bytes) => sum + perKb(bytes, SOROBAN_FEE_RATES.perKbRent), 0n);
}
