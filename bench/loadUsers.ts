// The load test's simulated users (bench/load.ts): each one is what an app's client library does for one person, over
// plain HTTP. It has its own connection (a keep-alive node:http agent) from its own loopback address (127.10.x.y, as
// users arrive from their own networks), its own ES256 DPoP key, and follows the server's DPoP nonce as RFC 9449 asks
// (a 401 SDK_AUTH_DPOP_USE_NONCE is retried once with the nonce it carries). It signs in by email code (the code read
// from the cluster's dev outbox), waits until its wallet is funded, refreshes its session before the access token
// expires, and pays with runTransaction (an Idempotency-Key each). Every answer is reported to a Recorder: requests by
// kind, latency per step, and every answer that is not a success by kind, HTTP status and error `code`.
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { createDpopKey, dpopProof, type DpopKey } from '../tests/support/dpop';
import { xlmPayment } from '../tests/support/bankCheck';

/** An answer the load test got: the status (0 when there was none), the parsed body, its time. */
export interface Answer {
  status: number;
  body: any;
  headers: IncomingHttpHeaders;
  ms: number;
  /** Why there was no answer (a network error's code, or `timeout`). */
  failure?: string;
}

/** Where every request's answer and every step's latency goes (bench/load.ts tallies them). */
export interface Recorder {
  /** One HTTP request of `kind` and its answer. */
  request(kind: string, answer: Answer): void;
  /** One step of a user (sign-in start, verify, first funded, runTransaction) and how long the user waited for it. */
  step(step: string, ms: number): void;
}

/** How long one request may take before the user gives up on it (counted as `timeout`). */
const REQUEST_TIMEOUT_MS = 60_000;
/**
 * A session is refreshed this long before its access token expires, as the client library does: 60 s, or a quarter
 * of the token's lifetime when that is shorter.
 */
const REFRESH_MARGIN_MS = 60_000;

/** The cluster as the users see it. */
export interface Target {
  /** The proxy: where every request goes. */
  proxyUrl: string;
  /** The base of every DPoP proof's `htu`: the service's PUBLIC_URL (the proxy), wherever the request is sent. */
  publicUrl: string;
  publishableKey: string;
  /** The sign-in codes, as the users read them from their mail. */
  outbox: OutboxCodes;
}

/** One request over the user's own connection; never throws (a failure is an Answer with status 0). */
export function send(
  agent: Agent,
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<Answer> {
  const url = new URL(baseUrl);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const started = performance.now();
  return new Promise((resolve) => {
    // No answer (a reset, a timeout, a refused connection): status 0 and why.
    const failed = (err: NodeJS.ErrnoException) =>
      resolve({
        status: 0,
        body: undefined,
        headers: {},
        ms: performance.now() - started,
        failure: err.code ?? err.message,
      });
    const req = request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        method,
        path,
        headers: {
          ...headers,
          ...(payload !== undefined
            ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) }
            : {}),
        },
        timeout: REQUEST_TIMEOUT_MS,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          let parsed: unknown;
          try {
            parsed = text ? JSON.parse(text) : undefined;
          } catch {
            parsed = undefined;
          }
          resolve({ status: res.statusCode ?? 0, body: parsed, headers: res.headers, ms: performance.now() - started });
        });
        res.on('error', failed);
      },
    );
    req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'timeout' })));
    req.on('error', failed);
    req.end(payload);
  });
}

/**
 * The sign-in codes of the dev outbox (`<dataDir>/outbox/<time>-<kind>-<id>.json`, written by whichever API process
 * sent the mail), read incrementally: each file is parsed once, so a thousand users cost a thousand reads, not a
 * thousand times the directory (tests/support/operators.ts latestCode reads every file each time, fine for a test).
 */
