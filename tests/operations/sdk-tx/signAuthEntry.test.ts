// signAuthEntry (POST /v1/tx/sign-auth-entry): the session's custodial wallet signs a Soroban authorization entry when
// every invocation of its tree matches an enabled allowlist row of the app; every SOROBAN_AUTH_* answer; the 300-ledger
// ceiling; the signature verified by localnet's verifier (src/localnet/engine/sorobanAuth.ts) for the wallet's key.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Keypair, StrKey, xdr } from '@stellar/stellar-sdk';
import { verifyAuthEntrySignature } from '../../../src/localnet/engine/sorobanAuth';
import type { App } from '../../../src/domain/apps/store';
import type { SeededCredentials } from '../../support/credentials';
import { appWithWallet, gatewayOf } from '../../support/funding';
import { call } from '../../support/http';
import { startTestService, type TestService } from '../../support/service';
import { installContract, unknownContract, unsignedEntry, type Call } from '../../support/sorobanAuth';
import { signInUser, type UserClient } from '../../support/users';

/** JSON for assertion messages (a verification carries its nonce as a bigint). */
const show = (v: unknown) => JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x));

let svc: TestService;
let token: string;
let router: string;

interface AppUser {
  creds: SeededCredentials;
  app: App;
  user: UserClient;
  wallet: string;
}

/** A new app (deferred funding: the wallet needs no account to sign) with a signed-in user. */
async function appUser(): Promise<AppUser> {
  const { creds, app } = await appWithWallet(svc, { settings: { fundingMode: 'deferred' }, funded: false });
  const user = await signInUser(svc, creds);
  return { creds, app, user, wallet: user.signIn.wallet.publicKey };
}

async function allow(who: AppUser, contract: string, functions: string[], enabled = true): Promise<void> {
  const res = await call(svc.url, 'createAuthPolicyRow', 'POST', '/v1/auth-policy/rows', {
    headers: { 'x-service-api-key': who.creds.secretKey },
    body: { contract, functions, enabled },
  });
  assert.equal(res.status, 201, res.text);
}

const sign = (who: AppUser, entry: string, validUntilLedger?: number) =>
  who.user.call('signAuthEntry', 'POST', '/v1/tx/sign-auth-entry', {
    body: validUntilLedger === undefined ? { entry } : { entry, validUntilLedger },
  });

const latestLedger = async () => (await gatewayOf(svc).ledgerFigures()).sequence;

/** A denial: its status and code, and the deciding app named. */
function assertDenied(res: { status: number; text: string; body: any }, who: AppUser, status: number, code: string) {
  assert.equal(res.status, status, res.text);
  assert.equal(res.body.code, code);
  assert.equal(res.body.applicationId, who.app.id);
  assert.equal(res.body.applicationName, who.app.name);
  assert.ok(res.body.message);
}

async function keyDecryptions(who: AppUser): Promise<string[]> {
  const rows = await svc.deps
    .db('audit_log')
    .where({ app_id: who.app.id, action: 'key.decrypt', wallet_id: who.user.signIn.wallet.walletId })
    .select('purpose');
  return rows.map((r: { purpose: string }) => r.purpose);
}

