// The fiat on- and off-ramp for React: the app's ramp providers (read once signed in), a quote, the ramp started from
// it and followed (polled in the background) until it is completed, failed or expired, in one step-shaped state the
// ramp widget (./components/RampWidget.tsx) or an app's own screens render. Built on @onboard/core's ramps.* outcomes,
// so it never throws; like the KYC and distribution hooks (./hooks.ts) its state belongs to one session: a sign-out or
// another user never sees the previous session's ramp, and no polling outlives the component or the session.
import { useCallback, useEffect, useRef, useState } from 'react';
import { ramps, type Onboard } from '@onboard/core';
import { useOnboard } from './context.js';
import { useSession } from './hooks.js';

/** The providers list's load: `loaded` once read (the providers are then in the hook's `providers`). */
export type RampProvidersState =
  | { step: 'idle' }
  | { step: 'loading' }
  | { step: 'loaded' }
  | { step: 'error'; code: ramps.RampError['code']; message?: string };

/**
 * The ramp in hand. `following` polls the ramp (its `transaction` is the latest read: `pending_kyc`,
 * `awaiting_deposit`, `awaiting_signature` or `processing`); `final` is completed, failed or expired; `timed_out`
 * means the wait ended first (`follow` again later). `error` holds the refusal as the library answered it (an amount
 * out of range with its bound, KYC required with its page...), with the quote or ramp it concerned, if any.
 */
export type RampFlowState =
  | { step: 'idle' }
  | { step: 'quoting'; input: ramps.RampQuoteInput }
  | { step: 'quoted'; quote: ramps.RampQuote }
  | { step: 'starting'; quote: ramps.RampQuote }
  | { step: 'following'; transaction: ramps.RampTransaction }
  | { step: 'final'; transaction: ramps.FinalRampTransaction }
  | { step: 'timed_out'; txId: string; transaction?: ramps.RampTransaction }
  | {
      step: 'error';
      failure: ramps.RampFailure;
      /** Which call was refused. */
      during: 'quote' | 'start' | 'follow';
      /** The quote the start was for (start again with it after a retryable failure, until it expires). */
      quote?: ramps.RampQuote;
      /** The last read of the ramp the wait was following. */
      transaction?: ramps.RampTransaction;
    };

export interface RampHookOptions {
  /** Read the providers once signed in (default true). */
  auto?: boolean;
  /** Pause between reads of a started ramp (default 5 000 ms). */
  intervalMs?: number;
  /** How long to follow a ramp before `timed_out` (default ten minutes). */
  timeoutMs?: number;
}

export interface RampHook {
  /** The providers list's load. */
  state: RampProvidersState;
  /** The app's ramp providers as last read, [] before the first read. */
  providers: ramps.RampProvider[];
  flow: RampFlowState;
  /** Prices a ramp (a newer quote's answer wins over an older one still in flight). */
  quote: (input: ramps.RampQuoteInput) => Promise<ramps.RampQuoteResult>;
  /**
   * Starts the ramp of `quoteId` (default: the quote in hand), then follows it in the background. The same quote is
   * started under the same Idempotency-Key every time, so a retry after a lost answer is one ramp; a second call while
   * one is starting answers that one. Without a quoteId nor a quote in hand it answers VALIDATION_ERROR, sending
   * nothing.
   */
  start: (quoteId?: string) => Promise<ramps.RampStartResult>;
  /** Follows a ramp (polling until final), instead of any ramp followed now. */
  follow: (txId: string) => Promise<ramps.RampWaitResult>;
  /** Back to `idle`: stops following, forgets the quote. */
  reset: () => void;
  /** Reads the providers again (a newer read drops an older one's answer). */
  refresh: () => Promise<ramps.RampProvidersResult>;
}

interface RampData {
  state: RampProvidersState;
  providers: ramps.RampProvider[];
  flow: RampFlowState;
}

const noRampData = (): RampData => ({ state: { step: 'idle' }, providers: [], flow: { step: 'idle' } });