export class OutboxCodes {
  private seen = new Set<string>();
  private codes = new Map<string, { code: string; time: number }>();
  private waiters = new Map<string, { after: number; resolve: (code: string) => void }[]>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly dir: string) {}

  /** The newest code sent to `email` at or after `after` (ms since the epoch), as soon as its mail is in the outbox. */
  code(email: string, after: number, timeoutMs = 30_000): Promise<string> {
    const address = email.toLowerCase();
    return new Promise((resolve, reject) => {
      const done = (code: string) => {
        clearTimeout(timer);
        resolve(code);
      };
      const timer = setTimeout(() => {
        this.waiters.set(
          address,
          (this.waiters.get(address) ?? []).filter((w) => w.resolve !== done),
        );
        reject(new Error(`no sign-in code for ${email} in the outbox after ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiters.set(address, [...(this.waiters.get(address) ?? []), { after, resolve: done }]);
      this.poll();
      this.timer ??= setInterval(() => this.poll(), 50);
    });
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private poll(): void {
    let names: string[] = [];
    try {
      names = readdirSync(this.dir);
    } catch {
      // no mail yet
    }
    for (const name of names) {
      if (this.seen.has(name)) continue;
      this.seen.add(name);
      const m = /^(\d+)-user-sign-in-code-[0-9a-f]{8}\.json$/.exec(name);
      if (!m) continue;
      try {
        const mail = JSON.parse(readFileSync(join(this.dir, name), 'utf8')) as {
          to: { address: string }[];
          text: string;
        };
        const code = /\b(\d{6})\b/.exec(mail.text)?.[1];
        const time = Number(m[1]);
        for (const { address } of mail.to) {
          const key = address.toLowerCase();
          if (code && (this.codes.get(key)?.time ?? -1) <= time) this.codes.set(key, { code, time });
        }
      } catch {
        this.seen.delete(name); // written but not complete yet: read it again on the next poll
      }
    }
    for (const [address, waiting] of this.waiters) {
      const found = this.codes.get(address);
      if (!found) continue;
      // The file's time is the sending process's Date.now(), on this machine's clock: a code sent for this request is
      // not older than the request.
      const ready = waiting.filter((w) => found.time >= w.after);
      for (const w of ready) w.resolve(found.code);
      const left = waiting.filter((w) => !ready.includes(w));
      if (left.length) this.waiters.set(address, left);
      else this.waiters.delete(address);
    }
    if (this.waiters.size === 0) this.stop();
  }
}

/** The loopback address of user `i` (127.10.0.1 onwards, 250 a block, so no address ends in .0 or .255). */
export function userAddress(i: number, block = 10): string {
  return `127.${block}.${Math.floor(i / 250)}.${(i % 250) + 1}`;
}

export class VirtualUser {
  readonly agent: Agent;
  key!: DpopKey;
  nonce: string | undefined;
  accessToken: string | undefined;
  refreshToken: string | undefined;
  expiresAt = 0;
  private refreshMarginMs = REFRESH_MARGIN_MS;
  walletId: string | undefined;
  publicKey: string | undefined;
  funded = false;
  /** Payments this user's runTransaction answered (success or pending). */
  paid = 0;

  constructor(
    readonly index: number,
    readonly email: string,
    readonly address: string,
    private readonly target: Target,
    private readonly rec: Recorder,
  ) {
    // One connection per user (at most one request of a user is in flight), from the user's own address.
    this.agent = new Agent({ keepAlive: true, maxSockets: 1, localAddress: address });
  }

  async init(): Promise<void> {
    this.key = await createDpopKey();
  }

  close(): void {
    this.agent.destroy();
  }

  /** A request with a fresh DPoP proof (and the access token when signed in), following the server's nonce. */
  private async withProof(
    kind: string,
    baseUrl: string,
    method: string,
    path: string,
    opts: { body?: unknown; session?: boolean; headers?: Record<string, string> } = {},
  ): Promise<Answer> {
    for (let attempt = 0; ; attempt++) {
      const proof = await dpopProof(this.key, {
        method,
        url: this.target.publicUrl + path,
        ...(opts.session ? { accessToken: this.accessToken! } : {}),
        ...(this.nonce ? { nonce: this.nonce } : {}),
      });
      const headers: Record<string, string> = {
        'x-service-api-key': this.target.publishableKey,
        ...opts.headers,
        dpop: proof,
        ...(opts.session ? { authorization: `DPoP ${this.accessToken!}` } : {}),
      };
      const answer = await send(this.agent, baseUrl, method, path, headers, opts.body);
      const nonce = answer.headers['dpop-nonce'];
      if (typeof nonce === 'string') this.nonce = nonce;
      if (answer.status === 401 && answer.body?.code === 'SDK_AUTH_DPOP_USE_NONCE' && attempt === 0) {
        // The nonce exchange of RFC 9449 section 8: expected once per new client and per nonce window, and counted.
        this.rec.request(`${kind} (nonce exchange)`, answer);
        continue;
      }
      this.rec.request(kind, answer);
      return answer;
    }
  }

  /**
   * A sign-in request, retried as a client would (up to 3 attempts) when the service failed (5xx, no answer) or asks
   * to wait a minute at most (429 with Retry-After <= 60 s; a user does not wait out an hour's limit); every attempt
   * is counted.
   */
  private async retrying(attempt: () => Promise<Answer>): Promise<Answer> {
    for (let n = 1; ; n++) {
      const answer = await attempt();
      const retryAfter = Number(answer.headers['retry-after']);
      const wait = Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : 2000;
      const again = answer.status === 0 || answer.status >= 500 || (answer.status === 429 && wait <= 60_000);
      if (!again || n === 3) return answer;
      await new Promise((r) => setTimeout(r, wait));
    }
  }

  /** Email code sign-in; true when signed in. The steps' latencies are what the user waited for each answer. */
  async signIn(): Promise<boolean> {
    const { publishableKey, outbox } = this.target;
    const askedAt = Date.now();
    const t0 = performance.now();
    const start = await this.retrying(async () => {
      const answer = await send(
        this.agent,
        this.target.proxyUrl,
        'POST',
        '/v1/auth/email/start',
        { 'x-service-api-key': publishableKey },
        { email: this.email },
      );
      this.rec.request('sign-in start', answer);
      return answer;
    });
    if (start.status !== 200) return false;
    this.rec.step('sign-in start', performance.now() - t0);
    let code: string;
    try {
      code = await outbox.code(this.email, askedAt);
    } catch {
      this.rec.request('sign-in code (outbox)', { status: 0, body: undefined, headers: {}, ms: 0, failure: 'no mail' });
      return false;
    }
    const t1 = performance.now();
    const verify = await this.retrying(() =>
      this.withProof('sign-in verify', this.target.proxyUrl, 'POST', '/v1/auth/email/verify', {
        body: { email: this.email, code },
      }),
    );
    if (verify.status !== 200) return false;
    const verified = performance.now();
    this.rec.step('sign-in verify', verified - t1);
    const { tokens, wallet } = verify.body.content;
    this.takeTokens(tokens);
    this.walletId = wallet.walletId;
    this.publicKey = wallet.publicKey;
    // First funded: from the verify request (which creates the wallet and, in Immediate mode, activates it) until
    // the user knows the wallet is funded: the verify answer itself, or the wallet read every 500 ms (GET /v1/wallet)
    // when the activation outlasted the sign-in's wait.
    let funded = wallet.funded === true;
    const fundDeadline = performance.now() + 120_000;
    while (!funded && performance.now() < fundDeadline) {
      await new Promise((r) => setTimeout(r, 500));
      await this.refreshIfDue();
      const read = await this.withProof('wallet read', this.target.proxyUrl, 'GET', '/v1/wallet', { session: true });
      funded = read.status === 200 && read.body?.content?.funded === true;
    }
    if (!funded) return false;
    this.funded = true;
    this.rec.step('first funded', performance.now() - t1);
    return true;
  }

  private takeTokens(tokens: { accessToken: string; refreshToken: string; expiresIn: number }): void {
    this.accessToken = tokens.accessToken;
    this.refreshToken = tokens.refreshToken;
    this.expiresAt = Date.now() + tokens.expiresIn * 1000;
    this.refreshMarginMs = Math.min(REFRESH_MARGIN_MS, (tokens.expiresIn * 1000) / 4);
  }

  /** Refreshes the session when its access token expires within the margin (refreshSession, the token rotates). */
  async refreshIfDue(): Promise<void> {
    if (this.expiresAt - Date.now() > this.refreshMarginMs) return;
    const answer = await this.withProof('refresh', this.target.proxyUrl, 'POST', '/v1/auth/refresh', {
      body: { refreshToken: this.refreshToken },
    });
    if (answer.status === 200) this.takeTokens(answer.body.content);
  }

  /** One payment of `stroops` XLM to `destination` by runTransaction; its outcome (`success`, `pending`) or undefined. */
  async pay(destination: string, stroops: number): Promise<string | undefined> {
    await this.refreshIfDue();
    const t0 = performance.now();
    const answer = await this.withProof('runTransaction', this.target.proxyUrl, 'POST', '/v1/tx/run', {
      session: true,
      headers: { 'idempotency-key': randomUUID() },
      body: xlmPayment(destination, stroops),
    });
    if (answer.status !== 200) return undefined;
    this.rec.step('runTransaction', performance.now() - t0);
    this.paid++;
    return answer.body?.content?.status as string | undefined;
  }
}