describe('signAuthEntry', () => {
  before(async () => {
    svc = await startTestService();
    token = installContract(svc, ['transfer', 'approve', 'balance']);
    router = installContract(svc, ['swap', 'quote']);
  });
  after(async () => {
    await svc?.stop();
  });

  test('200: a tree with a sub-invocation, each with its row; verifies for the wallet key; audited decrypt', async () => {
    const who = await appUser();
    await allow(who, router, ['swap']);
    await allow(who, token, ['transfer']);
    const tree: Call = { contract: router, fn: 'swap', sub: [{ contract: token, fn: 'transfer' }] };
    const latest = await latestLedger();
    const res = await sign(who, unsignedEntry(who.wallet, tree));
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.code, 'SOROBAN_AUTH_ENTRY_SIGNED');
    const { signedEntry, validUntilLedger, publicKey } = res.body.content;
    assert.equal(publicKey, who.wallet);
    assert.equal(validUntilLedger, latest + 120, 'the default window');
    const verified = verifyAuthEntrySignature(signedEntry, gatewayOf(svc).networkPassphrase, latest + 1);
    assert.ok(verified.valid, show(verified));
    assert.equal(verified.credentialType, 'addressV2');
    assert.equal(verified.signatureExpirationLedger, latest + 120);
    assert.deepEqual(verified.signers, [who.wallet]);
    assert.deepEqual(await keyDecryptions(who), ['auth_entry.sign']);
    // the invocation tree is signed as it was sent
    const root = (b64: string) =>
      Buffer.from(
        xdr.SorobanAuthorizedInvocation.schema.encode(
          xdr.SorobanAuthorizationEntry.schema.decode(Buffer.from(b64, 'base64')).rootInvocation,
        ),
      ).toString('hex');
    assert.equal(root(signedEntry), root(unsignedEntry(who.wallet, tree)));
  });

  test('legacy ADDRESS credentials are signed with the legacy payload', async () => {
    const who = await appUser();
    await allow(who, token, ['transfer']);
    const latest = await latestLedger();
    const res = await sign(who, unsignedEntry(who.wallet, { contract: token, fn: 'transfer' }, { legacy: true }));
    assert.equal(res.status, 200, res.text);
    const verified = verifyAuthEntrySignature(res.body.content.signedEntry, gatewayOf(svc).networkPassphrase, latest);
    assert.ok(verified.valid, show(verified));
    assert.equal(verified.credentialType, 'address');
  });

  test('a sub-invocation needs its own row: CONTRACT_NOT_ALLOWED, then FUNCTION_NOT_ALLOWED, then signed', async () => {
    const who = await appUser();
    await allow(who, router, ['swap']);
    const entry = unsignedEntry(who.wallet, {
      contract: router,
      fn: 'swap',
      sub: [{ contract: token, fn: 'transfer' }],
    });
    const noContract = await sign(who, entry);
    assertDenied(noContract, who, 403, 'SOROBAN_AUTH_CONTRACT_NOT_ALLOWED');
    assert.match(noContract.body.message, new RegExp(token));
    await allow(who, token, ['approve']);
    const noFunction = await sign(who, entry);
    assertDenied(noFunction, who, 403, 'SOROBAN_AUTH_FUNCTION_NOT_ALLOWED');
    assert.match(noFunction.body.message, /"transfer"/);
    await allow(who, token, ['transfer']);
    assert.equal((await sign(who, entry)).status, 200);
    assert.deepEqual(await keyDecryptions(who), ['auth_entry.sign'], 'no key use for a denial');
  });

  test('FUNCTION_NOT_ALLOWED: names are case-sensitive; a disabled row does not count', async () => {
    const who = await appUser();
    await allow(who, token, ['transfer']);
    await allow(who, router, ['*'], false);
    assertDenied(
      await sign(who, unsignedEntry(who.wallet, { contract: token, fn: 'Transfer' })),
      who,
      403,
      'SOROBAN_AUTH_FUNCTION_NOT_ALLOWED',
    );
    assertDenied(
      await sign(who, unsignedEntry(who.wallet, { contract: router, fn: 'swap' })),
      who,
      403,
      'SOROBAN_AUTH_CONTRACT_NOT_ALLOWED',
    );
  });

  test("an 'any contract' row allows every contract and function", async () => {
    const who = await appUser();
    await allow(who, '*', ['*']);
    const res = await sign(who, unsignedEntry(who.wallet, { contract: unknownContract(), fn: 'anything' }));
    assert.equal(res.status, 200, res.text);
  });

  test('403 SOROBAN_AUTH_NO_POLICY: no rows, or only disabled ones', async () => {
    const who = await appUser();
    const entry = unsignedEntry(who.wallet, { contract: token, fn: 'transfer' });
    assertDenied(await sign(who, entry), who, 403, 'SOROBAN_AUTH_NO_POLICY');
    await allow(who, token, ['transfer'], false);
    assertDenied(await sign(who, entry), who, 403, 'SOROBAN_AUTH_NO_POLICY');
  });

  test('403 SOROBAN_AUTH_ADDRESS_MISMATCH: another account, a contract address', async () => {
    const who = await appUser();
    await allow(who, '*', ['*']);
    const call1: Call = { contract: token, fn: 'transfer' };
    assertDenied(
      await sign(who, unsignedEntry(Keypair.random().publicKey(), call1)),
      who,
      403,
      'SOROBAN_AUTH_ADDRESS_MISMATCH',
    );
    assertDenied(await sign(who, unsignedEntry(router, call1)), who, 403, 'SOROBAN_AUTH_ADDRESS_MISMATCH');
  });

  test('400 SOROBAN_AUTH_ENTRY_INVALID: not XDR, source-account credentials; a malformed body is 400 too', async () => {
    const who = await appUser();
    await allow(who, '*', ['*']);
    assertDenied(await sign(who, 'AAAAAQAAAAA='), who, 400, 'SOROBAN_AUTH_ENTRY_INVALID');
    const sourceAccount = Buffer.from(
      xdr.SorobanAuthorizationEntry.schema.encode({
        credentials: { type: 0 },
        rootInvocation: {
          function: {
            type: 0,
            contractFn: {
              contractAddress: { type: 1, contractId: StrKey.decodeContract(token) },
              functionName: new xdr.XdrString('transfer'),
              args: [],
            },
          },
          subInvocations: [],
        },
      }),
    ).toString('base64');
    assertDenied(await sign(who, sourceAccount), who, 400, 'SOROBAN_AUTH_ENTRY_INVALID');
    const malformedBody = await sign(who, 'not base64 at all!');
    assert.equal(malformedBody.status, 400, malformedBody.text);
  });

  test('403 SOROBAN_AUTH_EXPIRATION_TOO_LONG: the ceiling at 300 (signed) and 301; never the past', async () => {
    const who = await appUser();
    await allow(who, token, ['transfer']);
    const entry = () => unsignedEntry(who.wallet, { contract: token, fn: 'transfer' });
    const latest = await latestLedger();
    const at300 = await sign(who, entry(), latest + 300);
    assert.equal(at300.status, 200, at300.text);
    assert.equal(at300.body.content.validUntilLedger, latest + 300);
    const verified = verifyAuthEntrySignature(at300.body.content.signedEntry, gatewayOf(svc).networkPassphrase, latest);
    assert.ok(verified.valid && verified.signatureExpirationLedger === latest + 300);
    const at301 = await sign(who, entry(), latest + 301);
    assertDenied(at301, who, 403, 'SOROBAN_AUTH_EXPIRATION_TOO_LONG');
    assert.match(at301.body.message, /more than 300 ledgers/);
    assertDenied(await sign(who, entry(), latest), who, 403, 'SOROBAN_AUTH_EXPIRATION_TOO_LONG');
    assertDenied(await sign(who, entry(), 1), who, 403, 'SOROBAN_AUTH_EXPIRATION_TOO_LONG');
  });
});
