// The shared security suite (issue #4, item 6): every protected operation of the contract, found from
// `operations[id].security` in the generated catalogue (never a hand list), is sent an otherwise valid generated
// request (fixed seed) with one credential broken at a time, and must answer the interface spec's code, per contract.
// An operation added to the spec is covered the moment it is generated.
//
//   API key cases (requirements with secretKey or publishableKey): missing, malformed, unknown, revoked, expired,
//   the other key type of the same app, archived app, a browser Origin not in the app's list, over the limit.
//   Session cases (requirements with userSession, operatorSession or dpopProof): no session token, a non-DPoP
//   Authorization, missing DPoP proof, malformed DPoP proof.
//
// Sessions are real: `withSessions` mints a live Dashboard session and a live end-user session, and every valid
// request carries a fresh DPoP proof for its method and URL. The session cases add: an expired access token, a
// revoked session, a token of the other surface, an end-user token of another app, a proof signed by another key
// than the token's, a replayed proof, a proof without the server nonce.
//
// One service holds every case but the limit, which runs on a second service with a per-key limit of one request
// per minute. Each case is its own subtest named `<operationId>: <case>`; they run with limited concurrency.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { operations, type OperationId, type SecuritySchemeName } from '../../generated/server/catalogue.gen';
import { createApiKey, generateApiKey, revokeApiKey, setApiKeyExpiry } from '../../src/domain/apiKeys/apiKeys';
import type { ApiKeyType } from '../../src/domain/apiKeys/keyFormat';
import { archiveApp } from '../../src/domain/apps/store';
import {
  headersFor,
  seedCredentials,
  withSessions,
  type SeededCredentials,
  type SessionCredential,
} from '../support/credentials';
import { createDpopKey, dpopProof } from '../support/dpop';
import { createSessionService, DEFAULT_SESSION_SETTINGS } from '../../src/domain/sessions/sessions';
import { call } from '../support/http';
import { requestArb, urlOf, type GeneratedRequest } from '../support/requests';
import { startTestService, type TestService } from '../support/service';

const SEED = 20261122;
const CONCURRENCY = 16;
const KEY_SCHEMES: readonly SecuritySchemeName[] = ['secretKey', 'publishableKey'];
const SESSION_SCHEMES: readonly SecuritySchemeName[] = ['userSession', 'operatorSession', 'dpopProof'];

type Requirement = readonly SecuritySchemeName[];

interface Protected {
  id: OperationId;
  method: string;
  /** The requirement under test: the first one of the operation that holds the schemes a case targets. */
  requirement: Requirement;
  request: GeneratedRequest;
}

/** What the suite stores before the cases run (on the main service). */
interface Fixtures {
  creds: SeededCredentials;
  /** Keys of the same app, by type, that were revoked / that expired. */
  revoked: Record<ApiKeyType, string>;
  expired: Record<ApiKeyType, string>;
  /** Keys of an app that was archived. */
  archived: SeededCredentials;
  /** Sessions of the same subjects that no longer work. */
  expiredSession: { operator: SessionCredential; user: SessionCredential };
  revokedSession: { operator: SessionCredential; user: SessionCredential };
  /** A live end-user session of another app. */
  otherAppUser: SessionCredential;
  svcUrl: string;
}

interface Expected {
  status: number;
  code: string;
  /** The answer must carry Retry-After (seconds). */
  retryAfter?: boolean;
}

interface Case {
  name: string;
  /** Headers of the request: the requirement's well-formed credentials with this case's break applied. */
  headers(op: Protected, f: Fixtures): Promise<Record<string, string>>;
  expect(op: Protected): Expected;
  /** Send the request twice (replay cases); the second answer is checked. */
  twice?: boolean;
}

const typeOf = (r: Requirement): ApiKeyType => (r.includes('secretKey') ? 'secret' : 'publishable');
const otherType = (t: ApiKeyType): ApiKeyType => (t === 'secret' ? 'publishable' : 'secret');
const keyOf = (creds: SeededCredentials, t: ApiKeyType) => (t === 'secret' ? creds.secretKey : creds.publishableKey);
const targetOf = (op: Protected, f: Fixtures) => ({ method: op.method, url: f.svcUrl + urlOf(op.id, op.request) });
const valid = (op: Protected, f: Fixtures) => headersFor(op.requirement, f.creds, targetOf(op, f));
const withKey = async (op: Protected, f: Fixtures, key: string | undefined) => {
  const h = await valid(op, f);
  if (key === undefined) delete h['x-service-api-key'];
  else h['x-service-api-key'] = key;
  return h;
};

