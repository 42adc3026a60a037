// The Stellar wallets an operator can sign in with (SEP-10), behind the client library's WalletAdapter interface:
// Freighter, the browser extension, through its own API package; and in development a local signer whose key is
// kept in this browser (the service offers it only while localnet plays testnet). Each is loaded only when chosen, so
// the sign-in page does not carry @stellar/stellar-sdk.
import type { WalletAdapter } from '@onboard/core';

/** Freighter's answers carry `error` typed from a module its package does not ship; this is its shape. */
type FreighterAnswer = { error?: { message?: string } };
const freighterError = (answer: unknown) => (answer as FreighterAnswer).error;

const DEV_SIGNER_KEY = 'onboard:dashboard:dev-signer';

/** Freighter, when the extension is installed (it answers isConnected). */
export async function freighterAdapter(): Promise<WalletAdapter | undefined> {
  const freighter = await import('@stellar/freighter-api');
  const connected = await freighter.isConnected().catch(() => ({ isConnected: false }));
  if (!connected.isConnected) return undefined;
  return {
    id: 'freighter',
    name: 'Freighter',
    async getAddress() {
      const access = await freighter.requestAccess();
      const error = freighterError(access);
      if (error || !access.address) throw new Error(error?.message ?? 'Freighter gave no account');
      return access.address;
    },
    async signTransaction(xdr, { networkPassphrase, address }) {
      const signed = await freighter.signTransaction(xdr, { networkPassphrase, address });
      const error = freighterError(signed);
      if (error) throw new Error(error.message ?? 'Freighter did not sign');
      return signed.signedTxXdr;
    },
  };
}

/** The development signer: one local key per browser, kept so the same operator signs in each time. */
export async function devSignerAdapter(): Promise<WalletAdapter & { publicKey: string }> {
  const { createDevWallet } = await import('@onboard/core/dev-wallet');
  const saved = localStorage.getItem(DEV_SIGNER_KEY) ?? undefined;
  const wallet = createDevWallet(saved);
  if (!saved) localStorage.setItem(DEV_SIGNER_KEY, wallet.secret);
  return { ...wallet, name: 'Development signer (a local key in this browser)' };
}
