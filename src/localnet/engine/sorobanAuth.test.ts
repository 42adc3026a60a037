// Soroban authorization entries signed by the SDK (legacy ADDRESS and CAP-71 ADDRESS_V2) and how they fail.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Keypair, Networks, StrKey, authorizeEntry, authorizeInvocation, xdr } from '@stellar/stellar-sdk';
import { verifyAuthEntrySignature } from './sorobanAuth';

const PASSPHRASE = Networks.TESTNET;
const CONTRACT = StrKey.encodeContract(new Uint8Array(32).fill(9));

function invocation(fn = 'transfer'): xdr.SorobanAuthorizedInvocation {
  return xdr.SorobanAuthorizedInvocation.fromXdrObject({
    function: {
      type: 0,
      contractFn: {
        contractAddress: { type: 1, contractId: StrKey.decodeContract(CONTRACT) },
        functionName: new xdr.XdrString(fn),
        args: [{ type: 3, u32: 42 }],
      },
    },
    subInvocations: [],
  });
}

async function signed(signer: Keypair, validUntil: number, authV2: boolean, passphrase = PASSPHRASE): Promise<string> {
  const entry = await authorizeInvocation({
    signer,
    validUntilLedgerSeq: validUntil,
    invocation: invocation(),
    networkPassphrase: passphrase,
    authV2,
  });
  return entry.toXdr('base64');
}

/** Re-encodes an entry after editing its wire form. */
function tamper(entryXdr: string, edit: (w: xdr.SorobanAuthorizationEntryWire) => void): string {
  const wire = xdr.SorobanAuthorizationEntry.schema.decode(new Uint8Array(Buffer.from(entryXdr, 'base64')));
  edit(wire);
  return Buffer.from(xdr.SorobanAuthorizationEntry.schema.encode(wire)).toString('base64');
}

const credentialsOf = (w: xdr.SorobanAuthorizationEntryWire): xdr.SorobanAddressCredentialsWire => {
  if (w.credentials.type === 1) return w.credentials.address;
  if (w.credentials.type === 2) return w.credentials.addressV2;
  throw new Error('not address credentials');
};

for (const [label, authV2] of [
  ['legacy ADDRESS', false],
  ['ADDRESS_V2', true],
] as const) {
  describe(`${label} credentials`, () => {
    test('a correctly signed entry verifies, valid through its expiration ledger', async () => {
      const kp = Keypair.random();
      const entry = await signed(kp, 100, authV2);
      const decoded = xdr.SorobanAuthorizationEntry.fromXdr(entry, 'base64');
      assert.equal(decoded.credentials.type, authV2 ? 'sorobanCredentialsAddressV2' : 'sorobanCredentialsAddress');
      for (const current of [50, 100]) {
        const r = verifyAuthEntrySignature(entry, PASSPHRASE, current);
        assert.equal(
          r.valid,
          true,
          JSON.stringify(r, (_k, v) => (typeof v === 'bigint' ? String(v) : v)),
        );
        if (r.valid) {
          assert.equal(r.address, kp.publicKey());
          assert.equal(r.credentialType, authV2 ? 'addressV2' : 'address');
          assert.equal(r.signatureExpirationLedger, 100);
          assert.deepEqual(r.signers, [kp.publicKey()]);
        }
      }
    });

    test('a tampered entry fails: changed invocation, nonce, or expiration', async () => {
      const entry = await signed(Keypair.random(), 100, authV2);
      const changedFn = tamper(entry, (w) => {
        const fn = w.rootInvocation.function;
        if (fn.type === 0) fn.contractFn.functionName = new xdr.XdrString('steal');
      });
      const changedNonce = tamper(entry, (w) => {
        credentialsOf(w).nonce += 1n;
      });
      const changedExpiry = tamper(entry, (w) => {
        credentialsOf(w).signatureExpirationLedger = 200;
      });
      for (const bad of [changedFn, changedNonce, changedExpiry]) {
        const r = verifyAuthEntrySignature(bad, PASSPHRASE, 50);
        assert.equal(r.valid, false);
        if (!r.valid) assert.equal(r.reason, 'SIGNATURE_INVALID');
      }
    });

    test('an expired entry fails; one expiring beyond maxEntryTtl fails', async () => {
      const entry = await signed(Keypair.random(), 100, authV2);
      const expired = verifyAuthEntrySignature(entry, PASSPHRASE, 101);
      assert.ok(!expired.valid && expired.reason === 'EXPIRED');
      const tooFar = verifyAuthEntrySignature(entry, PASSPHRASE, 50, { maxEntryTtl: 10 });
      assert.ok(!tooFar.valid && tooFar.reason === 'EXPIRATION_TOO_FAR');
    });

    test('an entry signed for another network fails', async () => {
      const entry = await signed(Keypair.random(), 100, authV2, Networks.PUBLIC);
      const r = verifyAuthEntrySignature(entry, PASSPHRASE, 50);
      assert.ok(!r.valid && r.reason === 'SIGNATURE_INVALID');
      assert.equal(verifyAuthEntrySignature(entry, Networks.PUBLIC, 50).valid, true);
    });

    test('a used nonce fails', async () => {
      const kp = Keypair.random();
      const entry = await signed(kp, 100, authV2);
      const r = verifyAuthEntrySignature(entry, PASSPHRASE, 50, {
        isNonceUsed: (address) => address === kp.publicKey(),
      });
      assert.ok(!r.valid && r.reason === 'NONCE_USED');
    });
  });
}

