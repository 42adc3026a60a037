// Hostile input on the input paths added with the Soroban allowlist, sign-auth-entry, the fee policy's dry run and the
// dashboard's dev outbox view: NUL, lone surrogates, invalid UTF-8 (percent-encoded), Object.prototype names, huge and
// deep values, bytes that are no XDR, and chain data that is no contract spec. Each is a 4xx with the envelope (or,
// for chain data, the documented 503), nothing is stored or signed, and the service keeps answering.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { xdr, StrKey, Keypair } from '@stellar/stellar-sdk';
import { appWithWallet } from '../support/funding';
import { call, rawCall } from '../support/http';
import { signInOperator, type OperatorClient } from '../support/operators';
import { startTestService, type TestService } from '../support/service';
import { installContract, unsignedEntry, type Call } from '../support/sorobanAuth';
import { signInUser, type UserClient } from '../support/users';
import type { SeededCredentials } from '../support/credentials';

let svc: TestService;
let creds: SeededCredentials;
let user: UserClient;
let operator: OperatorClient;
let appId: string;
let token: string;

before(async () => {
  svc = await startTestService();
  ({ creds } = await appWithWallet(svc, { settings: { fundingMode: 'deferred' }, funded: false }));
  user = await signInUser(svc, creds);
  token = installContract(svc, ['transfer', 'balance']);
  operator = await signInOperator(svc);
  const created = await operator.call('createApp', 'POST', '/api/v1/apps', {
    body: { name: 'Hostile soroban', network: 'testnet' },
  });
  appId = created.body.content.appId;
});
after(async () => {
  await svc?.stop();
});

const PROTOTYPE_NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];

const secret = () => ({ 'x-service-api-key': creds.secretKey });

function assertClientError(res: { status: number; text: string }, what: string): void {
  assert.ok(res.status >= 400 && res.status < 500, `${what}: ${res.status} ${res.text.slice(0, 300)}`);
  assert.equal(JSON.parse(res.text).success, false, what);
}

const rowCount = async () => Number((await svc.deps.db('auth_policy_rows').count('* as n').first())?.n);

describe('allowlist rows: hostile bodies', () => {
  test('NUL, lone surrogates, prototype names and huge lists are 4xx; nothing is saved', async () => {
    const before = await rowCount();
    const bodies: unknown[] = [
      { contract: token, functions: ['transfer'], label: 'a\u0000b' },
      { contract: token, functions: ['trans\u0000fer'] },
      { contract: token, functions: ['\ud800'] },
      { contract: `${token}\u0000`, functions: ['transfer'] },
      { contract: token, functions: Array.from({ length: 5000 }, (_, i) => `f${i}`) },
      { contract: token, functions: ['transfer'], label: 'x'.repeat(100_000) },
      { contract: token, functions: ['*', 'transfer'] },
      ...PROTOTYPE_NAMES.map((name) => JSON.parse(`{"contract":"${token}","functions":["transfer"],"${name}":1}`)),
      // Function names that are Object.prototype members are names the contract does not expose, not a crash.
      ...PROTOTYPE_NAMES.map((name) => ({ contract: token, functions: [name] })),
    ];
    for (const body of bodies) {
      const res = await rawCall(svc.url, 'POST', '/v1/auth-policy/rows', {
        headers: { ...secret(), 'content-type': 'application/json' },
        rawBody: JSON.stringify(body),
      });
      assertClientError(res, JSON.stringify(body).slice(0, 80));
    }
    assert.equal(await rowCount(), before, 'no row saved');
  });

  test('chain data that is no contract spec: the documented 503, nothing saved, and the service goes on', async () => {
    const before = await rowCount();
    // A WASM whose contractspecv0 section holds bytes that are no SCSpecEntry stream.
    const junk = Buffer.concat([
      Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 0, 20, 14]),
      Buffer.from('contractspecv0'),
      Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff]),
    ]);
    const contract = svc.localnet!.engine.installContract(junk, { salt: Buffer.alloc(32, 7) }).contractId;
    const res = await call(svc.url, 'createAuthPolicyRow', 'POST', '/v1/auth-policy/rows', {
      headers: secret(),
      body: { contract, functions: ['transfer'] },
    });
    assert.equal(res.status, 503, res.text);
    assert.equal(res.body.code, 'CONTRACT_INTROSPECTION_FAILED');
    assert.equal(await rowCount(), before);
    const listed = await call(svc.url, 'listAuthPolicyRows', 'GET', '/v1/auth-policy/rows', { headers: secret() });
    assert.equal(listed.status, 200);
  });
});

