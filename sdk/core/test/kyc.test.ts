// kyc.listProviders, kyc.start, kyc.getVerification and kyc.waitForDecision against a fake SDK API (fakeService.ts),
// through a signed-in client's own transport: each answer as an outcome (an expired session as `expired`, a refusal
// as an error with its code), the wait polling until a decision, through blips, and stopping on abort; malformed
// answers (a kycUrl that is not a web address among them) as INVALID_RESPONSE, never a throw. The whole flow against
// the live service and the sandbox provider's page is in kycSandbox.test.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { kyc } from '../src/index';
import { assertOneSessionRequest, emailSignInService, fail, ok, signedInClient, type FakeAnswer } from './fakeService';

const VERIFICATION_ID = 'kyv_01JD3X5K7Q9T2M4N6P8R0S1V3W';
const SESSION_ID = 'kys_01JD3X5K7Q9T2M4N6P8R0S1V3W';
const PROVIDERS_PATH = '/v1/kyc/providers';
const SESSIONS_PATH = '/v1/kyc/sessions';
const VERIFICATION_PATH = `/v1/kyc/verifications/${VERIFICATION_ID}`;

const sandbox = { providerId: 'sandbox', name: 'Sandbox (development)', enabled: true, levels: ['basic', 'enhanced'] };

const providersListed = (content: Record<string, unknown>): FakeAnswer => ok('SDK_KYC_PROVIDERS_LISTED', content);
/** startKycSession's 201 answer. */
const sessionStarted = (overrides: Record<string, unknown> = {}): FakeAnswer => ({
  status: 201,
  body: {
    success: true,
    code: 'SDK_KYC_SESSION_STARTED',
    content: {
      sessionId: SESSION_ID,
      verificationId: VERIFICATION_ID,
      kycUrl: `https://kyc.example.test/sandbox/kyc/${SESSION_ID}`,
      expiresAt: '2026-11-26T12:30:00.000Z',
      ...overrides,
    },
  },
});
const verification = (status: string, overrides: Record<string, unknown> = {}): FakeAnswer =>
  ok('SDK_KYC_VERIFICATION_FETCHED', {
    verificationId: VERIFICATION_ID,
    providerId: 'sandbox',
    level: 'basic',
    status,
    updatedAt: '2026-11-26T12:01:00.000Z',
    ...overrides,
  });
const expired = fail(410, 'SDK_KYC_SESSION_EXPIRED', 'The KYC session expired; start a new one');

/** A signed-in client whose verification reads answer `answers` in turn (the last one again once they run out). */
async function polled(answers: FakeAnswer[]) {
  let n = 0;
  const fake = emailSignInService().on(`GET ${VERIFICATION_PATH}`, () => answers[Math.min(n++, answers.length - 1)]!);
  const signedIn = await signedInClient(fake);
  return { ...signedIn, reads: () => signedIn.requests().filter((r) => r.path === VERIFICATION_PATH).length };
}

describe('kyc.listProviders', () => {
  test("the providers and the user's status, in one GET carrying the session", async () => {
    const off = { providerId: 'acme', name: 'Acme KYC', enabled: false, levels: ['basic'] };
    const fake = emailSignInService().on(`GET ${PROVIDERS_PATH}`, () =>
      providersListed({ providers: [sandbox, off], status: 'pending', verificationId: VERIFICATION_ID }),
    );
    const { api, requests } = await signedInClient(fake);
    assert.deepEqual(await kyc.listProviders(api), {
      status: 'listed',
      providers: [sandbox, off],
      kycStatus: 'pending',
      verificationId: VERIFICATION_ID,
    });
    assertOneSessionRequest(requests(), `GET ${PROVIDERS_PATH}`);
  });

  test('no providers and no verification; an API error is an error outcome; malformed answers are INVALID_RESPONSE', async () => {
    const answers: FakeAnswer[] = [
      providersListed({ providers: [], status: 'none', verificationId: null }),
      fail(404, 'APPLICATION_NOT_FOUND', 'The app is archived'),
      providersListed({ providers: [sandbox], status: 'verified', verificationId: null }),
      providersListed({ providers: [{ ...sandbox, levels: ['gold'] }], status: 'none', verificationId: null }),
      providersListed({ status: 'none', verificationId: null }),
      { status: 200, body: { providers: [] } },
    ];
    let n = 0;
    const { api } = await signedInClient(emailSignInService().on(`GET ${PROVIDERS_PATH}`, () => answers[n++]!));
    assert.deepEqual(await kyc.listProviders(api), {
      status: 'listed',
      providers: [],
      kycStatus: 'none',
      verificationId: null,
    });
    assert.deepEqual(await kyc.listProviders(api), {
      status: 'error',
      code: 'APPLICATION_NOT_FOUND',
      httpStatus: 404,
      message: 'The app is archived',
    });
    for (let i = 2; i < answers.length; i++) {
      const out = await kyc.listProviders(api);
      assert.equal(out.status === 'error' && out.code, 'INVALID_RESPONSE', `answer ${i}: ${JSON.stringify(out)}`);
    }
  });
});