const KEY_CASES: Case[] = [
  {
    name: 'missing key',
    headers: (op, f) => withKey(op, f, undefined),
    expect: () => ({ status: 401, code: 'INVALID_CREDENTIALS' }),
  },
  {
    name: 'malformed key',
    headers: (op, f) => withKey(op, f, `${typeOf(op.requirement) === 'secret' ? 'sec' : 'pub'}_testnet_short!`),
    expect: () => ({ status: 401, code: 'INVALID_CREDENTIALS' }),
  },
  {
    name: 'unknown well-formed key',
    headers: (op, f) => withKey(op, f, generateApiKey(typeOf(op.requirement), 'testnet')),
    expect: () => ({ status: 401, code: 'API_KEY_NOT_FOUND' }),
  },
  {
    name: 'revoked key',
    headers: (op, f) => withKey(op, f, f.revoked[typeOf(op.requirement)]),
    expect: () => ({ status: 401, code: 'API_KEY_NOT_FOUND' }),
  },
  {
    name: 'expired key',
    headers: (op, f) => withKey(op, f, f.expired[typeOf(op.requirement)]),
    expect: () => ({ status: 401, code: 'API_KEY_EXPIRED' }),
  },
  {
    name: 'key of the other type',
    headers: (op, f) => withKey(op, f, keyOf(f.creds, otherType(typeOf(op.requirement)))),
    expect: () => ({ status: 403, code: 'API_KEY_TYPE_NOT_ALLOWED' }),
  },
  {
    name: 'archived app',
    headers: (op, f) => withKey(op, f, keyOf(f.archived, typeOf(op.requirement))),
    expect: () => ({ status: 404, code: 'APPLICATION_NOT_FOUND' }),
  },
  {
    name: 'Origin not allowed',
    headers: async (op, f) => ({ ...(await valid(op, f)), origin: 'https://evil.example.com' }),
    expect: () => ({ status: 403, code: 'ORIGIN_NOT_ALLOWED' }),
  },
];

const hasSession = (r: Requirement) => r.includes('userSession') || r.includes('operatorSession');
const sessionCode = (op: Protected) =>
  op.requirement.includes('userSession') ? 'SDK_AUTH_INVALID_TOKEN' : 'INVALID_CREDENTIALS';
const audienceOf = (r: Requirement): 'user' | 'operator' => (r.includes('userSession') ? 'user' : 'operator');

/** Valid headers for the operation, but with another session (token + a proof by that session's key). */
async function withSession(op: Protected, f: Fixtures, session: SessionCredential): Promise<Record<string, string>> {
  const creds = { ...f.creds, [audienceOf(op.requirement) === 'user' ? 'userSession' : 'operatorSession']: session };
  return headersFor(op.requirement, creds, targetOf(op, f));
}

const SESSION_CASES: (Case & { applies(r: Requirement): boolean })[] = [
  {
    name: 'no session token',
    applies: hasSession,
    headers: async (op, f) => {
      const h = await valid(op, f);
      delete h.authorization;
      return h;
    },
    expect: (op) => ({ status: 401, code: sessionCode(op) }),
  },
  {
    name: 'session token not in the DPoP scheme',
    applies: hasSession,
    headers: async (op, f) => {
      const h = await valid(op, f);
      return { ...h, authorization: h.authorization!.replace(/^DPoP /, 'Bearer ') };
    },
    expect: () => ({ status: 401, code: 'SDK_AUTH_INVALID_TOKEN' }),
  },
  {
    name: 'expired access token',
    applies: hasSession,
    headers: (op, f) => withSession(op, f, f.expiredSession[audienceOf(op.requirement)]),
    expect: () => ({ status: 401, code: 'SDK_AUTH_TOKEN_EXPIRED' }),
  },
  {
    name: 'revoked session',
    applies: hasSession,
    headers: (op, f) => withSession(op, f, f.revokedSession[audienceOf(op.requirement)]),
    expect: () => ({ status: 401, code: 'SDK_AUTH_INVALID_TOKEN' }),
  },
  {
    name: 'token of the other surface',
    applies: hasSession,
    headers: (op, f) =>
      withSession(op, f, audienceOf(op.requirement) === 'user' ? f.creds.operatorSession! : f.creds.userSession!),
    expect: () => ({ status: 401, code: 'SDK_AUTH_INVALID_TOKEN' }),
  },
  {
    name: 'end-user token of another app',
    applies: (r) => r.includes('userSession'),
    headers: (op, f) => withSession(op, f, f.otherAppUser),
    expect: () => ({ status: 401, code: 'SDK_AUTH_INVALID_TOKEN' }),
  },
  {
    name: 'missing DPoP proof',
    applies: (r) => r.includes('dpopProof'),
    headers: async (op, f) => {
      const h = await valid(op, f);
      delete h.dpop;
      return h;
    },
    expect: () => ({ status: 401, code: 'SDK_AUTH_DPOP_REQUIRED' }),
  },
  {
    name: 'malformed DPoP proof',
    applies: (r) => r.includes('dpopProof'),
    headers: async (op, f) => ({ ...(await valid(op, f)), dpop: 'not a compact JWS' }),
    expect: () => ({ status: 401, code: 'SDK_AUTH_DPOP_INVALID' }),
  },
  {
    name: 'proof not signed by the session key',
    applies: hasSession,
    headers: async (op, f) => {
      const session = audienceOf(op.requirement) === 'user' ? f.creds.userSession! : f.creds.operatorSession!;
      return withSession(op, f, { ...session, key: await createDpopKey() });
    },
    expect: () => ({ status: 401, code: 'SDK_AUTH_DPOP_INVALID' }),
  },
  {
    name: 'proof without the server nonce',
    applies: (r) => r.includes('dpopProof'),
    headers: async (op, f) => {
      const h = await valid(op, f);
      const session = hasSession(op.requirement)
        ? audienceOf(op.requirement) === 'user'
          ? f.creds.userSession!
          : f.creds.operatorSession!
        : f.creds.operatorSession!;
      const t = targetOf(op, f);
      return {
        ...h,
        dpop: await dpopProof(session.key, {
          method: t.method,
          url: t.url,
          ...(hasSession(op.requirement) ? { accessToken: session.accessToken } : {}),
        }),
      };
    },
    expect: () => ({ status: 401, code: 'SDK_AUTH_DPOP_USE_NONCE' }),
  },
  {
    name: 'replayed proof',
    applies: (r) => r.includes('dpopProof'),
    twice: true,
    headers: (op, f) => valid(op, f),
    expect: () => ({ status: 401, code: 'SDK_AUTH_DPOP_INVALID' }),
  },
];

