// Identity providers for the Google and GitHub sign-in tests, on free local ports:
// - Google: a real OpenID provider (oidc-provider), with registered clients and accounts. `authorize` drives its
//   login and consent pages with plain HTTP requests, as a browser would (cookies, redirects, form posts), until it
//   redirects to the client's redirect URI with `code` and `state`.
// - GitHub: a small HTTP stand-in for its authorize and token endpoints and its user API (`/user`, `/user/emails`).
//   The token endpoint checks what GitHub checks (client credentials, a single-use code, the redirect URI and the
//   PKCE verifier) and refuses the way GitHub does (200 with an `error` field).
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
// @ts-expect-error oidc-provider ships no type declarations
import Provider from 'oidc-provider';

export interface OAuthTestClient {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
}

/** A PKCE pair (RFC 7636, S256), as a client makes one per sign-in. */
export function pkcePair(): { codeVerifier: string; codeChallenge: string } {
  const codeVerifier = randomBytes(32).toString('base64url');
  return { codeVerifier, codeChallenge: createHash('sha256').update(codeVerifier).digest('base64url') };
}

/** A client id and secret that are unique per call. */
export function testClient(label: string, redirectUris: string[]): OAuthTestClient {
  return {
    clientId: `${label}-${randomBytes(6).toString('hex')}`,
    clientSecret: `secret-${randomBytes(24).toString('base64url')}`,
    redirectUris,
  };
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function close(server: Server): Promise<void> {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeAllConnections();
}

/** Cookies by name, as one browser profile keeps them (paths are ignored: one flow at a time). */
class CookieJar {
  private readonly cookies = new Map<string, string>();

  store(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired =
        attributes.some((a) => /^\s*expires=.*1970/i.test(a)) || attributes.some((a) => /^\s*max-age=0\s*$/i.test(a));
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

export interface OidcAccount {
  email: string;
  emailVerified: boolean;
  name?: string;
}

export interface GoogleStandIn {
  /** The issuer: GOOGLE_ISSUER_URL for the service. */
  issuer: string;
  /** Accounts by login (the `sub`); add more at any time. */
  accounts: Map<string, OidcAccount>;
  /**
   * Follows `authorizationUrl` as a browser would: signs in as `login`, consents, and returns the URL the provider
   * finally redirects to (the client's redirect URI with `code` and `state`), without following it.
   */
  authorize(authorizationUrl: string, login: string): Promise<URL>;
  stop(): Promise<void>;
}

/** A real OpenID provider (oidc-provider 9) standing in for Google, with the given clients registered. */
export async function startGoogleStandIn(clients: OAuthTestClient[]): Promise<GoogleStandIn> {
  const accounts = new Map<string, OidcAccount>();
  const server = createServer();
  const issuer = await listen(server);
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const provider = new Provider(issuer, {
    clients: clients.map((c) => ({
      client_id: c.clientId,
      client_secret: c.clientSecret,
      redirect_uris: c.redirectUris,
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_post',
    })),
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    async findAccount(_ctx: unknown, sub: string) {
      const account = accounts.get(sub);
      if (!account) return undefined;
      return {
        accountId: sub,
        claims: async () => ({
          sub,
          email: account.email,
          email_verified: account.emailVerified,
          ...(account.name ? { name: account.name } : {}),
        }),
      };
    },
    pkce: { required: () => true },
    ttl: { AuthorizationCode: 60, Interaction: 600, Session: 600, Grant: 600, AccessToken: 600, IdToken: 600 },
    cookies: { keys: [randomBytes(16).toString('hex')] },
    jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: 'test-key', alg: 'RS256', use: 'sig' }] },
  });
  server.on('request', provider.callback());

  return {
    issuer,
    accounts,
    async authorize(authorizationUrl, login) {
      const jar = new CookieJar();
      let next: { url: URL; init: RequestInit } = { url: new URL(authorizationUrl), init: { method: 'GET' } };
      for (let step = 0; step < 20; step++) {
        const res = await fetch(next.url, {
          ...next.init,
          redirect: 'manual',
          headers: { ...(next.init.headers as Record<string, string>), cookie: jar.header() },
        });
        jar.store(res);
        const location = res.headers.get('location');
        if (res.status >= 300 && res.status < 400 && location) {
          const target = new URL(location, next.url);
          if (target.origin !== issuer) return target;
          next = { url: target, init: { method: 'GET' } };
          continue;
        }
        const html = await res.text();
        const action = html.match(/<form[^>]*action="([^"]+)"[^>]*method="post"/)?.[1];
        const prompt = html.match(/name="prompt" value="(login|consent)"/)?.[1];
        if (res.status !== 200 || !action || !prompt)
          throw new Error(`the provider answered ${res.status} at ${next.url.pathname}: ${html.slice(0, 500)}`);
        const form = new URLSearchParams(prompt === 'login' ? { prompt, login, password: 'any' } : { prompt });
        next = {
          url: new URL(action.replaceAll('&amp;', '&'), next.url),
          init: {
            method: 'POST',
            body: form.toString(),
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
          },
        };
      }
      throw new Error('the provider never redirected back');
    },
    stop: () => close(server),
  };
}

