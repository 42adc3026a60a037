// getRampTransaction (GET /v1/ramps/transactions/{rampTxId}) with real end-user sessions against the real service,
// every answer checked against the contract: the user's own ramp as started (refreshed from the sandbox, which has
// nothing new to say until the deposit is confirmed); another user's or an unknown one 404; a malformed id 400.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { newUser, onRampQuote, refused, start, useRampsService } from './ramps.setup';

useRampsService();

describe('getRampTransaction', () => {
  test("the user's ramp; another user's, an unknown one: 404; a malformed id: 400", async () => {
    const user = await newUser();
    const started = await start(user, await onRampQuote(user, '40'));
    assert.equal(started.status, 201, started.text);
    const txId = started.body.content.txId;
    const res = await user.call('getRampTransaction', 'GET', `/v1/ramps/transactions/${txId}`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.code, 'SDK_RAMPS_TX_FETCHED');
    assert.equal(res.body.content.txId, txId);
    assert.equal(res.body.content.status, 'awaiting_deposit');
    assert.deepEqual(res.body.content.depositInstructions, started.body.content.depositInstructions);
    const other = await newUser();
    refused(
      await other.call('getRampTransaction', 'GET', `/v1/ramps/transactions/${txId}`),
      404,
      'SDK_RAMPS_TX_NOT_FOUND',
    );
    refused(
      await user.call('getRampTransaction', 'GET', '/v1/ramps/transactions/rmt_doesnotexist1234'),
      404,
      'SDK_RAMPS_TX_NOT_FOUND',
    );
    refused(await user.call('getRampTransaction', 'GET', '/v1/ramps/transactions/tx_1'), 400, 'VALIDATION_ERROR');
  });
});
