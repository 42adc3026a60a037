// The end of every end-user sign-in (email code, Google, GitHub, the user's own Stellar wallet): the same steps whatever the provider, as the
// product does them. The user is found or created (a verified email links a new provider to its user), the user's
// wallet on the app's network is found or created through the custody hook (funded by the app's mode there), and an
// SDK session is started, bound to the DPoP key of the sign-in request's proof, with the app's token lifetimes.
import type { Knex } from 'knex';
import type { Deps } from '../deps';
import { withTx } from '../../infra/db/database';
import type { App } from '../apps/store';
import { tokensView } from '../operators/signIn';
import { type SessionTokens, sessionServiceFor } from '../sessions/sessions';
import { ensureUserWallet, type WalletView } from '../funding/userWallets';
import { recordSessionClient, userSessionPolicy, type SessionClient } from './userSessions';
import { findOrCreateUser, recordSignIn, type User, type UserIdentity } from './users';

export type { UserIdentity } from './users';

/** What a sign-in needs of Deps: the database, the clock, the session keys, and what the wallet hook needs. */
export type UserSignInDeps = Pick<Deps, 'db' | 'clock' | 'secrets' | 'sessionSettings'> &
  Parameters<typeof ensureUserWallet>[0];

export interface UserSignInResult {
  tokens: SessionTokens;
  user: User;
  wallet: WalletView;
}

export async function completeUserSignIn(
  deps: UserSignInDeps,
  input: {
    app: App;
    identity: UserIdentity;
    jkt: string;
    client?: SessionClient;
    /** The user's wallet when it is not a custodial one made here (the account of the user's own Stellar wallet). */
    wallet?: (userId: string) => Promise<WalletView>;
    /** Runs in the session's transaction first (a SEP-10 challenge used up together with the session it starts). */
    inSessionTransaction?: (trx: Knex) => Promise<void>;
  },
): Promise<UserSignInResult> {
  // 1. the user (created at the first sign-in, safely under concurrent first sign-ins)
  const found = await findOrCreateUser(deps.db, {
    appId: input.app.id,
    identity: input.identity,
    now: deps.clock.now(),
  });
  // 2. the wallet, before any session: when it fails (503) nothing was issued and the same sign-in can be retried
  const wallet = input.wallet
    ? await input.wallet(found.id)
    : await ensureUserWallet(deps, { app: input.app, userId: found.id });
  // 3. the session and the sign-in's traces, together
  const sessions = sessionServiceFor(deps);
  const now = deps.clock.now();
  return withTx(deps.db, async (trx) => {
    await input.inSessionTransaction?.(trx);
    const tokens = await sessions.start(trx, {
      audience: 'user',
      subjectId: found.id,
      appId: input.app.id,
      network: input.app.network,
      jkt: input.jkt,
      authMethod: input.identity.provider,
      policy: userSessionPolicy(input.app),
      now,
    });
    if (input.client) await recordSessionClient(trx, tokens.sessionId, input.client);
    const user = await recordSignIn(trx, found.id, input.identity.provider, now);
    return { tokens, user, wallet };
  });
}

/** The SdkSignInResult content of a sign-in. */
export function sdkSignInView(result: UserSignInResult) {
  return {
    tokens: tokensView(result.tokens),
    user: {
      userId: result.user.id,
      email: result.user.email,
      ...(result.user.externalId !== null ? { externalId: result.user.externalId } : {}),
    },
    wallet: result.wallet,
  };
}
