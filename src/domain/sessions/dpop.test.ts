import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';
import { jwkThumbprint } from './dpop';

describe('jwkThumbprint (RFC 7638)', () => {
  for (const [alg, options] of [
    ['EdDSA', {}],
    ['ES256', {}],
    ['ES384', {}],
    ['RS256', { modulusLength: 2048 }],
  ] as const) {
    test(`gives jose's thumbprint for a ${alg} public key`, async () => {
      const { publicKey } = await generateKeyPair(alg, { extractable: true, ...options });
      const jwk = await exportJWK(publicKey);
      assert.equal(jwkThumbprint(jwk), await calculateJwkThumbprint(jwk, 'sha256'));
      // Members outside the thumbprint's (alg, kid, use) do not change it.
      assert.equal(jwkThumbprint({ ...jwk, alg, kid: 'k1', use: 'sig' }), jwkThumbprint(jwk));
    });
  }

  test('the RFC 7638 section 3.1 example', () => {
    const jwk = {
      kty: 'RSA',
      n:
        '0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMs' +
        'tn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5h' +
        'ajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw',
      e: 'AQAB',
      alg: 'RS256',
      kid: '2011-04-29',
    };
    assert.equal(jwkThumbprint(jwk), 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs');
  });

  for (const [name, jwk] of [
    ['not an object', 'not-a-key'],
    ['null', null],
    ['an array', ['kty', 'OKP']],
    ['an unknown kty', { kty: 'oct', k: 'AAAA' }],
    ['a kty that is not a string', { kty: 1, crv: 'Ed25519', x: 'AAAA' }],
    ['a missing member', { kty: 'EC', crv: 'P-256', x: 'AAAA' }],
    ['a member that is not a string', { kty: 'OKP', crv: 'Ed25519', x: 12 }],
  ] as const) {
    test(`undefined for ${name}`, () => {
      assert.equal(jwkThumbprint(jwk), undefined);
    });
  }
});
