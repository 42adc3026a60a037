// Hooks over the client's state machines. Each reads a store with useSyncExternalStore (tear-free under concurrent
// rendering; the server snapshot is the initial state) and hands back the actions that drive it. The distribution
// hook keeps its state in the component (the client has no store for it), in the same step-shaped states.
import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import {
  distribution,
  type AuthState,
  type BalanceState,
  type HistoryParams,
  type HistoryState,
  type Onboard,
  type Readable,
  type SessionInfo,
  type TxState,
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

export type DistributionRulesState =
  | { step: 'idle' }
  | { step: 'loading' }
  | { step: 'loaded'; rules: distribution.DistributionRuleView[] }
  | { step: 'error'; code: distribution.DistributionError['code']; message?: string };

/** One rule's claim: in flight, or the last claim's outcome. */
export type DistributionClaimState =
  | { step: 'claiming' }
  | { step: 'claimed'; claim: distribution.DistributionClaimed }
  | {
      step: 'error';
      code: distribution.DistributionError['code'];
      message?: string;
      /** Stellar's result code, on TX_SUBMIT_FAILED. */
      resultCode?: string;
      /** The key the claim was sent with: claim again with it after a NETWORK_ERROR and it cannot pay twice. */
      idempotencyKey?: string;
    };

export interface DistributionRulesHook {
  state: DistributionRulesState;
  /** The rules of the last load: kept while the list is read again (or failed to be), [] before the first load. */
  rules: distribution.DistributionRuleView[];
  /** Each rule's claim by ruleId: `claiming` while in flight, then its outcome. */
  claims: Readonly<Record<string, DistributionClaimState>>;
  /**
   * Claims the rule, then reads the list again (claimable, reason and counts change). A second claim of a rule whose
   * claim is in flight answers the first one's outcome: a double click claims once.
   */
  claim(ruleId: string, options?: { idempotencyKey?: string }): Promise<distribution.DistributionClaimResult>;
  /** Reads the list again (a newer read drops an older one's answer). */
  refresh(): Promise<distribution.DistributionRulesResult>;
}

interface DistributionData {
  /** The session the data belongs to: another session (another user, a sign-out) never sees it. */
  owner: string | undefined;
  state: DistributionRulesState;
  rules: distribution.DistributionRuleView[];
  claims: Record<string, DistributionClaimState>;
}

const noDistributionData = (owner: string | undefined): DistributionData => ({
  owner,
  state: { step: 'idle' },
  rules: [],
  claims: {},
});

function claimStateOf(out: distribution.DistributionClaimResult): DistributionClaimState {
  if (out.status !== 'error') return { step: 'claimed', claim: out };
  return {
    step: 'error',
    code: out.code,
    ...(out.message !== undefined ? { message: out.message } : {}),
    ...(out.resultCode !== undefined ? { resultCode: out.resultCode } : {}),
    ...(out.idempotencyKey !== undefined ? { idempotencyKey: out.idempotencyKey } : {}),
  };
}

/**
 * The app's token distribution rules for the signed-in user (loaded once signed in, unless `auto: false`), each rule's
 * claim state, and claim(ruleId). Outcomes, never throws; a change of session resets it all.
 */
export function useDistributionRules(options: { auto?: boolean } = {}): DistributionRulesHook {
  const client = useOnboard();
  const sessionId = useSession()?.sessionId;
  const auto = options.auto ?? true;
  const [data, setData] = useState<DistributionData>(() => noDistributionData(sessionId));
  const latestLoad = useRef(0);
  const inFlight = useRef(new Map<string, Promise<distribution.DistributionClaimResult>>());

  /** Applies `change` to the data of `owner`, unless the session changed since (a late answer is dropped). */
  const update = useCallback(
    (owner: string | undefined, change: (d: DistributionData) => DistributionData) => {
      if (client.session?.sessionId !== owner) return;
      setData((d) => change(d.owner === owner ? d : noDistributionData(owner)));
    },
    [client],
  );

  const refresh = useCallback(async (): Promise<distribution.DistributionRulesResult> => {
    const owner = client.session?.sessionId;
    const request = ++latestLoad.current;
    update(owner, (d) => ({ ...d, state: { step: 'loading' } }));
    const out = await distribution.listRules(client.api);
    if (request === latestLoad.current) {
      update(owner, (d) =>
        out.status === 'listed'
          ? { ...d, state: { step: 'loaded', rules: out.rules }, rules: out.rules }
          : {
              ...d,
              state: { step: 'error', code: out.code, ...(out.message !== undefined ? { message: out.message } : {}) },
            },
      );
    }
    return out;
  }, [client, update]);

  const claim = useCallback(
    (ruleId: string, claimOptions: { idempotencyKey?: string } = {}) => {
      const owner = client.session?.sessionId;
      const key = `${owner ?? ''} ${ruleId}`;
      const running = inFlight.current.get(key);
      if (running) return running;
      const run = (async () => {
        update(owner, (d) => ({ ...d, claims: { ...d.claims, [ruleId]: { step: 'claiming' } } }));
        const out = await distribution.claim(client.api, { ruleId, ...claimOptions });
        update(owner, (d) => ({ ...d, claims: { ...d.claims, [ruleId]: claimStateOf(out) } }));
        await refresh();
        return out;
      })().finally(() => inFlight.current.delete(key));
      inFlight.current.set(key, run);
      return run;
    },
    [client, update, refresh],
  );

  useEffect(() => {
    if (auto && sessionId) void refresh();
  }, [auto, sessionId, refresh]);

  // Rendered for this session only: another session's rules and claims never show, not even for one render.
  const view = data.owner === sessionId ? data : noDistributionData(sessionId);
  return { state: view.state, rules: view.rules, claims: view.claims, claim, refresh };
}