/** The protected operations whose requirement includes one of `schemes`, from the generated catalogue. */
function protectedOperations(schemes: readonly SecuritySchemeName[]): Protected[] {
  const out: Protected[] = [];
  for (const id of (Object.keys(operations) as OperationId[]).sort()) {
    const requirements = operations[id].security as readonly Requirement[];
    const requirement = requirements.find((r) => r.some((s) => schemes.includes(s)));
    if (!requirement) continue;
    const [request] = fc.sample(requestArb(id), { numRuns: 1, seed: SEED });
    assert.ok(request, id);
    out.push({ id, method: operations[id].method.toUpperCase(), requirement, request });
  }
  return out;
}

const keyed = protectedOperations(KEY_SCHEMES);
const sessioned = protectedOperations(SESSION_SCHEMES);

async function send(svc: TestService, op: Protected, headers: Record<string, string>) {
  // `call` fails the subtest on any contract violation (status not documented, body or headers off the schema).
  return call(svc.url, op.id, op.method, urlOf(op.id, op.request), {
    headers: { ...op.request.headers, ...headers },
    body: op.request.body,
  });
}

function check(res: Awaited<ReturnType<typeof send>>, expected: Expected): void {
  const context = `answered ${res.status}: ${res.text.slice(0, 300)}`;
  assert.equal(res.status, expected.status, context);
  assert.equal(res.body?.code, expected.code, context);
  if (expected.retryAfter) {
    const retry = res.headers.get('retry-after');
    assert.ok(
      retry !== null && /^\d+$/.test(retry) && Number(retry) >= 1,
      `Retry-After is a positive number of seconds, got ${retry}`,
    );
  }
}

test('the suite covers every protected operation of the contract', () => {
  const all = (Object.keys(operations) as OperationId[]).filter((id) => operations[id].security.length > 0);
  const covered = new Set([...keyed, ...sessioned].map((o) => o.id));
  assert.deepEqual(
    all.filter((id) => !covered.has(id)),
    [],
    'protected operations the suite does not reach',
  );
  assert.ok(keyed.length > 0 && sessioned.length > 0);
});

