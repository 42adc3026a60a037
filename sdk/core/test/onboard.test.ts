// createOnboard against the live service on localnet, as an app's frontend uses it in Node: the email-code flow ends
// in a session bound to the client's DPoP key, the funded wallet and its balances, a payment to SUCCESS through the
// transaction state machine, the history; the access token renewed when the service says it expired; a refresh token
// reused (after the grace) ends the session as signed out, never as an exception; sign-out everywhere.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createOnboard, memoryStorage, type AuthState, type Onboard, type TxState } from '../src/index';
import { createDevWallet } from '../src/devWallet';
import { appWithWallet, createAccountWith, eventually } from '../../../tests/support/funding';
import { latestCode, testEmail } from '../../../tests/support/operators';
import { startTestService, type TestService } from '../../../tests/support/service';
import { setWalletSignIn } from '../../../tests/support/users';
import { signInLiveUser } from './liveUser';

let svc: TestService;
let publishableKey: string;
let appWallet: string;

before(async () => {
  svc = await startTestService({ REFRESH_REUSE_GRACE_SECONDS: '0' }, { closeLedgersEveryMs: 100 });
  const seeded = await appWithWallet(svc, {
    settings: { fundingMode: 'immediate', startingBalanceXlm: '10', accessTokenTtlMinutes: 1 },
  });
  publishableKey = seeded.creds.publishableKey;
  appWallet = seeded.appWallet.publicKey;
  await setWalletSignIn(svc, seeded.app.id);
});
after(async () => {
  await svc?.stop();
});

function steps<S extends { step: string }>(store: { subscribe(cb: (s: S) => void): () => void }): string[] {
  const seen: string[] = [];
  store.subscribe((s) => seen.push(s.step));
  return seen;
}

const signedIn = (email = testEmail('sdk-user'), storage = memoryStorage()): Promise<Onboard> =>
  signInLiveUser(svc, publishableKey, { email, storage });

