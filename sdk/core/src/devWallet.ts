// A development wallet: a local Stellar keypair behind the WalletAdapter interface, so tests, demos and the example
// app can sign in with "an external wallet" without a browser extension. Never for real funds: the secret lives in
// the page (or wherever the app keeps it). Its entry is `@onboard/core/dev-wallet`; it brings @stellar/stellar-sdk
// (an optional peer of the package), which the rest of the library does not need.
import { Keypair, TransactionBuilder } from '@stellar/stellar-sdk';
import type { WalletAdapter } from './walletAdapter.js';

export interface DevWallet extends WalletAdapter {
  readonly publicKey: string;
  /** The secret seed (S...), to keep the same dev account across reloads. */
  readonly secret: string;
}

/** A dev wallet for `secret` (S...), or for a new random keypair. */
export function createDevWallet(secret?: string): DevWallet {
  const keypair = secret ? Keypair.fromSecret(secret) : Keypair.random();
  return {
    id: 'dev',
    name: 'Development wallet (local key)',
    publicKey: keypair.publicKey(),
    secret: keypair.secret(),
    getAddress: async () => keypair.publicKey(),
    async signTransaction(xdr, { networkPassphrase, address }) {
      if (address !== keypair.publicKey())
        throw new Error(`this dev wallet holds ${keypair.publicKey()}, not ${address}`);
      const tx = TransactionBuilder.fromXDR(xdr, networkPassphrase);
      tx.sign(keypair);
      return tx.toXDR();
    },
  };
}
