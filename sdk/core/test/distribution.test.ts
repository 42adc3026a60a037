// distribution.listRules and distribution.claim against a fake SDK API (fakeService.ts), through a signed-in client's
// own transport: the rules as the session user sees them, a claim with its Idempotency-Key (generated or given, and
// the same on every retry the library makes), each refusal as an error outcome, and a network failure or a malformed
// answer as an error outcome too, never a throw.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { distribution } from '../src/index';
import {
  assertOneSessionRequest,
  CLAIM_HASH,
  claimPath,
  distributionRule,
  emailSignInService as emailService,
  fail,
  type FakeService,
  ok,
  RULE_ID,
  ruleClaimed,
  rulesListed,
  signedInClient as signedIn,
  USDC,
  type FakeAnswer,
} from './fakeService';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const LIST_PATH = '/v1/distribution/rules';

/** An error answer of the contract, with any extra body fields and headers. */
const refusal = (
  status: number,
  code: string,
  message: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
) => ({ status, body: { success: false, code, message, ...extra }, headers });

/** Each claim request's Idempotency-Key, in order. */
const claimKeys = (fake: FakeService, ruleId = RULE_ID) =>
  fake.seen
    .filter((s) => s.method === 'POST' && s.path === claimPath(ruleId))
    .map((s) => s.headers.get('idempotency-key'));

describe('distribution.listRules', () => {
  test('the rules with claimable, reason and the asset code; one GET with the session', async () => {
    const weekly = distributionRule({
      ruleId: 'dst_01JD2A9B8C7D6E5F4G3H2J1K0M',
      name: 'Weekly reward',
      asset: 'native',
      amountPerClaim: '1.5',
      totalAllocation: null,
      rateLimit: { maxClaims: 1, periodSeconds: 604800 },
      claimable: false,
      reason: 'DISTRIBUTION_RATE_LIMIT_EXCEEDED',
    });
    const fake = emailService().on(`GET ${LIST_PATH}`, () => rulesListed([distributionRule(), weekly]));
    const { api, requests } = await signedIn(fake);
    const out = await distribution.listRules(api);
    assert.deepEqual(out, {
      status: 'listed',
      rules: [
        { ...distributionRule(), assetCode: 'USDC' },
        { ...weekly, assetCode: 'XLM' },
      ],
    });
    assertOneSessionRequest(requests(), `GET ${LIST_PATH}`);
  });

  test('an empty list is listed; a rule without reason reads as null; an API error is an error outcome', async () => {
    const answers: FakeAnswer[] = [
      rulesListed([]),
      rulesListed([{ ...distributionRule(), reason: undefined }]),
      fail(404, 'APPLICATION_NOT_FOUND', 'The app is archived'),
    ];
    let n = 0;
    const { api } = await signedIn(emailService().on(`GET ${LIST_PATH}`, () => answers[n++]!));
    assert.deepEqual(await distribution.listRules(api), { status: 'listed', rules: [] });
    const listed = await distribution.listRules(api);
    assert.equal(listed.status === 'listed' && listed.rules[0]?.reason, null);
    assert.deepEqual(await distribution.listRules(api), {
      status: 'error',
      code: 'APPLICATION_NOT_FOUND',
      httpStatus: 404,
      message: 'The app is archived',
    });
  });
});

