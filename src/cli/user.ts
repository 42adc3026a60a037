// `npm run user -- <command>`: the end-user half of the API from a shell, built on the client library (@onboard/core)
// as an app's frontend would use it. Every SDK call needs a session and a DPoP proof, which curl cannot make; this
// CLI signs in with an email code read from the dev outbox, keeps the session and its DPoP key in
// `<dataDir>/cli-session.json` (mode 0600, like any credential store), and calls any SDK operation by operationId.
// Dev use: the DPoP private key is kept in that file so that the session outlives one process (a browser keeps it
// non-extractable in IndexedDB instead).
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import {
  createDpopSigner,
  createOnboardClient,
  type Failure,
  type OnboardClient,
  type Outcome,
  type SessionTokensLike,
} from '../../sdk/core/src/index';
import { operations, type OperationId } from '../../generated/server/catalogue.gen';
import { readOutbox } from '../infra/mail/index';

export const USER_USAGE = `usage: npm run user -- <command> [options]

  sign-in --email <address>
      signs in with an email code (read from the dev outbox), keeps the session and its DPoP key
  call <operationId> [--body '<json>'] [--path name=value]... [--query name=value]... [--wait]
      calls one SDK API operation with the session (getWallet, getWalletBalances, runTransaction, getTxHistory, ...);
      with --wait, a transaction answered 'pending' is followed until it is final
  wait <hash>
      follows a transaction until it is final (success or failed), at most --timeout seconds (60)
  whoami
      the signed-in user and wallet
  sign-out
      ends the session and forgets it

Settings come from the environment (. .data/demo-keys.env sets them): ONBOARD_URL, ONBOARD_PUBLISHABLE_KEY, and
ONBOARD_DATA_DIR (default .data) for the dev outbox and the session file.`;

export class UserCliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

interface StoredSession {
  baseUrl: string;
  publishableKey: string;
  tokens: SessionTokensLike;
  dpopPrivateJwk: JWK;
  userId: string;
  email: string | null;
  wallet: { publicKey: string; network: string };
}

export interface UserCliEnv {
  baseUrl?: string;
  publishableKey?: string;
  dataDir: string;
}

/** The environment the CLI reads. */
export function userCliEnv(env: NodeJS.ProcessEnv = process.env): UserCliEnv {
  return {
    ...(env.ONBOARD_URL ? { baseUrl: env.ONBOARD_URL } : {}),
    ...(env.ONBOARD_PUBLISHABLE_KEY ? { publishableKey: env.ONBOARD_PUBLISHABLE_KEY } : {}),
    dataDir: resolve(env.ONBOARD_DATA_DIR || '.data'),
  };
}

const sessionFile = (env: UserCliEnv) => join(env.dataDir, 'cli-session.json');