describe('createOnboard against the live service', () => {
  test('email code -> authenticated with a funded wallet; balances, a payment to success, history', async () => {
    const client = createOnboard({ publishableKey, baseUrl: svc.url, storage: memoryStorage() });
    const authSteps = steps<AuthState>(client.auth);
    await client.ready();
    const email = testEmail('sdk-pay');
    client.beginEmailLogin();
    await client.sendEmailCode(email);
    const entering = client.auth.get();
    assert.equal(entering.step, 'entering_code');
    assert.ok(entering.step === 'entering_code' && entering.codeExpiresAt > new Date());
    // A wrong code is a state, not an exception; the flow may go on with the right one.
    await client.verifyEmailCode('000000');
    const wrong = client.auth.get();
    assert.equal(wrong.step, 'error');
    assert.equal(wrong.step === 'error' && wrong.errorCode, 'EMAIL_CODE_INVALID');
    assert.equal(wrong.step === 'error' && wrong.previousStep, 'verifying_email_code');
    await client.verifyEmailCode(latestCode(svc, email));
    const auth = client.auth.get();
    assert.ok(auth.step === 'authenticated', JSON.stringify(auth));
    assert.equal(auth.session.user.email, email);
    assert.deepEqual(authSteps, [
      'restoring',
      'idle',
      'entering_email',
      'sending_email',
      'entering_code',
      'verifying_email_code',
      'error',
      'verifying_email_code',
      'authenticated',
    ]);

    await eventually('the wallet is funded', async () => {
      const wallet = await client.getWallet();
      return wallet.ok && wallet.content.funded;
    });
    assert.equal(client.session?.wallet.funded, true);
    const balances = await client.refreshBalances();
    assert.equal(balances.step, 'loaded');
    const xlm = balances.step === 'loaded' ? balances.balances.find((b) => b.asset === 'native') : undefined;
    assert.ok(xlm && Number(xlm.balance) > 1, JSON.stringify(balances));

    const txSteps = steps<TxState>(client.transaction);
    const paid = await client.runTx(
      { operation: { type: 'payment', destination: appWallet, asset: 'native', amount: '1' } },
      { wait: { timeoutMs: 20_000, intervalMs: 200 } },
    );
    assert.equal(paid.status, 'success', JSON.stringify(paid));
    assert.equal(client.transaction.get().step, 'success');
    assert.deepEqual(txSteps[0], 'idle');
    assert.equal(txSteps[1], 'running');
    assert.equal(txSteps.at(-1), 'success');

    const history = await client.loadHistory({ limit: 5 });
    assert.equal(history.step, 'loaded');
    const hashes = history.step === 'loaded' ? history.data.records.map((r) => r.hash) : [];
    assert.ok(paid.status === 'success' && hashes.includes(paid.hash), JSON.stringify(history));

    // A failure is an outcome with Stellar's result code, and the transaction state says which phase failed.
    const tooMuch = await client.runTx({
      operation: { type: 'payment', destination: appWallet, asset: 'native', amount: '100000' },
    });
    assert.equal(tooMuch.status, 'error');
    const failed = client.transaction.get();
    assert.equal(failed.step, 'error');
    assert.equal(failed.step === 'error' && failed.phase, 'run');
    client.destroy();
  });

  test('an access token the service calls expired is renewed and the call goes through once more', async () => {
    const client = await signedIn();
    const before = client.session!;
    const realClock = svc.deps.clock;
    // Two minutes ahead: the 1-minute token has expired for the service, while the proofs' times stay in its window.
    svc.deps.clock = { now: () => new Date(Date.now() + 120_000) };
    try {
      const wallet = await client.getWallet();
      assert.ok(wallet.ok, JSON.stringify(wallet));
    } finally {
      svc.deps.clock = realClock;
    }
    assert.equal(client.session!.sessionId, before.sessionId);
    assert.ok(client.session!.accessTokenExpiresAt > before.accessTokenExpiresAt, 'a new access token was issued');
    assert.equal(client.auth.get().step, 'authenticated');
    client.destroy();
  });

  test('two refreshes at once make one request (single flight)', async () => {
    const client = await signedIn();
    const seen: string[] = [];
    const results = await Promise.all([client.refreshSession(), client.refreshSession(), client.refreshSession()]);
    seen.push(...results.map(String));
    assert.deepEqual(seen, ['true', 'true', 'true']);
    // With no grace for reuse, a second refresh with the same token would have ended the session.
    assert.equal((await client.getWallet()).ok, true);
    client.destroy();
  });

  test('a refresh token presented again after rotation ends the session: idle with SESSION_EXPIRED, no throw', async () => {
    const storage = memoryStorage();
    const client = await signedIn(testEmail('sdk-reuse'), storage);
    const name = `onboard:${publishableKey}`;
    const stale = (await storage.get(name))!;
    assert.equal(await client.refreshSession(), true);
    // A stale copy of the record comes back (a restored backup, a tab that slept through the rotation).
    await storage.set(name, stale);
    assert.equal(await client.refreshSession(), true, 'first the stored record is taken as the newer one');
    assert.equal(await client.refreshSession(), false);
    const state = client.auth.get();
    assert.deepEqual(state, { step: 'idle', reason: 'SESSION_EXPIRED' });
    assert.equal(client.session, undefined);
    assert.equal(await storage.get(name), null);
    const after = await client.getWallet();
    assert.equal(after.ok, false);
    client.destroy();
  });

  test('a saved session is restored by a new client on the same device; logout everywhere ends both', async () => {
    const storage = memoryStorage();
    const { memoryKeyStore } = await import('../src/index');
    const keyStore = memoryKeyStore();
    const email = testEmail('sdk-restore');
    const first = createOnboard({ publishableKey, baseUrl: svc.url, storage, keyStore });
    await first.ready();
    first.beginEmailLogin();
    await first.sendEmailCode(email);
    await first.verifyEmailCode(latestCode(svc, email));
    const second = createOnboard({ publishableKey, baseUrl: svc.url, storage, keyStore });
    await second.ready();
    assert.equal(second.auth.get().step, 'authenticated');
    assert.equal((await second.getWallet()).ok, true);
    const sessions = await second.listSessions();
    assert.ok(sessions.ok && sessions.content.sessions.some((s) => s.current));
    const out = await second.logout({ everywhere: true });
    assert.ok(out.ok && out.content.revokedSessions >= 1, JSON.stringify(out));
    assert.deepEqual(second.auth.get(), { step: 'idle', reason: 'SIGNED_OUT' });
    first.destroy();
    second.destroy();
  });

  test("the user's own wallet (dev wallet): SEP-10 sign-in, a payment built here, signed by the wallet, paid on chain", async () => {
    const dev = createDevWallet();
    await createAccountWith(svc, dev.publicKey, '20');
    const client = createOnboard({ publishableKey, baseUrl: svc.url, storage: memoryStorage() });
    await client.ready();
    await client.loginWithWallet(dev);
    const auth = client.auth.get();
    assert.ok(auth.step === 'authenticated', JSON.stringify(auth));
    assert.deepEqual([auth.session.wallet.publicKey, auth.session.wallet.custody], [dev.publicKey, 'external']);
    const paid = await client.runTx(
      { operation: { type: 'payment', destination: appWallet, asset: 'native', amount: '3' } },
      { wait: { timeoutMs: 20_000, intervalMs: 200 } },
    );
    assert.equal(paid.status, 'success', JSON.stringify(paid));
    const balances = await client.refreshBalances();
    const xlm = balances.step === 'loaded' ? balances.balances.find((b) => b.asset === 'native') : undefined;
    assert.equal(xlm?.balance, '17', 'the wallet paid 3 XLM and no fee');
    client.destroy();
  });
});