describe('distribution.claim', () => {
  test('success with a generated Idempotency-Key; pending with the given one; a new call, a new key', async () => {
    const answers = [ruleClaimed('SUCCESS'), ruleClaimed('PENDING'), ruleClaimed('SUCCESS')];
    let n = 0;
    const fake = emailService().on(`POST ${claimPath()}`, () => answers[n++]!);
    const { api, requests } = await signedIn(fake);

    const claimed = await distribution.claim(api, { ruleId: RULE_ID });
    assert.deepEqual(claimed, {
      status: 'success',
      ruleId: RULE_ID,
      asset: USDC,
      assetCode: 'USDC',
      amount: '5',
      txHash: CLAIM_HASH,
    });
    const first = requests()[0];
    assert.equal(`${first?.method} ${first?.path}`, `POST ${claimPath()}`);
    assert.equal(first?.body, undefined, 'a claim has no body');
    assert.match(first?.headers.get('authorization') ?? '', /^DPoP at-1$/);

    const pending = await distribution.claim(api, { ruleId: RULE_ID, idempotencyKey: 'welcome-usr_01TEST' });
    assert.equal(pending.status, 'pending');
    assert.equal(pending.status === 'pending' && pending.txHash, CLAIM_HASH);

    await distribution.claim(api, { ruleId: RULE_ID });
    const [generated, given, another] = claimKeys(fake);
    assert.match(generated ?? '', UUID_V4);
    assert.equal(given, 'welcome-usr_01TEST');
    assert.match(another ?? '', UUID_V4);
    assert.notEqual(another, generated);
  });

  test('each refusal is an error outcome with its code, message and the key it was sent with', async () => {
    const week = { 'Retry-After': '604800' };
    const cases: { answer: ReturnType<typeof refusal>; expected: Record<string, unknown> }[] = [
      {
        answer: refusal(404, 'DISTRIBUTION_RULE_NOT_FOUND', `No distribution rule ${RULE_ID} in this app`),
        expected: { code: 'DISTRIBUTION_RULE_NOT_FOUND', httpStatus: 404 },
      },
      {
        answer: refusal(409, 'DISTRIBUTION_RULE_EXHAUSTED', "The rule's total allocation of 1000 claims is used up"),
        expected: { code: 'DISTRIBUTION_RULE_EXHAUSTED', httpStatus: 409 },
      },
      {
        // A week away: longer than the transport waits for, so the 429 comes back at once (not retried).
        answer: refusal(429, 'DISTRIBUTION_RATE_LIMIT_EXCEEDED', 'This rule allows 1 claim per 604800 s', {}, week),
        expected: { code: 'DISTRIBUTION_RATE_LIMIT_EXCEEDED', httpStatus: 429 },
      },
      {
        answer: refusal(422, 'TX_SUBMIT_FAILED', 'Stellar rejected the payment', { resultCode: 'op_underfunded' }),
        expected: { code: 'TX_SUBMIT_FAILED', httpStatus: 422, resultCode: 'op_underfunded' },
      },
      {
        answer: refusal(409, 'WALLET_NOT_FUNDED', 'The wallet is not funded yet'),
        expected: { code: 'WALLET_NOT_FUNDED', httpStatus: 409 },
      },
      {
        answer: refusal(402, 'INSUFFICIENT_FUNDS_FOR_TRUSTLINE', 'The funding wallet cannot sponsor the trustline'),
        expected: { code: 'INSUFFICIENT_FUNDS_FOR_TRUSTLINE', httpStatus: 402 },
      },
      {
        answer: refusal(400, 'VALIDATION_ERROR', 'Request validation failed', {
          details: { fieldErrors: { ruleId: ['must match ^dst_[0-9A-Za-z]+$'] } },
        }),
        expected: {
          code: 'VALIDATION_ERROR',
          httpStatus: 400,
          details: { fieldErrors: { ruleId: ['must match ^dst_[0-9A-Za-z]+$'] } },
        },
      },
    ];
    let current: FakeAnswer = cases[0]!.answer;
    const fake = emailService().on(`POST ${claimPath()}`, () => current);
    const { api, requests } = await signedIn(fake);
    for (const [i, { answer, expected }] of cases.entries()) {
      current = answer;
      const key = `claim-${i}`;
      const out = await distribution.claim(api, { ruleId: RULE_ID, idempotencyKey: key });
      const expectedOut = { status: 'error', message: answer.body.message, ...expected, idempotencyKey: key };
      assert.deepEqual(out, expectedOut, String(expected.code));
    }
    assert.equal(requests().length, cases.length, 'no refusal is retried by the library');
  });

  test("the library's own retries (a 503 with Retry-After, a DPoP nonce) repeat the claim with the same key", async () => {
    const answers: FakeAnswer[] = [
      refusal(503, 'TX_POLICY_GAS_BALANCE_LOW', 'The gas wallet cannot pay the fee', {}, { 'Retry-After': '0' }),
      refusal(
        401,
        'SDK_AUTH_DPOP_USE_NONCE',
        'Use the DPoP nonce',
        {},
        {
          'dpop-nonce': 'n2',
          'www-authenticate': 'DPoP error="use_dpop_nonce"',
        },
      ),
      ruleClaimed('SUCCESS'),
    ];
    let n = 0;
    const fake = emailService().on(`POST ${claimPath()}`, () => answers[n++]!);
    const { api } = await signedIn(fake);
    const out = await distribution.claim(api, { ruleId: RULE_ID });
    assert.equal(out.status, 'success', JSON.stringify(out));
    const keys = claimKeys(fake);
    assert.equal(keys.length, 3);
    assert.match(keys[0] ?? '', UUID_V4);
    assert.deepEqual(keys, [keys[0], keys[0], keys[0]]);
  });
});