describe('security: every operation behind an API key or a session', { concurrency: CONCURRENCY }, () => {
  let svc: TestService;
  let fixtures: Fixtures;

  async function prepareFixtures(deps: TestService['deps'], svcUrl: string): Promise<Fixtures> {
    const db = deps.db;
    const creds = await withSessions(deps, await seedCredentials(db, { origins: ['https://app.example.com'] }));
    const archived = await seedCredentials(db, { name: 'Archived app' });
    await archiveApp(db, archived.app.id);
    const make = async (type: ApiKeyType, spoil: (id: string) => Promise<void>) => {
      const key = await createApiKey(db, {
        appId: creds.app.id,
        type,
        network: 'testnet',
        label: `security suite ${type}`,
      });
      await spoil(key.id);
      return key.key;
    };
    const revoke = async (id: string) => {
      await revokeApiKey(db, id);
    };
    const expire = (id: string) => setApiKeyExpiry(db, id, new Date(Date.now() - 60_000));
    // Sessions of the same operator and app: one whose access token expired (signed an hour ago for a minute), one
    // signed out; and a live end-user session of another app.
    const sessions = createSessionService(deps.secrets, DEFAULT_SESSION_SETTINGS);
    const expiredOf = async (s: SessionCredential, audience: 'user' | 'operator'): Promise<SessionCredential> => ({
      ...s,
      accessToken: await sessions.tokens.sign(
        {
          audience,
          subjectId: s.subjectId,
          sessionId: s.sessionId,
          jkt: s.key.jkt,
          ...(audience === 'user' ? { appId: creds.app.id } : {}),
        },
        new Date(Date.now() - 3_600_000),
        60,
      ),
    });
    const revoked = await withSessions(deps, creds);
    for (const s of [revoked.operatorSession!, revoked.userSession!])
      await sessions.revoke(db, s.sessionId, 'sign_out', new Date());
    const other = await withSessions(deps, await seedCredentials(db, { name: 'Another app' }));
    return {
      creds,
      archived,
      svcUrl,
      expiredSession: {
        operator: await expiredOf(creds.operatorSession!, 'operator'),
        user: await expiredOf(creds.userSession!, 'user'),
      },
      revokedSession: { operator: revoked.operatorSession!, user: revoked.userSession! },
      otherAppUser: other.userSession!,
      revoked: { secret: await make('secret', revoke), publishable: await make('publishable', revoke) },
      expired: { secret: await make('secret', expire), publishable: await make('publishable', expire) },
    };
  }

  before(async () => {
    svc = await startTestService({ LOCALNET: 'off' });
    fixtures = await prepareFixtures(svc.deps, svc.url);
  });
  after(async () => {
    await svc?.stop();
  });

  for (const op of keyed) {
    for (const c of KEY_CASES) {
      test(`${op.id}: ${c.name}`, async () => {
        const res = await send(svc, op, await c.headers(op, fixtures));
        check(res, c.expect(op));
        if (c.name === 'Origin not allowed')
          assert.equal(res.headers.get('access-control-allow-origin'), null, 'no CORS headers for a refused origin');
      });
    }
  }

  for (const op of sessioned) {
    for (const c of SESSION_CASES.filter((s) => s.applies(op.requirement))) {
      test(`${op.id}: ${c.name}`, async () => {
        // A replay sends a valid request first, which may act (e.g. sign out): it gets sessions of its own.
        const f = c.twice ? { ...fixtures, creds: await withSessions(svc.deps, fixtures.creds) } : fixtures;
        const headers = await c.headers(op, f);
        if (c.twice) await send(svc, op, headers);
        check(await send(svc, op, headers), c.expect(op));
      });
    }
  }
});

describe('security: over the limit (RATE_LIMIT_PER_KEY_PER_MINUTE=1)', { concurrency: CONCURRENCY }, () => {
  let svc: TestService;
  let creds: SeededCredentials;
  before(async () => {
    svc = await startTestService({ LOCALNET: 'off', RATE_LIMIT_PER_KEY_PER_MINUTE: '1' });
    creds = await withSessions(svc.deps, await seedCredentials(svc.deps.db, { name: 'Limited app' }));
  });
  after(async () => {
    await svc?.stop();
  });

  for (const op of keyed) {
    test(`${op.id}: over the limit`, async () => {
      // A fresh key per operation: its one request of the minute passes the limit, the next is refused.
      const key = await createApiKey(svc.deps.db, {
        appId: creds.app.id,
        type: typeOf(op.requirement),
        network: 'testnet',
        label: `limit ${op.id}`,
      });
      // Each request gets its own sessions too (the first may end its session: sign out, which must not hide the 429),
      // of one user: signed-in requests count per user.
      const userId = `usr_limit${op.id.toLowerCase()}`;
      const headers = async () => ({
        ...(await headersFor(op.requirement, await withSessions(svc.deps, creds, { userId }), {
          method: op.method,
          url: svc.url + urlOf(op.id, op.request),
        })),
        'x-service-api-key': key.key,
      });
      const first = await send(svc, op, await headers());
      assert.notEqual(first.status, 429, `the first request is within the limit: ${first.text.slice(0, 300)}`);
      check(await send(svc, op, await headers()), { status: 429, code: 'RATE_LIMITED', retryAfter: true });
    });
  }
});