describe('sign-auth-entry: hostile entries', () => {
  before(async () => {
    const res = await call(svc.url, 'createAuthPolicyRow', 'POST', '/v1/auth-policy/rows', {
      headers: secret(),
      body: { contract: token, functions: ['transfer'] },
    });
    assert.equal(res.status, 201, res.text);
  });

  const decryptions = async () =>
    Number(
      (
        await svc.deps
          .db('audit_log')
          .where({ action: 'key.decrypt', purpose: 'auth_entry.sign' })
          .count('* as n')
          .first()
      )?.n,
    );

  test('not base64, no XDR, NUL, surrogates, huge, prototype names and a deep tree are 4xx; nothing is signed', async () => {
    const before = await decryptions();
    const wallet = user.signIn.wallet.publicKey;
    // 150 nested invocations of the allowed function: every level is checked, none may overflow anything.
    let deep: Call = { contract: token, fn: 'transfer' };
    for (let i = 0; i < 150; i++) deep = { contract: token, fn: 'transfer', sub: [deep] };
    const entries: unknown[] = [
      'not base64 !!',
      Buffer.from('no XDR at all').toString('base64'),
      'AAAA\u0000',
      '\ud800',
      'A'.repeat(50_000),
      Buffer.from(xdr.ScVal.scvU32(7).toXDR()).toString('base64'),
      // Trailing bytes after a valid entry.
      Buffer.concat([
        Buffer.from(unsignedEntry(wallet, { contract: token, fn: 'transfer' }), 'base64'),
        Buffer.from([0, 0, 0, 1]),
      ]).toString('base64'),
      // Another account's entry and a contract address as the authorizer.
      unsignedEntry(Keypair.random().publicKey(), { contract: token, fn: 'transfer' }),
      unsignedEntry(StrKey.encodeContract(Buffer.alloc(32, 1)), { contract: token, fn: 'transfer' }),
      12345,
      { entry: 'nested' },
    ];
    for (const entry of entries) {
      const res = await user.rawCall('POST', '/v1/tx/sign-auth-entry', { body: { entry } });
      assertClientError(res, String(JSON.stringify(entry)).slice(0, 60));
    }
    for (const name of PROTOTYPE_NAMES) {
      const res = await user.rawCall('POST', '/v1/tx/sign-auth-entry', {
        rawBody: `{"entry":"${unsignedEntry(wallet, { contract: token, fn: 'transfer' })}","${name}":1}`,
      });
      assertClientError(res, name);
    }
    for (const validUntilLedger of [-1, 2 ** 40, 1.5, '10', null]) {
      const res = await user.rawCall('POST', '/v1/tx/sign-auth-entry', {
        body: { entry: unsignedEntry(wallet, { contract: token, fn: 'transfer' }), validUntilLedger },
      });
      assertClientError(res, `validUntilLedger ${String(validUntilLedger)}`);
    }
    const deepEntry = unsignedEntry(wallet, deep);
    if (deepEntry.length <= 20_000) {
      // Within the size limit: walked and signed (every level is allowed), never a crash.
      const res = await user.rawCall('POST', '/v1/tx/sign-auth-entry', { body: { entry: deepEntry } });
      assert.ok(res.status === 200 || (res.status >= 400 && res.status < 500), `${res.status} ${res.text}`);
    }
    assert.ok((await decryptions()) - before <= 1, 'only the deep, allowed entry may have been signed');
  });
});

describe('the fee policy dry run: hostile descriptions', () => {
  test('NUL, surrogates, prototype names, huge lists and odd amounts are 400', async () => {
    const bodies: unknown[] = [
      { transaction: { operations: [{ type: 'payment', asset: 'native\u0000' }], feeXlm: '1' } },
      { transaction: { operations: [{ type: 'payment', asset: '\ud800' }], feeXlm: '1' } },
      { transaction: { operations: [{ type: '__proto__' }], feeXlm: '1' } },
      { transaction: { operations: [], feeXlm: '1' } },
      {
        transaction: {
          operations: Array.from({ length: 5000 }, () => ({ type: 'payment', asset: 'native' })),
          feeXlm: '1',
        },
      },
      { transaction: { operations: [{ type: 'payment', asset: 'native' }], feeXlm: '1e3' } },
      { transaction: { operations: [{ type: 'payment', asset: 'native' }], feeXlm: '-1' } },
      { transaction: { operations: [{ type: 'payment', asset: 'native' }], feeXlm: '0.00000001' } },
      { transaction: { operations: [{ type: 'payment', asset: 'native' }], feeXlm: '1' }, userId: 'usr_\u0000' },
      { transaction: { operations: [{ type: 'accountMerge', destination: 'G'.repeat(56) }], feeXlm: '1' } },
      { policy: { maxFeePerTxXlm: 'NaN' }, transaction: { operations: [{ type: 'createAccount' }], feeXlm: '1' } },
    ];
    for (const body of bodies) {
      const res = await operator.rawCall('POST', `/api/v1/apps/${appId}/fee-policy/dry-run`, { body });
      assertClientError(res, JSON.stringify(body).slice(0, 80));
    }
    for (const name of PROTOTYPE_NAMES) {
      const res = await operator.rawCall('POST', `/api/v1/apps/${appId}/fee-policy/dry-run`, {
        rawBody: `{"transaction":{"operations":[{"type":"createAccount","${name}":1}],"feeXlm":"1"}}`,
      });
      assertClientError(res, name);
    }
  });
});

describe('the dev outbox view: hostile addresses', () => {
  test('NUL, invalid UTF-8, repeated or overlong addresses are 400 with the envelope', async () => {
    for (const query of [
      'to=%00',
      'to=a%00b%40example.com',
      'to=%FF%FE%40example.com',
      'to=a@example.com&to=b@example.com',
      `to=${'a'.repeat(300)}%40example.com`,
      'to[__proto__]=x',
      '',
    ]) {
      const res = await rawCall(svc.url, 'GET', `/dashboard/dev/outbox?${query}`, {});
      assertClientError(res, query);
    }
    // An address that names an Object.prototype member is just an address with no mail.
    const res = await rawCall(svc.url, 'GET', '/dashboard/dev/outbox?to=__proto__%40example.com', {});
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(JSON.parse(res.text), { messages: [] });
  });
});
