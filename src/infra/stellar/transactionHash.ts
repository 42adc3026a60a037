// A transaction's hash, computed once per transaction object, and signing over it.
//
// The SDK's hash() recomputes the hash on every call, and dearly: its signature base takes the transaction through
// the `tx` getter, which encodes the body to XDR and decodes it back into a defensive copy, and then encodes that copy
// again. One sponsored run asked for its two hashes five times (the inner one for its record and its signature, the
// fee-bump's for its signature, its record and the submission; once more per co-signer): 0.75 ms of a run's CPU
// against 0.47 ms with each computed once, profiled on a slow machine (bench/results/2026-12-02-transactions.md).
// Keeping the first answer is sound because the SDK's transactions are immutable: every field's setter throws, and
// only the signature list changes, which the hash does not cover (a fee-bump's hash covers its inner envelope with the
// inner signatures, but that envelope is copied into the fee-bump when it is built).
import type { FeeBumpTransaction, Keypair, Transaction } from '@stellar/stellar-sdk';

type AnyTransaction = Transaction | FeeBumpTransaction;

const hashes = new WeakMap<AnyTransaction, Buffer>();

/** The transaction's hash, the 32 bytes its signatures sign (for its network). */
export function transactionHash(tx: AnyTransaction): Buffer {
  let hash = hashes.get(tx);
  if (hash === undefined) {
    hash = Buffer.from(tx.hash());
    hashes.set(tx, hash);
  }
  return hash;
}

/** The transaction's hash in hex, as records and the RPC name it. */
export function transactionHashHex(tx: AnyTransaction): string {
  return transactionHash(tx).toString('hex');
}

/** Adds each keypair's signature to the transaction, as the SDK's sign() does, over the hash computed once. */
export function signTransaction(tx: AnyTransaction, ...keypairs: Keypair[]): void {
  const hash = transactionHash(tx);
  for (const keypair of keypairs) tx.signatures.push(keypair.signDecorated(hash));
}
