import { StrKey } from '@stellar/stellar-sdk';
import { requestActor } from '../../domain/audit/auditLog';
import { findApp } from '../../domain/apps/store';
import { AppError } from '../../domain/errors';
import { fundUserWallet, type FundingDeps } from '../../domain/funding/funding';
import { findWalletByPublicKey } from '../../domain/wallets/store';
import type { Handler } from '../types';

/** Activates (funds) an unfunded user wallet of the secret key's app: the sponsored activation of funding.ts. */
export function fundWallet(deps: FundingDeps): Handler<'fundWallet'> {
  return async (req) => {
    // 1. the key's app and network (the gate verified the secret key)
    const { appId, network } = req.auth.apiKey!;
    // 2. validate: the pattern checks the form, the StrKey checksum catches a mistyped address
    const { publicKey } = req.body;
    if (!StrKey.isValidEd25519PublicKey(publicKey)) {
      throw new AppError('VALIDATION_ERROR', {
        message: 'Request validation failed',
        details: { fieldErrors: { publicKey: ['must be a Stellar G-address (checksum)'] } },
      });
    }
    // 3. authorize: a user wallet of this app on the key's network; anything else is not the app's to fund
    const wallet = await findWalletByPublicKey(deps.db, publicKey);
    const app =
      wallet && wallet.appId === appId && wallet.network === network && wallet.userId !== null
        ? await findApp(deps.db, appId)
        : undefined;
    if (!wallet || !app)
      throw new AppError('WALLET_NOT_FOUND', { message: 'No wallet of this app has that public key' });
    // 4. fund (409 when already funded, 402 when the funding wallet is short, 503 on chain trouble)
    const content = await fundUserWallet(deps, {
      app,
      wallet,
      trigger: 'server_api',
      actor: requestActor(req.auth),
      ip: req.ip,
    });
    // 5. respond
    return { content };
  };
}
