// createRampQuote (POST /v1/ramps/quotes) with real end-user sessions against the real service, every answer checked
// against the contract: the sandbox's price in exact decimals both ways (fee rounded up to the cent), 15 minutes of
// validity, the quote stored for the user; and each refusal: out of range at both ends with its bound, a currency the
// provider does not ramp, an asset not enabled, an unknown or switched-off provider, a malformed amount.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { newUser, quote, refused, svc, useRampsService } from './ramps.setup';

useRampsService();

describe('createRampQuote', () => {
  test('on-ramp of 100 USD: 99.25 USDC after a 0.75 fee, valid 15 minutes, stored for the user', async () => {
    const user = await newUser();
    const before = Date.now();
    const res = await quote(user, { amount: '100' });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.code, 'SDK_RAMPS_QUOTE_CREATED');
    const q = res.body.content;
    assert.deepEqual(
      [q.providerId, q.direction, q.fiatAmount, q.fiatCurrency, q.cryptoAmount, q.fee, q.minAmount, q.maxAmount],
      ['sandbox', 'on', '100', 'USD', '99.25', '0.75', '20', '10000'],
    );
    const validMs = Date.parse(q.expiresAt) - before;
    assert.ok(validMs > 14.9 * 60_000 && validMs <= 15 * 60_000 + 1000, `${validMs} ms`);
    const row = await svc.deps.db('ramp_quotes').where({ id: q.quoteId }).first();
    assert.equal(row.user_id, user.userId);
  });

  test('off-ramp by the asset: 33.33 USDC sent pays out 33.08 USD (fee 0.249975 rounded up to 0.25)', async () => {
    const user = await newUser();
    const res = await quote(user, { direction: 'off', amount: '33.33', amountIn: 'crypto' });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(
      [res.body.content.cryptoAmount, res.body.content.fee, res.body.content.fiatAmount],
      ['33.33', '0.25', '33.08'],
    );
  });

  test('out of range: 422 with limit, limitAmount and limitCurrency at both ends', async () => {
    const user = await newUser();
    const low = refused(await quote(user, { amount: '19.99' }), 422, 'SDK_RAMPS_AMOUNT_OUT_OF_RANGE');
    assert.deepEqual([low.limit, low.limitAmount, low.limitCurrency], ['min', '20', 'USD']);
    const high = refused(await quote(user, { amount: '10000.01' }), 422, 'SDK_RAMPS_AMOUNT_OUT_OF_RANGE');
    assert.deepEqual([high.limit, high.limitAmount, high.limitCurrency], ['max', '10000', 'USD']);
  });

  test('each refusal: another currency, an asset not enabled, an unknown provider, a malformed amount', async () => {
    const user = await newUser();
    refused(await quote(user, { amount: '50', fiatCurrency: 'EUR' }), 422, 'SDK_RAMPS_ROUTE_NOT_OFFERED');
    refused(
      await quote(user, { amount: '50', asset: 'EURC:GBBD47IF6LWK7P7MDEVSCWR7DPUWV3NY3DTQEVFL4NAT4AQH3ZLLFLA5' }),
      422,
      'SDK_RAMPS_ASSET_NOT_ENABLED',
    );
    refused(await quote(user, { amount: '50', providerId: 'bridge' }), 404, 'SDK_RAMPS_PROVIDER_NOT_FOUND');
    refused(await quote(user, { amount: '50', providerId: 'acme-ramp' }), 404, 'SDK_RAMPS_PROVIDER_NOT_FOUND');
    refused(await quote(user, { amount: '1.12345678' }), 400, 'VALIDATION_ERROR');
    refused(await quote(user, { amount: '-5' }), 400, 'VALIDATION_ERROR');
  });
});