/**
 * The hook's data for the session it was read for: `update(owner, change)` applies `change` only while `owner` is
 * still the client's session (a late answer for a previous session is dropped), and a render for another session sees
 * the empty data, not even one render of the previous one's. (The KYC hook's useSessionData, for one data type.)
 */
function useRampData(client: Onboard, sessionId: string | undefined) {
  const [held, setHeld] = useState(() => ({ owner: sessionId, data: noRampData() }));
  const update = useCallback(
    (owner: string | undefined, change: (data: RampData) => RampData) => {
      if (client.session?.sessionId !== owner) return;
      setHeld((h) => ({ owner, data: change(h.owner === owner ? h.data : noRampData()) }));
    },
    [client],
  );
  return { data: held.owner === sessionId ? held.data : noRampData(), update };
}

/** Stops the ramp being followed, if any. */
function stopPolling(polling: { current: AbortController | undefined }): void {
  polling.current?.abort();
  polling.current = undefined;
}

const errorStepOf = (out: ramps.RampError) =>
  ({ step: 'error', code: out.code, ...(out.message !== undefined ? { message: out.message } : {}) }) as const;

/** How a wait ended, as the flow (an abort leaves the flow to whoever aborted). */
function flowOfWait(
  out: Exclude<ramps.RampWaitResult, ramps.RampWaitAborted>,
  last: ramps.RampTransaction | undefined,
): RampFlowState {
  if (out.status === 'final') return { step: 'final', transaction: out.transaction };
  if (out.status === 'timed_out')
    return { step: 'timed_out', txId: out.txId, ...(out.transaction ? { transaction: out.transaction } : {}) };
  return { step: 'error', failure: out, during: 'follow', ...(last ? { transaction: last } : {}) };
}

/**
 * Fiat on- and off-ramps for the signed-in user: the app's providers (read once signed in, unless `auto: false`),
 * quote(), start() and the ramp followed until final, polled every `intervalMs` (default 5 s) for at most `timeoutMs`
 * (default 10 minutes). Outcomes, never throws; the polling stops on unmount, and a change of session resets it all.
 */