describe('distribution: failures the client sees itself', () => {
  test('a network failure is a NETWORK_ERROR outcome; the claim hands back its key for a safe retry', async () => {
    let down = true;
    const fake = emailService()
      .on(`GET ${LIST_PATH}`, () => 'network-error')
      .on(`POST ${claimPath()}`, () => (down ? 'network-error' : ruleClaimed('SUCCESS')));
    const { api } = await signedIn(fake);

    const list = await distribution.listRules(api);
    assert.deepEqual(list, { status: 'error', code: 'NETWORK_ERROR', httpStatus: 0, message: 'fetch failed' });

    const failed = await distribution.claim(api, { ruleId: RULE_ID });
    assert.equal(failed.status, 'error');
    assert.ok(failed.status === 'error');
    assert.equal(failed.code, 'NETWORK_ERROR');
    assert.equal(failed.httpStatus, 0);
    assert.match(failed.idempotencyKey ?? '', UUID_V4);
    // The transport tried three times, each with the claim's one key.
    assert.deepEqual(claimKeys(fake), [failed.idempotencyKey, failed.idempotencyKey, failed.idempotencyKey]);

    down = false;
    const retried = await distribution.claim(api, { ruleId: RULE_ID, idempotencyKey: failed.idempotencyKey! });
    assert.equal(retried.status, 'success');
    assert.equal(claimKeys(fake).at(-1), failed.idempotencyKey);
  });

  test('malformed answers are INVALID_RESPONSE outcomes, not throws', async () => {
    const lists: FakeAnswer[] = [
      { status: 502, body: 'bad gateway' },
      ok('SDK_DISTRIBUTION_RULES_LISTED', { items: [] }),
      rulesListed([{ ...distributionRule(), claimable: undefined }]),
      rulesListed(['dst_1']),
    ];
    const claims: FakeAnswer[] = [
      { status: 200, body: { ruleId: RULE_ID } },
      ruleClaimed('SUCCESS', { txHash: undefined }),
      ruleClaimed('SUCCESS', { status: 'FAILED' }),
      ok('SDK_DISTRIBUTION_RULE_CLAIMED', null),
    ];
    let list: FakeAnswer = lists[0]!;
    let claim: FakeAnswer = claims[0]!;
    const fake = emailService()
      .on(`GET ${LIST_PATH}`, () => list)
      .on(`POST ${claimPath()}`, () => claim);
    const { api } = await signedIn(fake);

    for (const [i, answer] of lists.entries()) {
      list = answer;
      const out = await distribution.listRules(api);
      assert.equal(out.status === 'error' && out.code, 'INVALID_RESPONSE', `list ${i}: ${JSON.stringify(out)}`);
    }
    for (const [i, answer] of claims.entries()) {
      claim = answer;
      const out = await distribution.claim(api, { ruleId: RULE_ID, idempotencyKey: `bad-${i}` });
      assert.equal(out.status === 'error' && out.code, 'INVALID_RESPONSE', `claim ${i}: ${JSON.stringify(out)}`);
      assert.equal(out.status === 'error' && out.idempotencyKey, `bad-${i}`);
    }
  });
});
