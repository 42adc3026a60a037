// The signed-in user's data as state machines: balances, history and the transaction in progress. Each has a `step`
// and a store (subscribe replays the current state); a change of session (sign-out, another user) resets them all,
// so one user's balances never show under another's session. The history keeps only the newest request's answer:
// a slower, older answer arriving late is dropped.
import type { Balance, TxHistoryPage, Wallet } from '../../../generated/client/types.gen.js';
import { messageOf } from './errors.js';
import type { Failure, Outcome } from './outcome.js';
import type { SessionInfo, UserSessionManager } from './userSession.js';
import { createStore } from './store.js';
import * as tx from './transactions.js';
import type { OnboardClient } from './types.js';
import type { WalletAdapter } from './walletAdapter.js';

const PASSPHRASES = {
  testnet: 'Test SDF Network ; September 2015',
  mainnet: 'Public Global Stellar Network ; September 2015',
} as const;

export type BalanceState =
  | { step: 'idle' }
  | { step: 'loading' }
  | { step: 'loaded'; publicKey: string; balances: Balance[] }
  | { step: 'error'; message: string; code: Failure['code'] };

export interface HistoryParams {
  limit?: number;
  offset?: number;
  /** A page's `nextCursor` (pages at constant cost; overrides offset). */
  cursor?: string;
}

export type HistoryState =
  | { step: 'idle' }
  | { step: 'loading'; params: HistoryParams }
  | { step: 'loaded'; params: HistoryParams; data: TxHistoryPage }
  | { step: 'error'; params: HistoryParams; message: string; code: Failure['code'] };

type TxErrorPhase = 'build' | 'sign' | 'submit' | 'sign-submit' | 'run' | 'wait';

export type TxState =
  | { step: 'idle' }
  | { step: 'building' }
  | { step: 'built'; built: tx.TxBuilt }
  | { step: 'signing' }
  | { step: 'signed'; txId: string; signedXdr: string }
  | { step: 'submitting' }
  | { step: 'signing-submitting' }
  | { step: 'running' }
  | { step: 'submitted'; txId: string; hash: string }
  | { step: 'success'; txId: string; hash: string; ledger?: number; feeXlm?: string }
  | {
      step: 'error';
      phase: TxErrorPhase;
      code: tx.TxError['code'];
      message?: string;
      resultCode?: string;
      details?: Record<string, unknown>;
    };

function errorState(phase: TxErrorPhase, error: tx.TxError): TxState {
  return {
    step: 'error',
    phase,
    code: error.code,
    ...(error.message !== undefined ? { message: error.message } : {}),
    ...(error.resultCode !== undefined ? { resultCode: error.resultCode } : {}),
    ...(error.details !== undefined ? { details: error.details } : {}),
  };
}

export class DataStores {
  readonly balances = createStore<BalanceState>({ step: 'idle' });
  readonly history = createStore<HistoryState>({ step: 'idle' });
  readonly transaction = createStore<TxState>({ step: 'idle' });
  #sessionId: string | undefined;
  #historyRequest = 0;
  #balanceRequest = 0;
  #txRequest = 0;

  /** The transaction `buildTx` built last: an external wallet signs its XDR when `signTx` is given only its txId. */
  #lastBuilt: tx.TxBuilt | undefined;

  constructor(
    private readonly api: OnboardClient,
    private readonly session: UserSessionManager,
    /** The adapter that signs for the session's wallet when it is the user's own (custody external). */
    private readonly walletAdapter: () => WalletAdapter | undefined,
  ) {}