describe('kyc.start', () => {
  test('started: the session, its verification, kycUrl and expiry; the body names the provider and level', async () => {
    const fake = emailSignInService().on(`POST ${SESSIONS_PATH}`, () => sessionStarted());
    const { api, requests } = await signedInClient(fake);
    assert.deepEqual(await kyc.start(api, { providerId: 'sandbox', level: 'enhanced' }), {
      status: 'started',
      sessionId: SESSION_ID,
      verificationId: VERIFICATION_ID,
      kycUrl: `https://kyc.example.test/sandbox/kyc/${SESSION_ID}`,
      expiresAt: '2026-11-26T12:30:00.000Z',
    });
    const [request] = requests();
    assert.equal(`${request?.method} ${request?.path}`, `POST ${SESSIONS_PATH}`);
    assert.deepEqual(request?.body, { providerId: 'sandbox', level: 'enhanced' });
  });

  test('refusals are error outcomes; a kycUrl that is not a web address is refused as INVALID_RESPONSE', async () => {
    const answers: FakeAnswer[] = [
      fail(404, 'SDK_KYC_PROVIDER_NOT_FOUND', 'KYC provider acme not found'),
      fail(403, 'SDK_KYC_PROVIDER_NOT_ENABLED', 'The KYC provider sandbox is not enabled for this app'),
      sessionStarted({ kycUrl: 'javascript:alert(1)' }),
      sessionStarted({ verificationId: undefined }),
      sessionStarted({ kycUrl: undefined }),
    ];
    let n = 0;
    const { api } = await signedInClient(emailSignInService().on(`POST ${SESSIONS_PATH}`, () => answers[n++]!));
    const input = { providerId: 'sandbox', level: 'basic' } as const;
    const first = await kyc.start(api, input);
    assert.deepEqual(first, {
      status: 'error',
      code: 'SDK_KYC_PROVIDER_NOT_FOUND',
      httpStatus: 404,
      message: 'KYC provider acme not found',
    });
    const second = await kyc.start(api, input);
    assert.deepEqual(
      [second.status, second.status === 'error' && second.code],
      ['error', 'SDK_KYC_PROVIDER_NOT_ENABLED'],
    );
    for (const what of ['a javascript: kycUrl', 'no verificationId']) {
      const out = await kyc.start(api, input);
      assert.equal(out.status === 'error' && out.code, 'INVALID_RESPONSE', what);
    }
    // A provider without a hosted page (a widget the app embeds) answers no kycUrl.
    const widget = await kyc.start(api, input);
    assert.equal(widget.status, 'started');
    assert.equal('kycUrl' in widget, false);
  });
});

