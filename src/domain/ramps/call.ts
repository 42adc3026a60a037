// What a provider call is given (providers.ts RampCall): the app, its unsealed credentials for the provider, the
// user with their wallet and KYC status, and `signChallenge`, the one use of the user's key a provider may ask for: a
// SEP-10 challenge, checked to be one (WebAuth.readChallengeTx: sequence 0, manage_data operations only, signed by
// the anchor's key, within its time bounds) before it is signed, so a provider can never have a payment signed.
import { TransactionBuilder, WebAuth } from '@stellar/stellar-sdk';
import type { App } from '../apps/store';
import type { AuditActor } from '../audit/auditLog';
import { userKycStatus } from '../kyc/verifications';
import { withWalletKeypair } from '../wallets/custody';
import type { WalletRecord } from '../wallets/store';
import { RampRefusal, type RampCall, type RampDeps } from './providers';
import { rampCredentials } from './settings';

export interface RampCaller {
  app: App;
  userId: string;
  wallet: WalletRecord;
  actor: AuditActor;
  ip?: string;
}

export async function rampCallFor(deps: RampDeps, caller: RampCaller, providerId: string): Promise<RampCall> {
  const [credentials, kyc, user] = await Promise.all([
    rampCredentials(deps, caller.app, providerId),
    userKycStatus(deps, { appId: caller.app.id, userId: caller.userId }),
    deps.db('users').where({ id: caller.userId }).first<{ email: string | null } | undefined>('email'),
  ]);
  return {
    app: caller.app,
    network: caller.wallet.network,
    credentials,
    now: deps.clock.now(),
    user: { userId: caller.userId, email: user?.email ?? null, wallet: caller.wallet, kycStatus: kyc.status },
    async signChallenge(challengeXdr, networkPassphrase, homeDomain, serverAccount, webAuthDomain) {
      if (caller.wallet.custody !== 'custodial')
        throw new RampRefusal({
          kind: 'wallet_unsupported',
          message: 'This provider signs in with the wallet key, which the service holds only for custodial wallets',
        });
      let checked;
      try {
        checked = WebAuth.readChallengeTx(challengeXdr, serverAccount, networkPassphrase, homeDomain, webAuthDomain);
      } catch (err) {
        throw new Error(`the anchor's SEP-10 challenge is not valid: ${(err as Error).message}`, { cause: err });
      }
      if (checked.clientAccountID !== caller.wallet.publicKey)
        throw new Error("the anchor's SEP-10 challenge names another account");
      const tx = TransactionBuilder.fromXDR(challengeXdr, networkPassphrase);
      await withWalletKeypair(
        deps,
        {
          walletId: caller.wallet.id,
          purpose: 'ramp.sep10',
          actor: caller.actor,
          ...(caller.ip !== undefined ? { ip: caller.ip } : {}),
        },
        (keypair) => tx.sign(keypair),
      );
      return tx.toXDR();
    },
  };
}
