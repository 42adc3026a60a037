// SEP-10 (Stellar Web Authentication) for operators and end users: the service issues a challenge transaction signed by its own
// key, the operator's wallet signs it with the account's key(s), and the service checks it with the SDK's WebAuth
// helpers. The signing key is derived from the service secret, so every instance issues and accepts the same
// challenges and nothing is stored until a challenge is used (store.ts keeps it used until it expires).
import { Keypair, Networks, TransactionBuilder, WebAuth, type Transaction } from '@stellar/stellar-sdk';
import type { NetworkName, Sep10Settings } from '../../config';
import type { ServiceSecrets } from '../../infra/secrets/serviceSecret';
import { AppError } from '../errors';
import type { AccountSigners } from './accountSigners';

/** A challenge is valid for 15 minutes (SEP-10 allows 5 to 15): time to find and unlock a hardware wallet. */
export const CHALLENGE_TTL_SECONDS = 900;

export const DEFAULT_SEP10_SETTINGS: Sep10Settings = { homeDomain: 'localhost', network: 'testnet' };

const PASSPHRASES: Record<NetworkName, string> = { testnet: Networks.TESTNET, mainnet: Networks.PUBLIC };

/** The service's SEP-10 signing key (the challenges' source account). */
export function sep10SigningKeypair(secrets: ServiceSecrets): Keypair {
  return Keypair.fromRawEd25519Seed(secrets.derive('sep10-signing'));
}

/** A challenge that passed every check: whose it is, and what marks it used (store.ts). */
export interface VerifiedChallenge {
  account: string;
  /** Hex hash of the challenge transaction: the same whatever signatures are attached to it. */
  challengeHash: string;
  expiresAt: Date;
  /** The account exists on the ledger (its signers were read there). */
  existsOnLedger: boolean;
}

export interface Sep10 {
  networkPassphrase: string;
  /** A new challenge for `account` (a valid G-address), signed by the service: base64 envelope XDR. */
  issue(account: string): string;
  /**
   * Checks a signed challenge: issued by this service (source, signature, sequence 0, the two manageData operations,
   * domains), not expired at `now`, and signed by the account: signers reaching its medium threshold when it exists
   * on-chain, exactly its master key otherwise. Throws WALLET_AUTH_FAILED, or what `accountSigners` throws.
   * Single use is the caller's part (store.ts), in the transaction that signs the operator in.
   */
  verify(
    transaction: string,
    opts: { now: Date; accountSigners: (account: string) => Promise<AccountSigners | undefined> },
  ): Promise<VerifiedChallenge>;
}

function walletAuthFailed(message: string, cause?: unknown): AppError {
  return new AppError('WALLET_AUTH_FAILED', { message, cause });
}

/**
 * Runs a WebAuth check, turning whatever it throws into WALLET_AUTH_FAILED: the service's key and domains are valid
 * by construction, so any failure comes from the submitted transaction.
 */
function webAuth<T>(check: () => T): T {
  try {
    return check();
  } catch (err) {
    const detail = err instanceof WebAuth.InvalidChallengeError ? `: ${err.message}` : '';
    throw walletAuthFailed(`The challenge could not be verified${detail}`, err);
  }
}

/**
 * SEP-10 for one network, with the service as the web-auth domain and a home domain per challenge: operators use the
 * Dashboard's domain (createSep10), end users the app's own site (the SDK's wallet sign-in).
 */
export interface Sep10Issuer {
  networkPassphrase: string;
  issue(account: string, homeDomain: string): { transaction: string; expiresAt: Date };
  /** As Sep10.verify; the challenge's home domain must be one of `homeDomains`. */
  verify(
    transaction: string,
    opts: {
      now: Date;
      homeDomains: string[];
      accountSigners: (account: string) => Promise<AccountSigners | undefined>;
    },
  ): Promise<VerifiedChallenge>;
}

export function createSep10Issuer(
  secrets: ServiceSecrets,
  settings: { network: NetworkName; webAuthDomain: string },
): Sep10Issuer {
  const serverKeypair = sep10SigningKeypair(secrets);
  const server = serverKeypair.publicKey();
  const networkPassphrase = PASSPHRASES[settings.network];
  const webAuthDomain = settings.webAuthDomain;
  return {
    networkPassphrase,
    issue(account, homeDomain) {
      const transaction = WebAuth.buildChallengeTx(
        serverKeypair,
        account,
        homeDomain,
        CHALLENGE_TTL_SECONDS,
        networkPassphrase,
        webAuthDomain,
      );
      const { timeBounds } = TransactionBuilder.fromXDR(transaction, networkPassphrase) as Transaction;
      return { transaction, expiresAt: new Date(Number(timeBounds!.maxTime) * 1000) };
    },
    async verify(transaction, { now, homeDomains, accountSigners }) {
      // 1. issued by this service and unexpired; the SDK accepts 5 minutes past maxTime for the client's clock skew,
      // but the bounds are this service's own clock, so the contract's 900 s are enforced exactly
      const {
        tx,
        clientAccountID: account,
        matchedHomeDomain,
      } = webAuth(() => WebAuth.readChallengeTx(transaction, server, networkPassphrase, homeDomains, webAuthDomain));
      const expiresAt = new Date(Number(tx.timeBounds!.maxTime) * 1000);
      if (now.getTime() > expiresAt.getTime()) throw walletAuthFailed('The challenge has expired; ask for a new one');
      // 2. who may sign for the account (read from the chain, outside any database transaction)
      const onChain = await accountSigners(account);
      // 3. the client's signatures: every one must belong to a signer, and together reach the threshold
      webAuth(() =>
        onChain
          ? WebAuth.verifyChallengeTxThreshold(
              transaction,
              server,
              networkPassphrase,
              onChain.threshold,
              onChain.signers,
              matchedHomeDomain,
              webAuthDomain,
            )
          : WebAuth.verifyChallengeTxSigners(
              transaction,
              server,
              networkPassphrase,
              [account],
              matchedHomeDomain,
              webAuthDomain,
            ),
      );
      return {
        account,
        challengeHash: Buffer.from(tx.hash()).toString('hex'),
        expiresAt,
        existsOnLedger: onChain !== undefined,
      };
    },
  };
}

export function createSep10(secrets: ServiceSecrets, settings: Sep10Settings): Sep10 {
  // The Dashboard serves both the home domain and the authentication endpoint, so one domain fills both roles.
  const domain = settings.homeDomain;
  const issuer = createSep10Issuer(secrets, { network: settings.network, webAuthDomain: domain });
  return {
    networkPassphrase: issuer.networkPassphrase,
    issue: (account) => issuer.issue(account, domain).transaction,
    verify: (transaction, opts) => issuer.verify(transaction, { ...opts, homeDomains: [domain] }),
  };
}
