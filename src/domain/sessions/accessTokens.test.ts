import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { secretsFromBytes } from '../../infra/secrets/serviceSecret';
import { AppError } from '../errors';
import { createAccessTokenSigner } from './accessTokens';

const refusedWith = (code: string) => (err: unknown) => err instanceof AppError && err.code === code;

describe('access tokens: a verified token is kept, its expiry and audience checked on every use', () => {
  const signer = createAccessTokenSigner(secretsFromBytes(randomBytes(32), 'test'));
  const claims = { audience: 'operator' as const, subjectId: 'op_1', sessionId: 'ses_1', jkt: 'jkt-1' };
  const issued = new Date('2026-11-27T10:00:00Z');
  const at = (seconds: number) => new Date(issued.getTime() + seconds * 1000);

  test('the same claims on a second use', async () => {
    const token = await signer.sign(claims, issued, 60);
    const first = await signer.verify(token, 'operator', at(1));
    assert.deepEqual(await signer.verify(token, 'operator', at(2)), first);
    assert.equal(first.sessionId, 'ses_1');
  });

  test('expired on its expiry second, though verified (and kept) before', async () => {
    const token = await signer.sign(claims, issued, 60);
    await signer.verify(token, 'operator', at(59));
    await assert.rejects(signer.verify(token, 'operator', at(60)), refusedWith('SDK_AUTH_TOKEN_EXPIRED'));
    await assert.rejects(signer.verify(token, 'operator', at(61)), refusedWith('SDK_AUTH_TOKEN_EXPIRED'));
  });

  test('a Dashboard token is refused on the SDK API, also once it was verified for the Dashboard', async () => {
    const token = await signer.sign(claims, issued, 60);
    await signer.verify(token, 'operator', at(1));
    await assert.rejects(signer.verify(token, 'user', at(2)), refusedWith('SDK_AUTH_INVALID_TOKEN'));
  });

  test('a token altered after a verified one is refused', async () => {
    const token = await signer.sign(claims, issued, 60);
    await signer.verify(token, 'operator', at(1));
    const [header, payload, signature] = token.split('.');
    const other = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as Record<string, unknown>;
    const forged = [header, Buffer.from(JSON.stringify({ ...other, sub: 'op_2' })).toString('base64url'), signature];
    await assert.rejects(signer.verify(forged.join('.'), 'operator', at(2)), refusedWith('SDK_AUTH_INVALID_TOKEN'));
  });

  test("another secret's signer refuses it", async () => {
    const token = await signer.sign(claims, issued, 60);
    await signer.verify(token, 'operator', at(1));
    const other = createAccessTokenSigner(secretsFromBytes(randomBytes(32), 'test'));
    await assert.rejects(other.verify(token, 'operator', at(2)), refusedWith('SDK_AUTH_INVALID_TOKEN'));
  });
});
