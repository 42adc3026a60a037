// Hooks over the client's state machines. Each reads a store with useSyncExternalStore (tear-free under concurrent
// rendering; the server snapshot is the initial state) and hands back the actions that drive it. The distribution and
// KYC hooks keep their state in the component (the client has no store for them), in the same step-shaped states,
// owned by one session: a sign-out or another user never sees the previous session's data.
import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import {
  distribution,
  kyc,
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

/**
 * Data that belongs to the session it was read for: `update(owner, change)` applies `change` only while `owner` is
 * still the client's session (a late answer for a previous session is dropped), and a render for another session
 * (a sign-out, another user) sees `empty()`, never the previous session's data, not even for one render.
 */
function useSessionData<D>(client: Onboard, sessionId: string | undefined, empty: () => D) {
  const [held, setHeld] = useState(() => ({ owner: sessionId, data: empty() }));
  const update = useCallback(
    (owner: string | undefined, change: (data: D) => D) => {
      if (client.session?.sessionId !== owner) return;
      setHeld((h) => ({ owner, data: change(h.owner === owner ? h.data : empty()) }));
    },
    [client, empty],
  );
  return { data: held.owner === sessionId ? held.data : empty(), update };
}

/** A list's load that failed, as its state: the error outcome's code and message. */
function errorStepOf(out: { code: distribution.DistributionError['code']; message?: string }) {
  return { step: 'error' as const, code: out.code, ...(out.message !== undefined ? { message: out.message } : {}) };
}

/**
 * A read of a session's list: marks `state` loading, reads, and applies the answer with `apply` unless a newer read
 * started meanwhile (its answer wins) or the session changed. `read` and `apply` must be stable (module functions).
 */
function useLatestRead<D extends { state: { step: string } }, R>(
  client: Onboard,
  update: (owner: string | undefined, change: (data: D) => D) => void,
  read: (api: Onboard['api']) => Promise<R>,
  apply: (data: D, out: R) => D,
): () => Promise<R> {
  const latest = useRef(0);
  return useCallback(async () => {
    const owner = client.session?.sessionId;
    const request = ++latest.current;
    update(owner, (d) => ({ ...d, state: { step: 'loading' } }));
    const out = await read(client.api);
    if (request === latest.current) update(owner, (d) => apply(d, out));
    return out;
  }, [client, update, read, apply]);
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
  state: DistributionRulesState;
  rules: distribution.DistributionRuleView[];
  claims: Record<string, DistributionClaimState>;
}

const noDistributionData = (): DistributionData => ({ state: { step: 'idle' }, rules: [], claims: {} });

const applyRules = (d: DistributionData, out: distribution.DistributionRulesResult): DistributionData =>
  out.status === 'listed'
    ? { ...d, state: { step: 'loaded', rules: out.rules }, rules: out.rules }
    : { ...d, state: errorStepOf(out) };

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
  const { data, update } = useSessionData(client, sessionId, noDistributionData);
  const inFlight = useRef(new Map<string, Promise<distribution.DistributionClaimResult>>());

  const refresh = useLatestRead(client, update, distribution.listRules, applyRules);

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

  return { state: data.state, rules: data.rules, claims: data.claims, claim, refresh };
}

/** The providers list's load: `loaded` once read (the providers and status are then in the hook's fields). */
export type KycListState =
  | { step: 'idle' }
  | { step: 'loading' }
  | { step: 'loaded' }
  | { step: 'error'; code: kyc.KycError['code']; message?: string };

/** The verification in hand: starting one, waiting for the provider's decision (polling), and how it ended. */
export type KycFlowState =
  | { step: 'idle' }
  | { step: 'starting'; providerId: string; level: kyc.KycLevel }
  | {
      step: 'waiting';
      verificationId: string;
      /** The provider's page, when this hook started the verification (not when it follows one found pending). */
      kycUrl?: string;
      expiresAt?: string;
    }
  | { step: 'decided'; verification: kyc.KycDecided }
  | { step: 'expired'; verificationId: string }
  | { step: 'error'; code: kyc.KycError['code']; message?: string };

export interface KycHook {
  /** The providers list's load. */
  state: KycListState;
  /** The app's providers as last read (enabled or not), [] before the first read. */
  providers: kyc.KycProvider[];
  /** The user's KYC status: as last read, `pending` while waiting, the decision as soon as it is known. */
  status: kyc.KycStatus;
  /** The user's latest verification, null when none. */
  verificationId: string | null;
  flow: KycFlowState;
  /**
   * Starts a verification and then waits for its decision (polling, in the background): answers the start's outcome
   * at once, with the `kycUrl` to send the user to. A second call while one is starting answers that one.
   */
  start: (input: kyc.KycStartInput) => Promise<kyc.KycStartResult>;
  /** Waits for a verification's decision (polling), instead of any wait in progress. */
  wait: (verificationId: string) => Promise<kyc.KycDecisionResult>;
  /** Reads the providers and the status again (a newer read drops an older one's answer). */
  refresh: () => Promise<kyc.KycProvidersResult>;
}

