// Operators in tests: sign in through the real email-code flow (the code read from the service's dev outbox), then
// call Dashboard operations with the access token and a fresh DPoP proof per request, following the server's nonce.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OperationId } from '../../generated/server/catalogue.gen';
import { call, conforming, rawCall, type CallOptions } from './http';
import type { ObservedResponse } from './spec';
import type { TestService } from './service';
import { createDpopKey, dpopProof, type DpopKey } from './dpop';

export interface OperatorClient {
  operatorId: string;
  email: string;
  key: DpopKey;
  accessToken: string;
  refreshToken: string;
  sessionId: string;
  /** Calls an operation with the session (token + fresh proof) and checks the answer against the contract. */
  call(
    operationId: OperationId,
    method: string,
    path: string,
    opts?: CallOptions,
  ): Promise<ObservedResponse & { body: any }>;
  /** The same without the contract check, for answers outside it. */
  rawCall(method: string, path: string, opts?: CallOptions): Promise<ObservedResponse & { body: any }>;
}

let counter = 0;

/** A unique operator address for a test. */
export function testEmail(label = 'operator'): string {
  counter += 1;
  return `${label}-${process.pid}-${Date.now()}-${counter}@example.com`;
}

interface OutboxMessage {
  to: { address: string }[];
  subject: string;
  text: string;
}

/** The messages in a service's dev outbox sent to `email`, oldest first. */
export function outboxFor(svc: Pick<TestService, 'dataDir'>, email: string): OutboxMessage[] {
  const dir = join(svc.dataDir, 'outbox');
  let files: string[];
  try {
    files = readdirSync(dir).sort();
  } catch {
    return [];
  }
  return files
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as OutboxMessage)
    .filter((m) => m.to.some((t) => t.address.toLowerCase() === email.toLowerCase()));
}

/** The sign-in code of the newest code email sent to `email`. */
export function latestCode(svc: Pick<TestService, 'dataDir'>, email: string): string {
  const messages = outboxFor(svc, email).filter((m) => /sign-in code/i.test(m.subject));
  const code = messages.at(-1)?.text.match(/\b(\d{6})\b/)?.[1];
  if (!code) throw new Error(`no sign-in code in the outbox for ${email}`);
  return code;
}

/**
 * Sends a request with a DPoP proof, following the nonce dance: a 401 SDK_AUTH_DPOP_USE_NONCE is retried once with
 * the nonce from its DPoP-Nonce header. `state.nonce` keeps the newest nonce the server sent.
 */
export async function sendWithProof(
  baseUrl: string,
  key: DpopKey,
  state: { nonce?: string },
  method: string,
  path: string,
  opts: CallOptions & { accessToken?: string } = {},
): Promise<ObservedResponse & { body: any }> {
  for (let attempt = 0; ; attempt++) {
    const proof = await dpopProof(key, {
      method,
      url: baseUrl + path,
      ...(opts.accessToken ? { accessToken: opts.accessToken } : {}),
      ...(state.nonce ? { nonce: state.nonce } : {}),
    });
    const headers: Record<string, string> = { ...opts.headers, dpop: proof };
    if (opts.accessToken) headers.authorization = `DPoP ${opts.accessToken}`;
    const res = (await rawCall(baseUrl, method, path, { ...opts, headers })) as ObservedResponse & { body: any };
    const nonce = res.headers.get('dpop-nonce');
    if (nonce) state.nonce = nonce;
    if (res.status === 401 && res.body?.code === 'SDK_AUTH_DPOP_USE_NONCE' && attempt === 0) continue;
    return res;
  }
}

/** Signs an operator in by email code (creating them on first sign-in) and returns a client for their session. */
export async function signInOperator(svc: TestService, email: string = testEmail()): Promise<OperatorClient> {
  const start = await call(svc.url, 'startOperatorEmailSignIn', 'POST', '/api/v1/auth/email/start', {
    body: { email },
  });
  if (start.status !== 200) throw new Error(`email start answered ${start.status}: ${start.text}`);
  const key = await createDpopKey();
  const state: { nonce?: string } = {};
  const verify = await sendWithProof(svc.url, key, state, 'POST', '/api/v1/auth/email/verify', {
    body: { email, code: latestCode(svc, email) },
  });
  if (verify.status !== 200) throw new Error(`email verify answered ${verify.status}: ${verify.text}`);
  const { tokens, operator } = verify.body.content;
  const client: OperatorClient = {
    operatorId: operator.operatorId,
    email,
    key,
    accessToken: tokens.accessToken,
    refreshToken: tokens.refreshToken,
    sessionId: tokens.sessionId,
    async rawCall(method, path, opts = {}) {
      return sendWithProof(svc.url, key, state, method, path, { ...opts, accessToken: client.accessToken });
    },
    async call(operationId, method, path, opts = {}) {
      return conforming(operationId, method, path, await client.rawCall(method, path, opts));
    },
  };
  return client;
}

/**
 * A new app of `owner`, made through createApp, with each of `members` added to its team in its role (addMember);
 * answers the app id.
 */
export async function teamAppOf(
  owner: OperatorClient,
  members: [OperatorClient, 'admin' | 'developer'][],
  name = 'Team app',
): Promise<string> {
  const created = await owner.call('createApp', 'POST', '/api/v1/apps', { body: { name, network: 'testnet' } });
  assert.equal(created.status, 201, created.text);
  const appId: string = created.body.content.appId;
  for (const [member, role] of members) {
    const added = await owner.call('addMember', 'POST', `/api/v1/apps/${appId}/members`, {
      body: { email: member.email, role },
    });
    assert.equal(added.status, 201, added.text);
  }
  return appId;
}