describe('kyc.getVerification', () => {
  test('each status; an expired session is `expired`; another user’s is an error outcome', async () => {
    const { api } = await polled([
      verification('pending'),
      verification('approved', { level: 'enhanced' }),
      expired,
      fail(404, 'SDK_KYC_VERIFICATION_NOT_FOUND', 'Verification not found'),
      verification('maybe'),
    ]);
    const read = () => kyc.getVerification(api, VERIFICATION_ID);
    assert.deepEqual(await read(), {
      status: 'pending',
      verificationId: VERIFICATION_ID,
      providerId: 'sandbox',
      level: 'basic',
      updatedAt: '2026-11-26T12:01:00.000Z',
    });
    const approved = await read();
    assert.deepEqual([approved.status, approved.status === 'approved' && approved.level], ['approved', 'enhanced']);
    assert.deepEqual(await read(), {
      status: 'expired',
      verificationId: VERIFICATION_ID,
      message: 'The KYC session expired; start a new one',
    });
    const missing = await read();
    assert.deepEqual(
      [missing.status, missing.status === 'error' && missing.code],
      ['error', 'SDK_KYC_VERIFICATION_NOT_FOUND'],
    );
    const odd = await read();
    assert.equal(odd.status === 'error' && odd.code, 'INVALID_RESPONSE');
  });
});

describe('kyc.waitForDecision', () => {
  test('reads at once, then every interval while pending, until approved', async () => {
    const { api, reads } = await polled([verification('pending'), verification('pending'), verification('approved')]);
    const pending: string[] = [];
    const started = Date.now();
    const out = await kyc.waitForDecision(api, VERIFICATION_ID, {
      intervalMs: 250,
      onPending: (v) => pending.push(v.status),
    });
    assert.equal(out.status, 'approved');
    assert.equal(reads(), 3);
    assert.deepEqual(pending, ['pending', 'pending']);
    assert.ok(Date.now() - started >= 450, 'two pauses between three reads');
  });

  test('a rejection and an expired session end the wait; an already decided one answers at the first read', async () => {
    const rejected = await polled([verification('pending'), verification('rejected')]);
    assert.equal((await kyc.waitForDecision(rejected.api, VERIFICATION_ID, { intervalMs: 250 })).status, 'rejected');
    const lapsed = await polled([verification('pending'), expired]);
    assert.deepEqual(await kyc.waitForDecision(lapsed.api, VERIFICATION_ID, { intervalMs: 250 }), {
      status: 'expired',
      verificationId: VERIFICATION_ID,
      message: 'The KYC session expired; start a new one',
    });
    const decided = await polled([verification('approved')]);
    assert.equal((await kyc.waitForDecision(decided.api, VERIFICATION_ID)).status, 'approved');
    assert.equal(decided.reads(), 1);
  });

  test('blips (no answer, 503) are polled through; another error ends the wait with it', async () => {
    const blips = await polled([
      'network-error',
      'network-error',
      'network-error',
      fail(503, 'SERVICE_UNAVAILABLE'),
      verification('approved'),
    ]);
    const out = await kyc.waitForDecision(blips.api, VERIFICATION_ID, { intervalMs: 250 });
    assert.equal(out.status, 'approved', JSON.stringify(out));
    const gone = await polled([
      verification('pending'),
      fail(404, 'SDK_KYC_VERIFICATION_NOT_FOUND', 'Verification not found'),
    ]);
    const ended = await kyc.waitForDecision(gone.api, VERIFICATION_ID, { intervalMs: 250 });
    assert.deepEqual(
      [ended.status, ended.status === 'error' && ended.code],
      ['error', 'SDK_KYC_VERIFICATION_NOT_FOUND'],
    );
  });

  test('an abort stops the wait during a pause, and before the first read when already aborted', async () => {
    const { api, reads } = await polled([verification('pending')]);
    const controller = new AbortController();
    const waiting = kyc.waitForDecision(api, VERIFICATION_ID, {
      intervalMs: 60_000,
      signal: controller.signal,
      onPending: () => controller.abort(),
    });
    const started = Date.now();
    assert.deepEqual(await waiting, { status: 'aborted', verificationId: VERIFICATION_ID });
    assert.ok(Date.now() - started < 5_000, 'the minute-long pause ended with the abort');
    assert.equal(reads(), 1);
    assert.equal((await kyc.waitForDecision(api, VERIFICATION_ID, { signal: controller.signal })).status, 'aborted');
    assert.equal(reads(), 1, 'no read once aborted');
  });
});
