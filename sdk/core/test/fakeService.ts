// A fake SDK API for the client's unit tests: a fetch that answers by method and path from handlers the test sets,
// records every request (with its DPoP and Authorization headers), and can hold an answer back until released, so
// that tests decide the order in which answers arrive. Envelopes follow the contract. signedInClient signs a client in
// over it with an email code, for the tests of what a signed-in user calls.
import assert from 'node:assert/strict';
import { createOnboard, memoryStorage, type OnboardOptions } from '../src/index';
export interface SeenRequest {
  method: string;
  path: string;
  /** The query string (`?limit=10`), or ''. */
  search: string;
  body: unknown;
  headers: Headers;
}

export type FakeAnswer = { status?: number; body: unknown; headers?: Record<string, string> } | 'network-error';
export type FakeHandler = (request: SeenRequest) => FakeAnswer | Promise<FakeAnswer>;

export const ok = (code: string, content: unknown): FakeAnswer => ({ body: { success: true, code, content } });
export const fail = (status: number, code: string, message = code): FakeAnswer => ({
  status,
  body: { success: false, code, message },
});

export const PUB = `pub_testnet_${'TestOnlyNotARealKey0'.padEnd(32, '0')}`;
export const G = 'GCQ53WWRBL6HVSDNRMZKFZD7SP5DKYC6JFWSRLPQCVGD6Y42TYIN73Q2';

export function tokens(n: number, expiresIn = 900) {
  return {
    accessToken: `at-${n}`,
    tokenType: 'DPoP',
    expiresIn,
    refreshToken: `rt-${n}`,
    refreshTokenExpiresAt: new Date(Date.now() + 86_400_000).toISOString(),
    sessionId: 'ses_01TEST',
  };
}

export function signInResult(n = 1, expiresIn = 900) {
  return {
    tokens: tokens(n, expiresIn),
    user: { userId: 'usr_01TEST', email: 'ada@example.com' },
    wallet: {
      walletId: 'wal_01TEST',
      publicKey: G,
      network: 'testnet',
      funded: true,
      fundedAt: null,
      createdAt: '2026-11-26T00:00:00.000Z',
    },
  };
}

export class FakeService {
  readonly seen: SeenRequest[] = [];
  /** The query string of each request, in order. */
  readonly queries: string[] = [];
  readonly handlers = new Map<string, FakeHandler>();

  on(route: string, handler: FakeHandler): this {
    this.handlers.set(route, handler);
    return this;
  }

  readonly fetch: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const text = await request.text();
    const seen: SeenRequest = {
      method: request.method,
      path: url.pathname,
      search: url.search,
      body: text ? JSON.parse(text) : undefined,
      headers: request.headers,
    };
    this.seen.push(seen);
    this.queries.push(url.search);
    const handler = this.handlers.get(`${request.method} ${url.pathname}`);
    const answer: FakeAnswer = handler ? await handler(seen) : fail(404, 'NOT_FOUND');
    if (answer === 'network-error') throw new TypeError('fetch failed');
    return new Response(JSON.stringify(answer.body), {
      status: answer.status ?? 200,
      headers: { 'content-type': 'application/json', 'dpop-nonce': 'n1', ...answer.headers },
    });
  };

  paths(): string[] {
    return this.seen.map((s) => `${s.method} ${s.path}`);
  }
}

/** A promise with its resolve, to hold a fake answer back. */
export function deferred<T>(): { promise: Promise<T>; resolve(value: T): void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

export const RULE_ID = 'dst_01JD3X5K7Q9T2M4N6P8R0S1V3W';
export const USDC = 'USDC:GBBD47IF6LWK7P7MDEVSCWR7DPUWV3NY3DTQEVFL4NAT4AQH3ZLLFLA5';
export const CLAIM_HASH = '7b3c1f0e9a8d2c4b6e5f7a9c1d3e5f7a9b1c3d5e7f9a1b3c5d7e9f1a3b5c7d9e';

/** A DistributionRule as listDistributionRules answers it: claimable unless `overrides` say otherwise. */
export function distributionRule(overrides: Record<string, unknown> = {}) {
  return {
    ruleId: RULE_ID,
    name: 'Welcome bonus',
    asset: USDC,
    amountPerClaim: '5',
    totalAllocation: 1000,
    claimedCount: 412,
    validFrom: '2026-11-01T00:00:00.000Z',
    validUntil: null,
    rateLimit: null,
    enabled: true,
    claimable: true,
    reason: null,
    createdAt: '2026-10-30T09:00:00.000Z',
    ...overrides,
  };
}

/** listDistributionRules' answer. */
export const rulesListed = (rules: unknown[]): FakeAnswer => ok('SDK_DISTRIBUTION_RULES_LISTED', { rules });

/** claimDistributionRule's answer for a rule (USDC 5 unless `overrides` say otherwise). */
export const ruleClaimed = (status: 'SUCCESS' | 'PENDING' = 'SUCCESS', overrides: Record<string, unknown> = {}) =>
  ok('SDK_DISTRIBUTION_RULE_CLAIMED', {
    ruleId: RULE_ID,
    asset: USDC,
    assetCode: 'USDC',
    amount: '5',
    txHash: CLAIM_HASH,
    status,
    ...overrides,
  });

/** The path a claim of `ruleId` is posted to (a FakeService route: `POST ${claimPath(id)}`). */
export const claimPath = (ruleId = RULE_ID) => `/v1/distribution/rules/${ruleId}/claim`;

/** A fake that answers an email-code sign-in (any code) and the wallet's balances. */
export function emailSignInService(): FakeService {
  return new FakeService()
    .on('POST /v1/auth/email/start', () =>
      ok('SDK_EMAIL_CODE_SENT', { sent: true, expiresInSeconds: 600, resendAfterSeconds: 30 }),
    )
    .on('POST /v1/auth/email/verify', () => ok('SDK_EMAIL_SIGN_IN_VERIFIED', signInResult()))
    .on('GET /v1/wallet/balances', () => ok('WALLET_BALANCES', { publicKey: G, network: 'testnet', balances: [] }));
}

/** A started client over `fake` (short retry pauses), with `extra` options. */
export async function clientOf(fake: FakeService, extra: Partial<OnboardOptions> = {}) {
  const client = createOnboard({
    publishableKey: PUB,
    baseUrl: 'https://api.example.test',
    fetch: fake.fetch,
    storage: memoryStorage(),
    retry: { attempts: 2, baseDelayMs: 1 },
    ...extra,
  });
  await client.ready();
  return client;
}

/** A client signed in over `fake` with an email code, its API, and the requests made after sign-in. */
export async function signedInClient(fake: FakeService) {
  const client = await clientOf(fake);
  client.beginEmailLogin();
  await client.sendEmailCode('ada@example.com');
  await client.verifyEmailCode('123456');
  assert.equal(client.auth.get().step, 'authenticated');
  const from = fake.seen.length;
  return { client, api: client.api, requests: () => fake.seen.slice(from) };
}

/** `seen` is one request, `route` (e.g. `GET /v1/kyc/providers`), carrying the session: its access token and a DPoP proof. */
export function assertOneSessionRequest(seen: SeenRequest[], route: string): void {
  const [request, ...more] = seen;
  assert.equal(more.length, 0);
  assert.equal(`${request?.method} ${request?.path}`, route);
  assert.match(request?.headers.get('authorization') ?? '', /^DPoP at-1$/);
  assert.ok(request?.headers.get('dpop'), 'a DPoP proof');
}
