// The user's own Stellar wallet, as the client library sees it: any wallet that can name its account and sign a
// transaction envelope (a browser extension, a hardware wallet, a mobile wallet through a connector, or the dev
// wallet of ./devWallet.ts). Its shape follows what wallet kits offer (address, signTransaction with the network
// passphrase), so an adapter is a few lines over one.

export interface WalletAdapter {
  /** A stable id, kept with the session so the adapter can be found again after a reload (e.g. 'freighter'). */
  readonly id: string;
  /** The wallet's name, for people. */
  readonly name: string;
  /** The account to sign in with (may ask the user to connect or choose). */
  getAddress(): Promise<string>;
  /** Signs a base64 TransactionEnvelope for `networkPassphrase` with `address`'s key; answers the signed envelope. */
  signTransaction(xdr: string, opts: { networkPassphrase: string; address: string }): Promise<string>;
}