export function useRamp(options: RampHookOptions = {}): RampHook {
  const client = useOnboard();
  const sessionId = useSession()?.sessionId;
  const auto = options.auto ?? true;
  const { intervalMs, timeoutMs } = options;
  const { data, update } = useRampData(client, sessionId);
  const latestList = useRef(0);
  const latestQuote = useRef(0);
  const polling = useRef<AbortController | undefined>(undefined);
  const starting = useRef<{ key: string; run: Promise<ramps.RampStartResult> } | undefined>(undefined);
  // One Idempotency-Key per session and quote: every start of a quote (a retry after NETWORK_ERROR, a double click
  // after the first finished) sends the same key, so the service answers the same ramp.
  const keys = useRef(new Map<string, string>());
  // The last quote answered (start() without a quoteId starts it), set as the answer arrives: a start chained on the
  // quote's promise finds it before any re-render.
  const inHand = useRef<ramps.RampQuote | undefined>(undefined);

  const refresh = useCallback(async () => {
    const owner = client.session?.sessionId;
    const request = ++latestList.current;
    update(owner, (d) => ({ ...d, state: { step: 'loading' } }));
    const out = await ramps.listProviders(client.api);
    if (request === latestList.current)
      update(owner, (d) =>
        out.status === 'listed'
          ? { ...d, state: { step: 'loaded' }, providers: out.providers }
          : { ...d, state: errorStepOf(out) },
      );
    return out;
  }, [client, update]);

  const quote = useCallback(
    async (input: ramps.RampQuoteInput) => {
      const owner = client.session?.sessionId;
      const request = ++latestQuote.current;
      stopPolling(polling);
      inHand.current = undefined;
      update(owner, (d) => ({ ...d, flow: { step: 'quoting', input } }));
      const out = await ramps.quote(client.api, input);
      if (request !== latestQuote.current) return out;
      if (out.status === 'quoted') inHand.current = out.quote;
      update(owner, (d) => ({
        ...d,
        flow:
          out.status === 'quoted'
            ? { step: 'quoted', quote: out.quote }
            : { step: 'error', failure: out, during: 'quote' },
      }));
      return out;
    },
    [client, update],
  );

  const followWith = useCallback(
    async (txId: string, first?: ramps.RampTransaction): Promise<ramps.RampWaitResult> => {
      const owner = client.session?.sessionId;
      stopPolling(polling);
      const controller = new AbortController();
      polling.current = controller;
      let last = first;
      if (first) update(owner, (d) => ({ ...d, flow: { step: 'following', transaction: first } }));
      const out = await ramps.waitForFinal(client.api, txId, {
        signal: controller.signal,
        ...(intervalMs !== undefined ? { intervalMs } : {}),
        ...(timeoutMs !== undefined ? { timeoutMs } : {}),
        onUpdate: (transaction) => {
          last = transaction;
          if (polling.current === controller)
            update(owner, (d) => ({ ...d, flow: { step: 'following', transaction } }));
        },
      });
      if (polling.current === controller) polling.current = undefined;
      // Stopped by a newer wait, a new quote, reset, the unmount or a change of session, which set the state themselves.
      if (out.status === 'aborted') return out;
      update(owner, (d) => ({ ...d, flow: flowOfWait(out, last) }));
      return out;
    },
    [client, update, intervalMs, timeoutMs],
  );

  const follow = useCallback((txId: string) => followWith(txId), [followWith]);

  const start = useCallback(
    (quoteId?: string) => {
      const owner = client.session?.sessionId;
      const held = inHand.current;
      const id = quoteId ?? held?.quoteId;
      if (!id) {
        const out = { status: 'error', code: 'VALIDATION_ERROR', httpStatus: 0, message: 'No quote to start' } as const;
        return Promise.resolve<ramps.RampStartResult>(out);
      }
      const slot = `${owner ?? ''} ${id}`;
      if (starting.current?.key === slot) return starting.current.run;
      const idempotencyKey = keys.current.get(slot) ?? crypto.randomUUID();
      keys.current.set(slot, idempotencyKey);
      const run = (async () => {
        const quoted = held?.quoteId === id ? held : undefined;
        if (quoted) update(owner, (d) => ({ ...d, flow: { step: 'starting', quote: quoted } }));
        const out = await ramps.start(client.api, { quoteId: id, idempotencyKey });
        if (out.status !== 'started') {
          const flow: RampFlowState = {
            step: 'error',
            failure: out,
            during: 'start',
            ...(quoted ? { quote: quoted } : {}),
          };
          update(owner, (d) => ({ ...d, flow }));
          return out;
        }
        const transaction = out.transaction;
        if (ramps.isFinal(transaction)) update(owner, (d) => ({ ...d, flow: { step: 'final', transaction } }));
        else void followWith(transaction.txId, transaction);
        return out;
      })().finally(() => {
        if (starting.current?.run === run) starting.current = undefined;
      });
      starting.current = { key: slot, run };
      return run;
    },
    [client, update, followWith],
  );

  const reset = useCallback(() => {
    const owner = client.session?.sessionId;
    latestQuote.current += 1;
    inHand.current = undefined;
    stopPolling(polling);
    update(owner, (d) => ({ ...d, flow: { step: 'idle' } }));
  }, [client, update]);

  useEffect(() => {
    if (auto && sessionId) void refresh();
  }, [auto, sessionId, refresh]);

  // No polling after unmount, nor for a previous session; a previous session's keys are of no use.
  useEffect(
    () => () => {
      stopPolling(polling);
      inHand.current = undefined;
      keys.current.clear();
    },
    [sessionId],
  );

  return { state: data.state, providers: data.providers, flow: data.flow, quote, start, follow, reset, refresh };
}
