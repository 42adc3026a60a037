// A fake SDK API for the client's unit tests: a fetch that answers by method and path from handlers the test sets,
// records every request (with its DPoP and Authorization headers), and can hold an answer back until released, so
// that tests decide the order in which answers arrive. Envelopes follow the contract.
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