function saveSession(env: UserCliEnv, session: StoredSession): void {
  const file = sessionFile(env);
  writeFileSync(file, `${JSON.stringify(session, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
}

function loadSession(env: UserCliEnv): StoredSession {
  const file = sessionFile(env);
  if (!existsSync(file))
    throw new UserCliError(`not signed in (no ${file}): npm run user -- sign-in --email <address>`, 1);
  return JSON.parse(readFileSync(file, 'utf8')) as StoredSession;
}

function required(value: string | undefined, what: string): string {
  if (!value) throw new UserCliError(`${what} is not set: . .data/demo-keys.env (or set it in the environment)`, 2);
  return value;
}

async function clientFor(baseUrl: string, publishableKey: string, privateJwk: JWK): Promise<OnboardClient> {
  const privateKey = (await importJWK(privateJwk, 'ES256')) as CryptoKey;
  const { x, y, crv, kty } = privateJwk;
  const publicKey = (await importJWK({ kty, crv, x, y }, 'ES256')) as CryptoKey;
  const dpop = await createDpopSigner({ privateKey, publicKey });
  return createOnboardClient({ baseUrl, apiKey: publishableKey, dpop });
}

/** The newest sign-in code the dev outbox holds for `email`, sent after `since`; polled briefly (mail is written async). */
async function codeFromOutbox(env: UserCliEnv, email: string, since: number): Promise<string> {
  const outbox = join(env.dataDir, 'outbox');
  for (let attempt = 0; attempt < 50; attempt++) {
    const [message] = await readOutbox(outbox, {
      to: email,
      kind: 'user-sign-in-code',
      since: new Date(since - 1000),
      limit: 1,
    });
    const code = /(\d{6})\s*$/.exec(message?.subject ?? '')?.[1];
    if (code) return code;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new UserCliError(`no sign-in code for ${email} in ${outbox} (is the service using the dev outbox?)`, 1);
}

function failureLine(failure: Failure): string {
  return `${failure.code}${failure.status ? ` (${failure.status})` : ''}: ${failure.message ?? ''}`.trim();
}

/** Fails with the API's answer; a NETWORK_ERROR says which URL did not answer. */
function expect<T>(outcome: Outcome<T>, baseUrl: string): T {
  if (outcome.ok) return outcome.content;
  if (outcome.code === 'NETWORK_ERROR')
    throw new UserCliError(`the service at ${baseUrl} did not answer (${outcome.message ?? ''})`, 1);
  throw new UserCliError(failureLine(outcome), 1);
}

async function signIn(env: UserCliEnv, email: string, out: (line: string) => void): Promise<void> {
  const baseUrl = required(env.baseUrl, 'ONBOARD_URL');
  const publishableKey = required(env.publishableKey, 'ONBOARD_PUBLISHABLE_KEY');
  const pair = await generateKeyPair('ES256', { extractable: true });
  const dpopPrivateJwk = await exportJWK(pair.privateKey);
  const client = await clientFor(baseUrl, publishableKey, dpopPrivateJwk);
  const since = Date.now();
  const sent = expect(await client.startEmailSignIn({ body: { email } }), baseUrl);
  out(`code sent to ${email} (valid ${sent.expiresInSeconds} s); reading it from the dev outbox...`);
  const code = await codeFromOutbox(env, email, since);
  const result = expect(await client.verifyEmailSignIn({ body: { email, code } }), baseUrl);
  saveSession(env, {
    baseUrl,
    publishableKey,
    tokens: result.tokens,
    dpopPrivateJwk,
    userId: result.user.userId,
    email: result.user.email,
    wallet: { publicKey: result.wallet.publicKey, network: result.wallet.network },
  });
  out(`signed in: user ${result.user.userId}`);
  out(
    `wallet:    ${result.wallet.publicKey} (${result.wallet.network}, ${result.wallet.funded ? 'funded' : 'not funded yet'})`,
  );
  out(`session:   kept in ${sessionFile(env)} (mode 0600)`);
}

/** A signed-in client; an expired access token is refreshed once (and the new tokens kept). */
async function sessionClient(
  env: UserCliEnv,
): Promise<{ client: OnboardClient; session: StoredSession; refresh: () => Promise<boolean> }> {
  const session = loadSession(env);
  const client = await clientFor(session.baseUrl, session.publishableKey, session.dpopPrivateJwk);
  client.session.set(session.tokens);
  const refresh = async () => {
    const refreshed = await client.refreshSession({ body: { refreshToken: session.tokens.refreshToken } });
    if (!refreshed.ok) return false;
    session.tokens = refreshed.content;
    client.session.set(session.tokens);
    saveSession(env, session);
    return true;
  };
  return { client, session, refresh };
}

function keyValues(values: string[] | undefined, flag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of values ?? []) {
    const at = v.indexOf('=');
    if (at <= 0) throw new UserCliError(`--${flag} ${v}: expected name=value`, 2);
    out[v.slice(0, at)] = v.slice(at + 1);
  }
  return out;
}

type AnyCall = (options?: {
  body?: unknown;
  path?: Record<string, string>;
  query?: Record<string, string>;
}) => Promise<Outcome<unknown>>;

async function call(
  env: UserCliEnv,
  operationId: string,
  input: { body?: unknown; path: Record<string, string>; query: Record<string, string>; wait: boolean },
  out: (line: string) => void,
): Promise<void> {
  if (!(operationId in operations) || !operations[operationId as OperationId].group.startsWith('sdk-')) {
    throw new UserCliError(`${operationId} is not an SDK API operation (see the API docs at /docs)`, 2);
  }
  const { client, session, refresh } = await sessionClient(env);
  const fn = (client as unknown as Record<string, AnyCall>)[operationId];
  if (!fn) throw new UserCliError(`the client library has no ${operationId}`, 2);
  const options = {
    ...(input.body !== undefined ? { body: input.body } : {}),
    ...(Object.keys(input.path).length ? { path: input.path } : {}),
    ...(Object.keys(input.query).length ? { query: input.query } : {}),
  };
  let outcome = await fn(options);
  if (!outcome.ok && outcome.code === 'SDK_AUTH_TOKEN_EXPIRED' && (await refresh())) outcome = await fn(options);
  out(
    JSON.stringify(outcome.ok ? { code: outcome.code, content: outcome.content } : (outcome.body ?? outcome), null, 2),
  );
  if (!outcome.ok) {
    if (outcome.code === 'NETWORK_ERROR') throw new UserCliError(`the service at ${session.baseUrl} did not answer`, 1);
    throw new UserCliError(failureLine(outcome), 1);
  }
  // A submitted transaction whose ledger had not closed within the service's wait: it is recorded and confirmed later.
  const content = outcome.content as { status?: unknown; hash?: unknown };
  if (content.status === 'pending' && typeof content.hash === 'string') {
    out(`pending: submitted, its ledger has not closed yet (ledgers close every few seconds)`);
    if (input.wait) await wait(env, content.hash, 60, out);
    else out(`follow it with: npm run user -- wait ${content.hash}`);
  }
}

async function wait(env: UserCliEnv, hash: string, timeoutSeconds: number, out: (line: string) => void): Promise<void> {
  const { client, session, refresh } = await sessionClient(env);
  const deadline = Date.now() + timeoutSeconds * 1000;
  let last = '';
  for (;;) {
    let outcome = await client.getTransaction({ path: { hash } });
    if (!outcome.ok && outcome.code === 'SDK_AUTH_TOKEN_EXPIRED' && (await refresh()))
      outcome = await client.getTransaction({ path: { hash } });
    const status = outcome.ok ? outcome.content.status : outcome.code;
    if (status !== last) out(`${new Date().toISOString()}  ${hash}  ${status}`);
    last = status;
    if (outcome.ok && outcome.content.status !== 'PENDING') {
      out(JSON.stringify(outcome.content, null, 2));
      if (outcome.content.status === 'FAILED')
        throw new UserCliError(`failed: ${outcome.content.resultCode ?? 'no result code'}`, 1);
      return;
    }
    if (!outcome.ok && outcome.code !== 'TX_NOT_FOUND') expect(outcome, session.baseUrl);
    if (Date.now() > deadline)
      throw new UserCliError(`still ${status} after ${timeoutSeconds} s; run wait again later`, 1);
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** Runs one command; exit codes: 0 done, 1 the API or the service said no, 2 a usage error. */
export async function runUserCommand(argv: string[], env: UserCliEnv, out: (line: string) => void): Promise<void> {
  const [command, ...rest] = argv;
  let parsed;
  try {
    parsed = parseArgs({
      args: rest,
      strict: true,
      allowPositionals: true,
      options: {
        email: { type: 'string' },
        body: { type: 'string' },
        path: { type: 'string', multiple: true },
        query: { type: 'string', multiple: true },
        timeout: { type: 'string' },
        wait: { type: 'boolean' },
      },
    });
  } catch (err) {
    throw new UserCliError(err instanceof Error ? err.message : String(err), 2);
  }
  const { values, positionals } = parsed;
  switch (command) {
    case 'sign-in': {
      if (!values.email || !/^[^@\s]+@[^@\s]+$/.test(values.email))
        throw new UserCliError('--email <address> is required', 2);
      return signIn(env, values.email, out);
    }
    case 'call': {
      const [operationId] = positionals;
      if (!operationId) throw new UserCliError('call needs an operationId', 2);
      let body: unknown;
      if (values.body !== undefined) {
        try {
          body = JSON.parse(values.body);
        } catch {
          throw new UserCliError(`--body is not JSON: ${values.body}`, 2);
        }
      }
      const request = { body, path: keyValues(values.path, 'path'), query: keyValues(values.query, 'query') };
      return call(env, operationId, { ...request, wait: values.wait === true }, out);
    }
    case 'wait': {
      const [hash] = positionals;
      if (!hash) throw new UserCliError('wait needs a transaction hash', 2);
      const timeout = values.timeout === undefined ? 60 : Number(values.timeout);
      if (!Number.isFinite(timeout) || timeout <= 0) throw new UserCliError('--timeout must be a number of seconds', 2);
      return wait(env, hash, timeout, out);
    }
    case 'whoami': {
      const session = loadSession(env);
      out(
        `user ${session.userId}${session.email ? ` (${session.email})` : ''}, wallet ${session.wallet.publicKey} (${session.wallet.network}) at ${session.baseUrl}`,
      );
      return;
    }
    case 'sign-out': {
      const { client } = await sessionClient(env);
      const outcome = await client.signOut();
      rmSync(sessionFile(env), { force: true });
      out(outcome.ok ? 'signed out' : `session forgotten here (the service said ${failureLine(outcome)})`);
      return;
    }
    default:
      throw new UserCliError(command ? `unknown command ${command}` : 'no command given', 2);
  }
}

if (process.argv[1]?.endsWith('user.ts')) {
  runUserCommand(process.argv.slice(2), userCliEnv(), (line) => process.stdout.write(`${line}\n`)).catch(
    (err: unknown) => {
      if (err instanceof UserCliError) {
        process.stderr.write(`${err.message}\n${err.exitCode === 2 ? `\n${USER_USAGE}\n` : ''}`);
        process.exit(err.exitCode);
      }
      process.stderr.write(`unexpected error: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