interface KycData {
  state: KycListState;
  providers: kyc.KycProvider[];
  kycStatus: kyc.KycStatus;
  verificationId: string | null;
  flow: KycFlowState;
}

const noKycData = (): KycData => ({
  state: { step: 'idle' },
  providers: [],
  kycStatus: 'none',
  verificationId: null,
  flow: { step: 'idle' },
});

const applyKycList = (d: KycData, out: kyc.KycProvidersResult): KycData =>
  out.status === 'listed'
    ? {
        ...d,
        state: { step: 'loaded' },
        providers: out.providers,
        kycStatus: out.kycStatus,
        verificationId: out.verificationId,
      }
    : { ...d, state: errorStepOf(out) };

/** How a wait ended, in the hook's data (an approved verification wins over a later rejection or expiry). */
function applyDecision(d: KycData, out: Exclude<kyc.KycDecisionResult, kyc.KycWaitAborted>): KycData {
  if (out.status === 'error') return { ...d, flow: errorStepOf(out) };
  const approved = d.kycStatus === 'approved';
  if (out.status === 'expired')
    return {
      ...d,
      flow: { step: 'expired', verificationId: out.verificationId },
      kycStatus: approved ? 'approved' : 'none',
    };
  return {
    ...d,
    flow: { step: 'decided', verification: out },
    kycStatus: approved ? 'approved' : out.status,
    verificationId: approved ? d.verificationId : out.verificationId,
  };
}

/**
 * Identity verification for the signed-in user: the app's KYC providers and the user's status (read once signed in,
 * unless `auto: false`), start(), and the wait for the provider's decision, polled every `intervalMs` (default
 * 3 s). A verification found pending (the user came back, the page was reloaded) is followed too (unless `auto:
 * false`). Outcomes, never throws; the polling stops on unmount, and a change of session resets it all.
 */
export function useKyc(options: { auto?: boolean; intervalMs?: number } = {}): KycHook {
  const client = useOnboard();
  const sessionId = useSession()?.sessionId;
  const auto = options.auto ?? true;
  const { intervalMs } = options;
  const { data, update } = useSessionData(client, sessionId, noKycData);
  const polling = useRef<AbortController | undefined>(undefined);
  const starting = useRef<{ owner: string | undefined; run: Promise<kyc.KycStartResult> } | undefined>(undefined);

  const refresh = useLatestRead(client, update, kyc.listProviders, applyKycList);

  const follow = useCallback(
    async (verificationId: string, shown: { kycUrl?: string; expiresAt?: string } = {}) => {
      const owner = client.session?.sessionId;
      polling.current?.abort();
      const controller = new AbortController();
      polling.current = controller;
      update(owner, (d) => ({ ...d, flow: { step: 'waiting', verificationId, ...shown } }));
      const out = await kyc.waitForDecision(client.api, verificationId, {
        signal: controller.signal,
        ...(intervalMs !== undefined ? { intervalMs } : {}),
      });
      if (polling.current === controller) polling.current = undefined;
      // Stopped by a newer wait, the unmount or a change of session, which have set (or reset) the state themselves.
      if (out.status === 'aborted') return out;
      update(owner, (d) => applyDecision(d, out));
      if (out.status !== 'error') void refresh();
      return out;
    },
    [client, update, refresh, intervalMs],
  );

  const wait = useCallback((verificationId: string) => follow(verificationId), [follow]);

  const start = useCallback(
    (input: kyc.KycStartInput) => {
      const owner = client.session?.sessionId;
      if (starting.current && starting.current.owner === owner) return starting.current.run;
      const run = (async () => {
        update(owner, (d) => ({ ...d, flow: { step: 'starting', providerId: input.providerId, level: input.level } }));
        const out = await kyc.start(client.api, input);
        if (out.status === 'error') update(owner, (d) => ({ ...d, flow: errorStepOf(out) }));
        else
          void follow(out.verificationId, {
            ...(out.kycUrl !== undefined ? { kycUrl: out.kycUrl } : {}),
            expiresAt: out.expiresAt,
          });
        return out;
      })().finally(() => {
        if (starting.current?.run === run) starting.current = undefined;
      });
      starting.current = { owner, run };
      return run;
    },
    [client, update, follow],
  );

  useEffect(() => {
    if (auto && sessionId) void refresh();
  }, [auto, sessionId, refresh]);

  // Follow a verification the list says is pending, once; a wait that ended (decided, expired, failed) is not redone.
  const pendingId = data.kycStatus === 'pending' && data.flow.step === 'idle' ? data.verificationId : null;
  useEffect(() => {
    if (auto && pendingId && !polling.current) void follow(pendingId);
  }, [auto, pendingId, follow]);

  // No polling after unmount, nor for a previous session.
  useEffect(
    () => () => {
      polling.current?.abort();
      polling.current = undefined;
    },
    [sessionId],
  );

  const status: kyc.KycStatus = data.flow.step === 'waiting' ? 'pending' : data.kycStatus;
  return {
    state: data.state,
    providers: data.providers,
    status,
    verificationId: data.verificationId,
    flow: data.flow,
    start,
    wait,
    refresh,
  };
}