  /** The user's own wallet signs (custody external); undefined when the service signs (custodial). */
  #externalWallet(): Wallet | undefined {
    const wallet = this.session.info()?.wallet;
    return wallet?.custody === 'external' ? wallet : undefined;
  }

  /** Signs in the client with the wallet adapter: the user's own wallet holds the key. */
  async #signWithWallet(wallet: Wallet, ref: tx.TxRef): Promise<tx.TxSigned | tx.TxError> {
    const built = 'txId' in ref && this.#lastBuilt?.txId === ref.txId ? this.#lastBuilt : undefined;
    const xdr = 'unsignedXdr' in ref ? ref.unsignedXdr : built?.unsignedXdr;
    if (!xdr) {
      return {
        status: 'error',
        code: 'TX_NOT_FOUND',
        httpStatus: 0,
        message: "Give the built transaction's unsignedXdr: the user's own wallet signs it here",
      };
    }
    const adapter = this.walletAdapter();
    if (!adapter) {
      return {
        status: 'error',
        code: 'WALLET_NOT_CONNECTED',
        httpStatus: 0,
        message: "No adapter for the user's wallet: pass it in walletAdapters",
      };
    }
    try {
      const signedXdr = await adapter.signTransaction(xdr, {
        networkPassphrase: built?.networkPassphrase ?? PASSPHRASES[wallet.network],
        address: wallet.publicKey,
      });
      return { status: 'signed', txId: 'txId' in ref ? ref.txId : '', signedXdr };
    } catch (err) {
      return {
        status: 'error',
        code: 'WALLET_SIGN_FAILED',
        httpStatus: 0,
        message: err instanceof Error && err.message ? err.message : 'The wallet did not sign',
      };
    }
  }

  #sign(ref: tx.TxRef): Promise<tx.TxSigned | tx.TxError> {
    const external = this.#externalWallet();
    return external ? this.#signWithWallet(external, ref) : tx.sign(this.api, ref);
  }

  async #signAndSubmit(ref: tx.TxRef, options?: tx.SubmitOptions): Promise<tx.TxResult> {
    const signed = await this.#sign(ref);
    if (signed.status !== 'signed') return signed;
    return tx.submit(this.api, signed.signedXdr, options);
  }

  /** runTransaction, or for the user's own wallet the same in three steps: build here, sign in the wallet, submit. */
  async #run(input: tx.BuildInput, options: tx.SubmitOptions & { dryRun?: boolean }): Promise<tx.TxResult> {
    if (!this.#externalWallet() || options.dryRun) return tx.run(this.api, input, options);
    const built = await tx.build(this.api, input);
    if (built.status !== 'built') return built;
    this.#lastBuilt = built;
    return this.#signAndSubmit({ txId: built.txId }, options);
  }

  /** A different session (or none): every store starts over; answers to the old session's requests are dropped. */
  sessionChanged(info: SessionInfo | undefined): void {
    if (info?.sessionId === this.#sessionId) return;
    this.#sessionId = info?.sessionId;
    this.#historyRequest++;
    this.#balanceRequest++;
    this.#txRequest++;
    this.#lastBuilt = undefined;
    this.balances.set({ step: 'idle' });
    this.history.set({ step: 'idle' });
    this.transaction.set({ step: 'idle' });
  }

  /** The user's wallet on the session's network (the session's copy is updated, e.g. `funded`). */
  async getWallet(): Promise<Outcome<Wallet>> {
    const out = await this.api.getWallet();
    if (out.ok) {
      const wallet = out.content;
      await this.session.updatePrincipal((p) => (p.wallet.walletId === wallet.walletId ? { ...p, wallet } : undefined));
    }
    return out;
  }

  async refreshBalances(): Promise<BalanceState> {
    const request = ++this.#balanceRequest;
    this.balances.set({ step: 'loading' });
    const out = await this.api.getWalletBalances();
    if (request !== this.#balanceRequest) return this.balances.get();
    this.balances.set(
      out.ok
        ? { step: 'loaded', publicKey: out.content.publicKey, balances: out.content.balances }
        : { step: 'error', message: messageOf(out), code: out.code },
    );
    return this.balances.get();
  }

  async loadHistory(params: HistoryParams = {}): Promise<HistoryState> {
    const request = ++this.#historyRequest;
    this.history.set({ step: 'loading', params });
    const out = await this.api.getTxHistory({ query: { ...params } });
    if (request !== this.#historyRequest) return this.history.get(); // a newer request owns the state
    this.history.set(
      out.ok
        ? { step: 'loaded', params, data: out.content }
        : { step: 'error', params, message: messageOf(out), code: out.code },
    );
    return this.history.get();
  }

  /** Runs one transaction step: the state follows it unless a newer step or session took over. */
  async #step<T>(running: TxState, work: () => Promise<T>, after: (result: T) => TxState): Promise<T> {
    const request = ++this.#txRequest;
    this.transaction.set(running);
    const result = await work();
    if (request === this.#txRequest) this.transaction.set(after(result));
    return result;
  }

  #submitted(phase: TxErrorPhase, result: tx.TxResult): TxState {
    switch (result.status) {
      case 'success':
        return {
          step: 'success',
          txId: result.txId,
          hash: result.hash,
          ...(result.ledger !== undefined ? { ledger: result.ledger } : {}),
          ...(result.feeXlm !== undefined ? { feeXlm: result.feeXlm } : {}),
        };
      case 'pending':
        return { step: 'submitted', txId: result.txId, hash: result.hash };
      case 'dry_run':
        return { step: 'idle' };
      default:
        return errorState(phase, result);
    }
  }

  buildTx(input: tx.BuildInput, options?: tx.SubmitOptions): Promise<tx.TxBuilt | tx.TxError> {
    return this.#step(
      { step: 'building' },
      async () => {
        const built = await tx.build(this.api, input, options);
        if (built.status === 'built') this.#lastBuilt = built;
        return built;
      },
      (r) => (r.status === 'built' ? { step: 'built', built: r } : errorState('build', r)),
    );
  }

  signTx(ref: tx.TxRef): Promise<tx.TxSigned | tx.TxError> {
    return this.#step(
      { step: 'signing' },
      () => this.#sign(ref),
      (r) => (r.status === 'signed' ? { step: 'signed', txId: r.txId, signedXdr: r.signedXdr } : errorState('sign', r)),
    );
  }

  submitTx(signedXdr: string, options?: tx.SubmitOptions): Promise<tx.TxResult> {
    return this.#step(
      { step: 'submitting' },
      () => tx.submit(this.api, signedXdr, options),
      (r) => this.#submitted('submit', r),
    );
  }

  signAndSubmitTx(ref: tx.TxRef, options?: tx.SubmitOptions): Promise<tx.TxResult> {
    return this.#step(
      { step: 'signing-submitting' },
      () => this.#signAndSubmit(ref, options),
      (r) => this.#submitted('sign-submit', r),
    );
  }

  /** Build, sign and submit in one request; with `wait`, a pending outcome is followed until it is final. */
  async runTx(
    input: tx.BuildInput,
    options: tx.SubmitOptions & { dryRun?: boolean; wait?: boolean | tx.WaitOptions } = {},
  ): Promise<tx.TxResult> {
    const { wait, ...runOptions } = options;
    const result = await this.#step(
      { step: 'running' },
      () => this.#run(input, runOptions),
      (r) => this.#submitted('run', r),
    );
    if (result.status !== 'pending' || !wait) return result;
    return this.waitForTx(result.hash, wait === true ? {} : wait);
  }

  /** Follows a submitted transaction until it is final (success, or error with Stellar's resultCode). */
  async waitForTx(hash: string, options?: tx.WaitOptions): Promise<tx.TxResult> {
    const request = this.#txRequest; // waiting continues the current step rather than starting a new one
    const result = await tx.waitForTransaction(this.api, hash, options);
    if (request === this.#txRequest) this.transaction.set(this.#submitted('wait', result));
    return result;
  }

  /** Back to idle (e.g. when the send form is closed). */
  resetTransaction(): void {
    this.#txRequest++;
    this.transaction.set({ step: 'idle' });
  }
}
