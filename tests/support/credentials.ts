// Credentials for each security scheme, used by the contract harness and the integration tests.
// `seedCredentials(db)` stores real keys through the domain code (an operator, an active testnet app, one publishable
// and one secret key), so they pass the gate's lookup; `withSessions(deps, creds)` adds live sessions minted by the
// service's own session machinery (the app owner's Dashboard session and an end-user session of the app), each bound
// to its own DPoP key; `headersFor` then signs a fresh DPoP proof per request (method, URL, access token, the
// server's current nonce). `sampleCredentials` are of the right form only, for the Prism mock (which checks presence)
// and for tests that want an unknown key or token.
import type { Knex } from 'knex';
import { randomBytes } from 'node:crypto';
import type { Deps } from '../../src/domain/deps';
import { createDpopVerifier } from '../../src/domain/sessions/dpop';
import { createSessionService, DEFAULT_SESSION_SETTINGS } from '../../src/domain/sessions/sessions';
import { OPERATOR_SESSION_POLICY } from '../../src/domain/operators/operators';
import { createDpopKey, dpopProof, type DpopKey } from './dpop';
import type { SecuritySchemeName } from '../../generated/server/catalogue.gen';
import { createApiKey } from '../../src/domain/apiKeys/apiKeys';
import { addAppOrigins, createApp, createOperator, type App, type Operator } from '../../src/domain/apps/store';
import { withTx } from '../../src/infra/db/database';

export interface SessionCredential {
  accessToken: string;
  key: DpopKey;
  sessionId: string;
  subjectId: string;
}

export interface Credentials {
  secretKey: string;
  publishableKey: string;
  /** Live sessions (withSessions); without them, headersFor sends form-valid placeholders. */
  operatorSession?: SessionCredential;
  userSession?: SessionCredential;
  /** The server's current DPoP nonce. */
  dpopNonce?: () => string;
}

/** Form-valid, never issued: an access token and a DPoP proof the gate refuses (Prism mock, negative tests). */
export const PLACEHOLDER_ACCESS_TOKEN = 'test-only.access.token';
export const PLACEHOLDER_DPOP_PROOF = 'eyJ0eXAiOiJkcG9wK2p3dCJ9.eyJ0ZXN0Ijp0cnVlfQ.c2lnbmF0dXJl';

const RANDOM = 'TestOnlyNotARealKey0000000000000';

/** Right form, never stored: the gate answers API_KEY_NOT_FOUND to these keys. */
export const sampleCredentials: Credentials = {
  secretKey: `sec_testnet_${RANDOM}`,
  publishableKey: `pub_testnet_${RANDOM}`,
};

export interface SeededCredentials extends Credentials {
  operator: Operator;
  app: App;
  secretKeyId: string;
  publishableKeyId: string;
  /** Origins stored as allowed for the app. */
  origins: string[];
}

let seeded = 0;

/** Stores an operator, an active testnet app (with allowed origins) and one key of each type; returns them. */
export async function seedCredentials(
  db: Knex,
  opts: { origins?: string[]; name?: string } = {},
): Promise<SeededCredentials> {
  const origins = opts.origins ?? ['https://app.example.com'];
  return withTx(db, async (trx) => {
    seeded += 1;
    const operator = await createOperator(trx, { email: `owner-${process.pid}-${Date.now()}-${seeded}@example.com` });
    const app = await createApp(trx, {
      name: opts.name ?? 'Test app',
      network: 'testnet',
      ownerOperatorId: operator.id,
    });
    await addAppOrigins(trx, app.id, origins);
    const secret = await createApiKey(trx, { appId: app.id, type: 'secret', network: 'testnet', label: 'test secret' });
    const publishable = await createApiKey(trx, {
      appId: app.id,
      type: 'publishable',
      network: 'testnet',
      label: 'test publishable',
    });
    return {
      ...sampleCredentials,
      secretKey: secret.key,
      publishableKey: publishable.key,
      operator,
      app,
      secretKeyId: secret.id,
      publishableKeyId: publishable.id,
      origins,
    };
  });
}

/**
 * Adds live sessions to seeded credentials: a Dashboard session of the app's owner and an end-user session of the
 * app, minted by the service's session machinery with the service's secret (as sign-in would), each bound to a new
 * DPoP key. Call it again for fresh sessions (e.g. after a test signed one out); `userId` gives the end-user session to
 * that user (a new one by default), e.g. so that several sessions count in one user's rate limit.
 */
export async function withSessions(
  deps: Pick<Deps, 'db' | 'secrets'>,
  creds: SeededCredentials,
  opts: { userId?: string } = {},
): Promise<SeededCredentials> {
  const sessions = createSessionService(deps.secrets, DEFAULT_SESSION_SETTINGS);
  const now = new Date();
  const mint = async (audience: 'operator' | 'user', subjectId: string): Promise<SessionCredential> => {
    const key = await createDpopKey();
    const tokens = await sessions.start(deps.db, {
      audience,
      subjectId,
      ...(audience === 'user' ? { appId: creds.app.id, network: creds.app.network } : {}),
      jkt: key.jkt,
      authMethod: 'email',
      policy: OPERATOR_SESSION_POLICY,
      now,
    });
    return { accessToken: tokens.accessToken, key, sessionId: tokens.sessionId, subjectId };
  };
  const verifier = createDpopVerifier(deps.db, deps.secrets);
  await verifier.ready();
  return {
    ...creds,
    operatorSession: await mint('operator', creds.operator.id),
    userSession: await mint('user', opts.userId ?? `usr_${randomBytes(11).toString('hex')}`),
    dpopNonce: () => verifier.currentNonce(new Date()),
  };
}

/** The request a DPoP proof is for. */
export interface ProofTarget {
  method: string;
  /** Absolute URL (query ignored). */
  url: string;
}

/**
 * Headers satisfying one security requirement (a list of scheme names that must all pass). With live sessions and a
 * target, the session headers are the access token and a fresh proof for that request; otherwise placeholders.
 */
export async function headersFor(
  requirement: readonly string[],
  credentials: Credentials = sampleCredentials,
  target?: ProofTarget,
): Promise<Record<string, string>> {
  const headers: Record<string, string> = {};
  const session = requirement.includes('userSession')
    ? credentials.userSession
    : requirement.includes('operatorSession')
      ? credentials.operatorSession
      : undefined;
  for (const scheme of requirement as SecuritySchemeName[]) {
    switch (scheme) {
      case 'secretKey':
        headers['x-service-api-key'] = credentials.secretKey;
        break;
      case 'publishableKey':
        headers['x-service-api-key'] = credentials.publishableKey;
        break;
      case 'userSession':
      case 'operatorSession':
        headers.authorization = `DPoP ${session?.accessToken ?? PLACEHOLDER_ACCESS_TOKEN}`;
        break;
      case 'dpopProof': {
        // An operation with a proof but no session (sign-in, refresh) is signed with the operator session's key.
        const key = (session ?? credentials.operatorSession)?.key;
        headers.dpop =
          key && target
            ? await dpopProof(key, {
                method: target.method,
                url: target.url,
                ...(session ? { accessToken: session.accessToken } : {}),
                ...(credentials.dpopNonce ? { nonce: credentials.dpopNonce() } : {}),
              })
            : PLACEHOLDER_DPOP_PROOF;
        break;
      }
    }
  }
  return headers;
}
