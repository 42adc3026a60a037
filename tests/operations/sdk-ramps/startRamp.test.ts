// startRamp (POST /v1/ramps/transactions) with real end-user sessions against the real service, every answer checked
// against the contract: a sandbox on-ramp answers awaiting_deposit with its deposit instructions; the same quote
// started again, or five times at once, is one ramp; an expired quote 410; an unknown or another user's quote 404; a
// malformed id 400. (Off-ramps, KYC first and the on-chain legs: tests/integration/ramps*.test.ts.)
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { newUser, onRampQuote, refused, start, svc, useRampsService } from './ramps.setup';

useRampsService();

describe('startRamp', () => {
  test('an on-ramp: awaiting_deposit with instructions; the same quote again is the same ramp', async () => {
    const user = await newUser();
    const quoteId = await onRampQuote(user, '100');
    const res = await start(user, quoteId);
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.code, 'SDK_RAMPS_STARTED');
    const ramp = res.body.content;
    assert.deepEqual(
      [
        ramp.provider,
        ramp.status,
        ramp.quoteId,
        ramp.direction,
        ramp.fiatAmount,
        ramp.cryptoAmount,
        ramp.stellarTxHash,
      ],
      ['sandbox', 'awaiting_deposit', quoteId, 'on', '100', '99.25', null],
    );
    assert.deepEqual(
      [ramp.depositInstructions.amount, ramp.depositInstructions.currency, ramp.depositInstructions.method],
      ['100', 'USD', 'other'],
    );
    assert.match(ramp.depositInstructions.details.confirmDepositAt, /\/sandbox\/ramps\/rmt_/);
    const again = await start(user, quoteId);
    assert.equal(again.status, 201);
    assert.deepEqual(again.body.content, ramp);
  });

  test('five starts of one quote at once: one ramp', async () => {
    const user = await newUser();
    const quoteId = await onRampQuote(user, '50');
    const answers = await Promise.all(Array.from({ length: 5 }, () => start(user, quoteId)));
    for (const a of answers) assert.equal(a.status, 201, a.text);
    assert.equal(new Set(answers.map((a) => a.body.content.txId)).size, 1);
    assert.equal((await svc.deps.db('ramp_transactions').where({ quote_id: quoteId })).length, 1);
  });

  test("an expired quote 410; an unknown or another user's quote 404; a malformed id 400", async () => {
    const user = await newUser();
    const expired = await onRampQuote(user, '30');
    await svc.deps
      .db('ramp_quotes')
      .where({ id: expired })
      .update({ expires_at: new Date(Date.now() - 1000) });
    refused(await start(user, expired), 410, 'SDK_RAMPS_QUOTE_EXPIRED');
    assert.equal((await svc.deps.db('ramp_transactions').where({ quote_id: expired })).length, 0);
    refused(await start(user, 'rmq_doesnotexist1234'), 404, 'SDK_RAMPS_QUOTE_NOT_FOUND');
    const theirs = await onRampQuote(await newUser(), '30');
    refused(await start(user, theirs), 404, 'SDK_RAMPS_QUOTE_NOT_FOUND');
    refused(await start(user, 'quote-1'), 400, 'VALIDATION_ERROR');
  });
});