describe('payload formats and signers', () => {
  test('the legacy and V2 payloads differ: a V2 signature does not verify as legacy', async () => {
    const v2 = await signed(Keypair.random(), 100, true);
    const relabelled = tamper(v2, (w) => {
      if (w.credentials.type === 2) w.credentials = { type: 1, address: w.credentials.addressV2 };
    });
    const r = verifyAuthEntrySignature(relabelled, PASSPHRASE, 50);
    assert.ok(!r.valid && r.reason === 'SIGNATURE_INVALID');
  });

  test('authorizeEntry on a simulation-style unsigned entry produces a verifiable V2 entry', async () => {
    const kp = Keypair.random();
    const unsigned = xdr.SorobanAuthorizationEntry.fromXdrObject({
      credentials: {
        type: 2,
        addressV2: {
          address: { type: 0, accountId: { type: 0, ed25519: kp.rawPublicKey() } },
          nonce: 7n,
          signatureExpirationLedger: 0,
          signature: { type: 1 },
        },
      },
      rootInvocation: invocation().toXdrObject(),
    });
    const entry = await authorizeEntry(unsigned, kp, 300, PASSPHRASE);
    const r = verifyAuthEntrySignature(entry.toXdr('base64'), PASSPHRASE, 10);
    assert.ok(r.valid && r.nonce === 7n);
  });

  test('a key that is not a signer of the account fails; account signers and thresholds are honoured', async () => {
    const account = Keypair.random();
    const cosigner = Keypair.random();
    const entry = await authorizeInvocation({
      signer: async (_preimage, payload) => ({
        signature: cosigner.sign(Buffer.from(payload)),
        publicKey: cosigner.publicKey(),
      }),
      publicKey: account.publicKey(),
      validUntilLedgerSeq: 100,
      invocation: invocation(),
      networkPassphrase: PASSPHRASE,
    });
    const xdrEntry = entry.toXdr('base64');
    const stranger = verifyAuthEntrySignature(xdrEntry, PASSPHRASE, 50);
    assert.ok(!stranger.valid && stranger.reason === 'SIGNER_NOT_AUTHORIZED');
    const multisig = { masterWeight: 1, mediumThreshold: 2, signers: [{ key: cosigner.publicKey(), weight: 1 }] };
    const low = verifyAuthEntrySignature(xdrEntry, PASSPHRASE, 50, { account: multisig });
    assert.ok(!low.valid && low.reason === 'WEIGHT_TOO_LOW');
    const enough = verifyAuthEntrySignature(xdrEntry, PASSPHRASE, 50, { account: { ...multisig, mediumThreshold: 1 } });
    assert.ok(enough.valid && enough.signers[0] === cosigner.publicKey());
  });

  test('source-account credentials, contract addresses and garbage are reported, not verified', () => {
    const sourceAccount = xdr.SorobanAuthorizationEntry.fromXdrObject({
      credentials: { type: 0 },
      rootInvocation: invocation().toXdrObject(),
    });
    const r1 = verifyAuthEntrySignature(sourceAccount.toXdr('base64'), PASSPHRASE, 1);
    assert.ok(!r1.valid && r1.reason === 'SOURCE_ACCOUNT_CREDENTIALS');
    const contractCreds = xdr.SorobanAuthorizationEntry.fromXdrObject({
      credentials: {
        type: 2,
        addressV2: {
          address: { type: 1, contractId: StrKey.decodeContract(CONTRACT) },
          nonce: 1n,
          signatureExpirationLedger: 10,
          signature: { type: 1 },
        },
      },
      rootInvocation: invocation().toXdrObject(),
    });
    const r2 = verifyAuthEntrySignature(contractCreds.toXdr('base64'), PASSPHRASE, 1);
    assert.ok(!r2.valid && r2.reason === 'CONTRACT_ADDRESS');
    const r3 = verifyAuthEntrySignature('AAAA', PASSPHRASE, 1);
    assert.ok(!r3.valid && r3.reason === 'MALFORMED');
  });
});
