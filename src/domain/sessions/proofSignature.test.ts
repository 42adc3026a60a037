import assert from 'node:assert/strict';
import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, test } from 'node:test';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { importProofKey, PROOF_ALGORITHMS, proofSignatureIsValid } from './proofSignature';

async function signedBy(alg: string, options: { modulusLength?: number } = {}) {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true, ...options });
  const publicJwk = await exportJWK(publicKey);
  const proof = await new SignJWT({ jti: 'j1', htm: 'GET', htu: 'https://api.example/x', iat: 1 })
    .setProtectedHeader({ alg, typ: 'dpop+jwt', jwk: publicJwk })
    .sign(privateKey);
  const jwk: Record<string, unknown> = { ...publicJwk };
  return { jwk, proof };
}

/** The reason importProofKey gives for refusing a key (failing when it imports it). */
function refusal(result: ReturnType<typeof importProofKey>): string {
  assert.equal(typeof result, 'string', 'the key was imported');
  return result as string;
}

const flipLast = (segment: string) => segment.slice(0, -2) + (segment.at(-2) === 'A' ? 'B' : 'A') + segment.at(-1)!;

describe('proofSignatureIsValid (node:crypto against what jose signs)', () => {
  for (const [alg, options] of [
    ['EdDSA', {}],
    ['ES256', {}],
    ['ES384', {}],
    ['PS256', { modulusLength: 2048 }],
    ['RS256', { modulusLength: 2048 }],
  ] as const) {
    test(`a ${alg} proof signed by jose verifies; a changed header, payload or signature does not`, async () => {
      const { jwk, proof } = await signedBy(alg, options);
      const key = importProofKey(jwk, alg);
      assert.ok(typeof key !== 'string', typeof key === 'string' ? key : '');
      assert.equal(proofSignatureIsValid(proof, alg, key), true);
      const [h, p, s] = proof.split('.') as [string, string, string];
      assert.equal(proofSignatureIsValid(`${flipLast(h)}.${p}.${s}`, alg, key), false, 'header changed');
      assert.equal(proofSignatureIsValid(`${h}.${flipLast(p)}.${s}`, alg, key), false, 'payload changed');
      assert.equal(proofSignatureIsValid(`${h}.${p}.${flipLast(s)}`, alg, key), false, 'signature changed');
      assert.equal(proofSignatureIsValid(`${h}.${p}.`, alg, key), false, 'no signature');
    });
  }

  test("another key's signature is refused", async () => {
    const a = await signedBy('ES256');
    const b = await signedBy('ES256');
    const keyB = importProofKey(b.jwk, 'ES256');
    assert.ok(typeof keyB !== 'string');
    assert.equal(proofSignatureIsValid(a.proof, 'ES256', keyB), false);
  });

  test('segments that are not strict base64url, or not three of them, are refused', async () => {
    const { jwk, proof } = await signedBy('EdDSA');
    const key = importProofKey(jwk, 'EdDSA');
    assert.ok(typeof key !== 'string');
    const [h, p, s] = proof.split('.') as [string, string, string];
    assert.equal(proofSignatureIsValid(`${h}.${p}.${s}==`, 'EdDSA', key), false, 'padding');
    assert.equal(proofSignatureIsValid(`${h}.${p}.${s.replace(/-/g, '+').replace(/_/g, '/')}x+`, 'EdDSA', key), false);
    assert.equal(proofSignatureIsValid(`${h}.${p}.${s}.extra`, 'EdDSA', key), false, 'four segments');
    assert.equal(proofSignatureIsValid(`${h}.${p}`, 'EdDSA', key), false, 'two segments');
  });

  test('an ES256 signature in DER (not JWS r || s) is refused', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' }) as Record<string, unknown>;
    const h = Buffer.from(JSON.stringify({ alg: 'ES256', typ: 'dpop+jwt', jwk })).toString('base64url');
    const p = Buffer.from(JSON.stringify({ jti: 'j' })).toString('base64url');
    const der = sign('sha256', Buffer.from(`${h}.${p}`), privateKey).toString('base64url');
    const p1363 = sign('sha256', Buffer.from(`${h}.${p}`), { key: privateKey, dsaEncoding: 'ieee-p1363' });
    const key = importProofKey(jwk, 'ES256');
    assert.ok(typeof key !== 'string');
    assert.equal(proofSignatureIsValid(`${h}.${p}.${der}`, 'ES256', key), false);
    assert.equal(proofSignatureIsValid(`${h}.${p}.${p1363.toString('base64url')}`, 'ES256', key), true);
  });
});

