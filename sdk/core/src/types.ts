// The client's public shape: one typed call per operation of the contract, plus its network and session. Kept apart
// from the implementation (./index.ts) so that the transaction helpers (./transactions.ts) can name it without a cycle.
import type { Client } from '../../../generated/client/client/index.js';
import type * as operations from '../../../generated/client/sdk.gen.js';
import type { Outcome } from './outcome.js';

export type Network = 'testnet' | 'mainnet';

type Operations = typeof operations;
type OperationName = {
  [K in keyof Operations]: Operations[K] extends (...args: never[]) => unknown ? K : never;
}[keyof Operations];
type OptionsOf<K extends OperationName> = Omit<NonNullable<Parameters<Operations[K]>[0]>, 'client'>;
type ContentOf<K extends OperationName> =
  NonNullable<Awaited<ReturnType<Operations[K]>>['data']> extends { content: infer C } ? C : never;
// An operation whose options are all optional can be called without arguments: an object with no properties is then
// a valid options object (`Record<never, never>`, the empty object type, extends exactly those).
type Call<K extends OperationName> =
  Record<never, never> extends OptionsOf<K>
    ? (options?: OptionsOf<K>) => Promise<Outcome<ContentOf<K>>>
    : (options: OptionsOf<K>) => Promise<Outcome<ContentOf<K>>>;

/** The tokens of a sign-in or refresh answer (SessionTokens). */
export interface SessionTokensLike {
  accessToken: string;
  refreshToken: string;
  sessionId: string;
}

export interface SessionHandle {
  /** Use these tokens from now on (after a sign-in or a refresh). */
  set(tokens: SessionTokensLike): void;
  clear(): void;
  /** The current tokens, if any (store the refresh token like a password). */
  current(): SessionTokensLike | undefined;
}

export type OnboardClient = { [K in OperationName]: Call<K> } & {
  /** The network the key (or option) selects. */
  readonly network: Network;
  /** The session whose access token DPoP requests carry (only with the `dpop` option). */
  readonly session: SessionHandle;
  /** The underlying generated client, for advanced use. */
  readonly raw: Client;
};