export interface GithubAccount {
  id: number;
  login: string;
  name: string | null;
  emails: { email: string; primary: boolean; verified: boolean }[];
}

export interface GithubStandIn {
  /** GITHUB_OAUTH_URL for the service (`/login/oauth/authorize`, `/login/oauth/access_token`). */
  oauthUrl: string;
  /** GITHUB_API_URL for the service (`/user`, `/user/emails`). */
  apiUrl: string;
  /** Accounts by login; add more at any time. */
  accounts: Map<string, GithubAccount>;
  /** Token requests refused, with GitHub's error code (tests assert that the service's requests were right). */
  refusals: string[];
  /** As a browser signed in to GitHub as `login` that approves the app: the redirect back, not followed. */
  authorize(authorizationUrl: string, login: string): Promise<URL>;
  stop(): Promise<void>;
}

interface PendingCode {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  login: string;
}

async function readBody(req: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of req) body += String(chunk);
  return body;
}

/** A stand-in for GitHub's OAuth endpoints and user API, with the given OAuth apps registered. */
export async function startGithubStandIn(clients: OAuthTestClient[]): Promise<GithubStandIn> {
  const accounts = new Map<string, GithubAccount>();
  const codes = new Map<string, PendingCode>();
  const tokens = new Map<string, string>(); // access token -> login
  const refusals: string[] = [];
  const server = createServer((req, res) => {
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const url = new URL(req.url ?? '/', 'http://stand-in');
    void (async () => {
      if (req.method === 'GET' && url.pathname === '/login/oauth/authorize') {
        const q = url.searchParams;
        const client = clients.find((c) => c.clientId === q.get('client_id'));
        const login = req.headers['x-test-login'];
        const redirectUri = q.get('redirect_uri') ?? '';
        if (
          !client ||
          !client.redirectUris.includes(redirectUri) ||
          q.get('code_challenge_method') !== 'S256' ||
          !q.get('code_challenge') ||
          typeof login !== 'string'
        ) {
          return json(400, { error: 'bad authorization request' });
        }
        const code = randomBytes(10).toString('hex');
        codes.set(code, { clientId: client.clientId, redirectUri, codeChallenge: q.get('code_challenge')!, login });
        const back = new URL(redirectUri);
        back.searchParams.set('code', code);
        back.searchParams.set('state', q.get('state') ?? '');
        res.writeHead(302, { location: back.href });
        return res.end();
      }
      if (req.method === 'POST' && url.pathname === '/login/oauth/access_token') {
        const form = new URLSearchParams(await readBody(req));
        const refuse = (error: string) => {
          refusals.push(error);
          json(200, { error, error_description: error.replaceAll('_', ' ') });
        };
        const client = clients.find((c) => c.clientId === form.get('client_id'));
        if (!client || client.clientSecret !== form.get('client_secret')) return refuse('incorrect_client_credentials');
        const pending = codes.get(form.get('code') ?? '');
        codes.delete(form.get('code') ?? '');
        if (!pending || pending.clientId !== client.clientId) return refuse('bad_verification_code');
        if (pending.redirectUri !== form.get('redirect_uri')) return refuse('redirect_uri_mismatch');
        const challenge = createHash('sha256')
          .update(form.get('code_verifier') ?? '')
          .digest('base64url');
        if (challenge !== pending.codeChallenge) return refuse('invalid_code_verifier');
        const accessToken = `gho_${randomBytes(18).toString('base64url')}`;
        tokens.set(accessToken, pending.login);
        return json(200, { access_token: accessToken, token_type: 'bearer', scope: 'read:user,user:email' });
      }
      if (req.method === 'GET' && (url.pathname === '/api/user' || url.pathname === '/api/user/emails')) {
        const token = req.headers.authorization?.match(/^(?:Bearer|token) (.+)$/i)?.[1];
        const account = accounts.get(tokens.get(token ?? '') ?? '');
        if (!account) return json(401, { message: 'Bad credentials' });
        if (url.pathname === '/api/user/emails')
          return json(
            200,
            account.emails.map((e) => ({ ...e, visibility: null })),
          );
        return json(200, { id: account.id, login: account.login, name: account.name, email: null });
      }
      json(404, { message: 'Not Found' });
    })().catch((err: unknown) => json(500, { message: String(err) }));
  });
  const base = await listen(server);
  return {
    oauthUrl: base,
    apiUrl: `${base}/api`,
    accounts,
    refusals,
    async authorize(authorizationUrl, login) {
      const res = await fetch(authorizationUrl, { redirect: 'manual', headers: { 'x-test-login': login } });
      const location = res.headers.get('location');
      if (res.status !== 302 || !location)
        throw new Error(`GitHub stand-in answered ${res.status}: ${await res.text()}`);
      return new URL(location);
    },
    stop: () => close(server),
  };
}
