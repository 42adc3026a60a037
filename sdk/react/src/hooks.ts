// Hooks over the client's state machines. Each reads a store with useSyncExternalStore (tear-free under concurrent
// rendering; the server snapshot is the initial state) and hands back the actions that drive it.
import { useCallback, useEffect, useSyncExternalStore } from 'react';
import type {
  AuthState,
  BalanceState,
  HistoryParams,
  HistoryState,
  Onboard,
  Readable,
  SessionInfo,
  TxState,
} from '@onboard/core';
import { useOnboard } from './context.js';

/** The current state of a client store, re-rendering on change. */
export function useStore<S>(store: Readable<S>): S {
  const subscribe = useCallback((onChange: () => void) => store.subscribe(() => onChange()), [store]);
  return useSyncExternalStore(subscribe, store.get, store.get);
}

export interface AuthHook {
  state: AuthState;
  beginEmailLogin: Onboard['beginEmailLogin'];
  sendEmailCode: Onboard['sendEmailCode'];
  verifyEmailCode: Onboard['verifyEmailCode'];
  loginWithOAuth: Onboard['loginWithOAuth'];
  loginWithWallet: Onboard['loginWithWallet'];
  cancelLogin: Onboard['cancelLogin'];
  logout: Onboard['logout'];
}

/** The auth state and the sign-in flow's steps. */
export function useAuth(): AuthHook {
  const client = useOnboard();
  const state: AuthState = useStore(client.auth);
  return {
    state,
    beginEmailLogin: client.beginEmailLogin,
    sendEmailCode: client.sendEmailCode,
    verifyEmailCode: client.verifyEmailCode,
    loginWithOAuth: client.loginWithOAuth,
    loginWithWallet: client.loginWithWallet,
    cancelLogin: client.cancelLogin,
    logout: client.logout,
  };
}

/** The signed-in session (user, wallet, expiry), or undefined. */
export function useSession(): SessionInfo | undefined {
  const { state } = useAuth();
  return state.step === 'authenticated' ? state.session : undefined;
}

/** The session's wallet, and a refresh (e.g. to see `funded` turn true in Deferred funding). */
export function useWallet(): { wallet: SessionInfo['wallet'] | undefined; refresh: Onboard['getWallet'] } {
  const client = useOnboard();
  const session = useSession();
  return { wallet: session?.wallet, refresh: client.getWallet };
}

/** Balances, loaded once signed in (unless `auto: false`), and a refresh. */
export function useBalances(options: { auto?: boolean } = {}): {
  state: BalanceState;
  refresh: Onboard['refreshBalances'];
} {
  const client = useOnboard();
  const state: BalanceState = useStore(client.balances);
  const session = useSession();
  const auto = options.auto ?? true;
  useEffect(() => {
    if (auto && session && client.balances.get().step === 'idle') void client.refreshBalances();
  }, [auto, session, client]);
  return { state, refresh: client.refreshBalances };
}

/** The history, loaded once signed in with `params` (unless `auto: false`), and load(params) for other pages. */
export function useHistory(
  params: HistoryParams = { limit: 10 },
  options: { auto?: boolean } = {},
): { state: HistoryState; load: Onboard['loadHistory'] } {
  const client = useOnboard();
  const state: HistoryState = useStore(client.history);
  const session = useSession();
  const auto = options.auto ?? true;
  const key = JSON.stringify(params);
  useEffect(() => {
    if (auto && session) void client.loadHistory(JSON.parse(key) as HistoryParams);
  }, [auto, session, client, key]);
  return { state, load: client.loadHistory };
}

export interface TransactionHook {
  state: TxState;
  build: Onboard['buildTx'];
  sign: Onboard['signTx'];
  submit: Onboard['submitTx'];
  signAndSubmit: Onboard['signAndSubmitTx'];
  run: Onboard['runTx'];
  wait: Onboard['waitForTx'];
  reset: Onboard['resetTransaction'];
}

/** The transaction in progress and the steps that drive it. */
export function useTransaction(): TransactionHook {
  const client = useOnboard();
  const state: TxState = useStore(client.transaction);
  return {
    state,
    build: client.buildTx,
    sign: client.signTx,
    submit: client.submitTx,
    signAndSubmit: client.signAndSubmitTx,
    run: client.runTx,
    wait: client.waitForTx,
    reset: client.resetTransaction,
  };
}