describe('ECDSA signatures of every shape', () => {
  for (const [alg, namedCurve, digest, half] of [
    ['ES256', 'P-256', 'sha256', 32],
    ['ES384', 'P-384', 'sha384', 48],
  ] as const) {
    test(`${alg}: signatures verify until r or s has had a leading zero byte and the high bit set`, async () => {
      const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve });
      const jwk = publicKey.export({ format: 'jwk' }) as Record<string, unknown>;
      const key = importProofKey(jwk, alg);
      assert.ok(typeof key !== 'string');
      const h = Buffer.from(JSON.stringify({ alg, typ: 'dpop+jwt', jwk })).toString('base64url');
      let leadingZero = 0;
      let highBit = 0;
      // A zero first byte comes once in 128 signatures on average: sign until one has come (and at least 200).
      for (let i = 0; i < 200 || (leadingZero === 0 && i < 20_000); i++) {
        const p = Buffer.from(JSON.stringify({ jti: `j${i}` })).toString('base64url');
        const rs = sign(digest, Buffer.from(`${h}.${p}`), { key: privateKey, dsaEncoding: 'ieee-p1363' });
        for (const half0 of [rs[0]!, rs[half]!]) {
          if (half0 === 0) leadingZero++;
          if (half0 & 0x80) highBit++;
        }
        assert.equal(proofSignatureIsValid(`${h}.${p}.${rs.toString('base64url')}`, alg, key), true, `signature ${i}`);
      }
      assert.ok(leadingZero > 0 && highBit > 0, `${leadingZero} leading zeros, ${highBit} high bits`);
    });
  }
});

describe('importProofKey', () => {
  test('the accepted algorithms are exactly the five of the gate', () => {
    assert.deepEqual(Object.keys(PROOF_ALGORITHMS).sort(), ['ES256', 'ES384', 'EdDSA', 'PS256', 'RS256']);
  });

  test('a key of another type or curve than the algorithm needs is refused (no algorithm confusion)', async () => {
    const ed = await signedBy('EdDSA');
    const p256 = await signedBy('ES256');
    const rsa = await signedBy('RS256', { modulusLength: 2048 });
    assert.match(refusal(importProofKey(ed.jwk, 'ES256')), /type EC/);
    assert.match(refusal(importProofKey(p256.jwk, 'ES384')), /P-384/);
    assert.match(refusal(importProofKey(p256.jwk, 'EdDSA')), /type OKP/);
    assert.match(refusal(importProofKey(rsa.jwk, 'ES256')), /type EC/);
    assert.match(refusal(importProofKey(p256.jwk, 'RS256')), /type RSA/);
    assert.match(refusal(importProofKey(ed.jwk, 'HS256')), /not accepted/);
    assert.match(refusal(importProofKey(ed.jwk, 'none')), /not accepted/);
    assert.match(refusal(importProofKey(ed.jwk, 'constructor')), /not accepted/);
  });

  test('EdDSA is Ed25519 only (as jose has it): an Ed448 key is refused', () => {
    const { publicKey } = generateKeyPairSync('ed448');
    const jwk = publicKey.export({ format: 'jwk' }) as Record<string, unknown>;
    assert.match(refusal(importProofKey(jwk, 'EdDSA')), /Ed25519/);
  });

  test('an RSA key under 2048 bits is refused', () => {
    const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const jwk = publicKey.export({ format: 'jwk' }) as Record<string, unknown>;
    assert.match(refusal(importProofKey(jwk, 'RS256')), /2048 bits/);
  });

  test('a jwk node cannot import is refused with a reason, not thrown', () => {
    assert.match(refusal(importProofKey({ kty: 'OKP', crv: 'Ed25519', x: '!!' }, 'EdDSA')), /not a valid public key/);
    assert.match(refusal(importProofKey({ kty: 'EC', crv: 'P-256', x: 'AA', y: 'AA' }, 'ES256')), /not a valid/);
  });
});
