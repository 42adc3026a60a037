// kyc.* against the live service with the sandbox provider, as an app's frontend uses them: the user's status read,
// a verification started, and waitForDecision polling while the developer decides on the sandbox page (its form
// read from the page and posted as a browser would): approved, rejected, an expired session, an abort; an unknown
// provider refused as an error outcome.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { kyc, type Onboard } from '../src/index';
import { seedCredentials } from '../../../tests/support/credentials';
import { expireKycSession, postSandboxDecision } from '../../../tests/support/kyc';
import { startTestService, type TestService } from '../../../tests/support/service';
import { signInLiveUser } from './liveUser';

let svc: TestService;
let publishableKey: string;

before(async () => {
  svc = await startTestService({ KYC_SANDBOX: 'on' });
  publishableKey = (await seedCredentials(svc.deps.db)).publishableKey;
});
after(async () => {
  await svc?.stop();
});

/** Starts a sandbox verification for `client` at `level` and answers it (kycUrl always set by the sandbox). */
async function started(client: Onboard, level: kyc.KycLevel = 'basic') {
  const out = await kyc.start(client.api, { providerId: 'sandbox', level });
  assert.equal(out.status, 'started', JSON.stringify(out));
  assert.ok(out.status === 'started' && out.kycUrl);
  return { ...out, kycUrl: out.kycUrl };
}

/**
 * Decides on the sandbox page as a developer's browser would: reads the page, finds its form (posted back to the
 * page's own address) and the button for `decision`, and submits the form with that button.
 */
async function decideOnPage(kycUrl: string, decision: 'approved' | 'rejected'): Promise<string> {
  const page = await fetch(kycUrl);
  assert.equal(page.status, 200);
  const html = await page.text();
  const form = /<form method="post">([\s\S]*?)<\/form>/.exec(html)?.[1];
  assert.ok(form, 'the page has a form posted back to itself');
  const button = new RegExp(`<button[^>]*name="(\\w+)" value="${decision}"[^>]*>`).exec(form);
  assert.ok(button, `a ${decision} button`);
  assert.equal(button[1], 'decision', 'the button posts the decision');
  const posted = await postSandboxDecision(kycUrl, decision);
  assert.equal(posted.status, 200);
  return posted.text();
}

describe('kyc against the live service (sandbox provider)', () => {
  test('none -> started -> the page approves while waitForDecision polls -> approved, in the list too', async () => {
    const client = await signInLiveUser(svc, publishableKey);
    assert.deepEqual(await kyc.listProviders(client.api), {
      status: 'listed',
      providers: [{ providerId: 'sandbox', name: 'Sandbox (development)', enabled: true, levels: kyc.KYC_LEVELS }],
      kycStatus: 'none',
      verificationId: null,
    });
    const session = await started(client, 'intermediate');
    assert.ok(session.kycUrl.startsWith(`${svc.url}/sandbox/kyc/${session.sessionId}`), session.kycUrl);
    assert.ok(Date.parse(session.expiresAt) > Date.now());

    let pendingReads = 0;
    const waiting = kyc.waitForDecision(client.api, session.verificationId, {
      intervalMs: 250,
      onPending: () => (pendingReads += 1),
    });
    const pending = await kyc.getVerification(client.api, session.verificationId);
    assert.deepEqual([pending.status, pending.status === 'pending' && pending.level], ['pending', 'intermediate']);
    assert.match(await decideOnPage(session.kycUrl, 'approved'), /The verification is approved/);
    const decided = await waiting;
    assert.equal(decided.status, 'approved', JSON.stringify(decided));
    assert.ok(decided.status === 'approved');
    assert.deepEqual(
      [decided.verificationId, decided.providerId, decided.level],
      [session.verificationId, 'sandbox', 'intermediate'],
    );
    assert.ok(pendingReads >= 1, 'the wait saw it pending first');
    const listed = await kyc.listProviders(client.api);
    assert.deepEqual(listed.status === 'listed' && [listed.kycStatus, listed.verificationId], [
      'approved',
      session.verificationId,
    ]);
    client.destroy();
  });

  test('rejected; an expired session is `expired` for a read and for the wait; an abort stops the wait', async () => {
    const client = await signInLiveUser(svc, publishableKey);
    const rejected = await started(client);
    const waiting = kyc.waitForDecision(client.api, rejected.verificationId, { intervalMs: 250 });
    await decideOnPage(rejected.kycUrl, 'rejected');
    assert.equal((await waiting).status, 'rejected');

    const lapsed = await started(client);
    await expireKycSession(svc.deps.db, lapsed.verificationId);
    const read = await kyc.getVerification(client.api, lapsed.verificationId);
    assert.equal(read.status, 'expired', JSON.stringify(read));
    assert.deepEqual(await kyc.waitForDecision(client.api, lapsed.verificationId), {
      status: 'expired',
      verificationId: lapsed.verificationId,
      message: read.status === 'expired' ? read.message : undefined,
    });
    const listed = await kyc.listProviders(client.api);
    assert.equal(listed.status === 'listed' && listed.kycStatus, 'none', 'an expired undecided session counts as none');

    const open = await started(client);
    const controller = new AbortController();
    const stopped = kyc.waitForDecision(client.api, open.verificationId, {
      intervalMs: 60_000,
      signal: controller.signal,
      onPending: () => controller.abort(),
    });
    assert.deepEqual(await stopped, { status: 'aborted', verificationId: open.verificationId });
    client.destroy();
  });

  test('an unknown provider and another user’s verification are error outcomes', async () => {
    const [owner, other] = [await signInLiveUser(svc, publishableKey), await signInLiveUser(svc, publishableKey)];
    const unknown = await kyc.start(owner.api, { providerId: 'acme', level: 'basic' });
    assert.deepEqual(unknown.status === 'error' && [unknown.code, unknown.httpStatus], [
      'SDK_KYC_PROVIDER_NOT_FOUND',
      404,
    ]);
    const mine = await started(owner);
    const theirs = await kyc.getVerification(other.api, mine.verificationId);
    assert.deepEqual(theirs.status === 'error' && [theirs.code, theirs.httpStatus], [
      'SDK_KYC_VERIFICATION_NOT_FOUND',
      404,
    ]);
    owner.destroy();
    other.destroy();
  });
});
