import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { xdr } from '@stellar/stellar-sdk';
import { operationCodeName, requiredFeeOf, resultCodes, transactionCodeName } from './resultCodes';

describe('Stellar result codes in Horizon spelling', () => {
  test('transaction codes', () => {
    assert.equal(transactionCodeName('txInsufficientBalance'), 'tx_insufficient_balance');
    assert.equal(transactionCodeName('txBadSeq'), 'tx_bad_seq');
    assert.equal(transactionCodeName('txFeeBumpInnerFailed'), 'tx_fee_bump_inner_failed');
    assert.equal(transactionCodeName('txNoAccount'), 'tx_no_source_account');
    assert.equal(transactionCodeName('txBadMinSeqAgeOrGap'), 'tx_bad_minseq_age_or_gap');
  });

  test('operation codes drop the operation prefix', () => {
    assert.equal(operationCodeName('paymentUnderfunded'), 'op_underfunded');
    assert.equal(operationCodeName('paymentNoDestination'), 'op_no_destination');
    assert.equal(operationCodeName('changeTrustLowReserve'), 'op_low_reserve');
    assert.equal(operationCodeName('createAccountSuccess'), 'op_success');
    assert.equal(operationCodeName('createAccountAlreadyExist'), 'op_already_exists');
    assert.equal(operationCodeName('beginSponsoringFutureReservesAlreadySponsored'), 'op_already_sponsored');
    assert.equal(operationCodeName('endSponsoringFutureReservesNotSponsored'), 'op_not_sponsored');
    assert.equal(operationCodeName('pathPaymentStrictReceiveOverSendmax'), 'op_over_source_max');
    // createPassiveSellOffer answers ManageSellOfferResult names
    assert.equal(operationCodeName('manageSellOfferUnderfunded'), 'op_underfunded');
  });

  test('operation-level codes', () => {
    assert.equal(operationCodeName('opBadAuth'), 'op_bad_auth');
    assert.equal(operationCodeName('opNoAccount'), 'op_no_source_account');
    assert.equal(operationCodeName('opTooManySponsoring'), 'op_too_many_sponsoring');
  });

  test('a decoded result: createAccount lost to an existing account', () => {
    // stellar/friendbot's createAccountAlreadyExist result
    const result = xdr.TransactionResult.fromXdr('AAAAAAAAAGT/////AAAAAQAAAAAAAAAA/////AAAAAA=', 'base64');
    assert.deepEqual(resultCodes(result), { transaction: 'tx_failed', operations: ['op_already_exists'] });
  });
});

describe('requiredFeeOf: the fee a congested network names (chain data, checked)', () => {
  /** A TransactionResult as the RPC sends it: feeCharged (int64), the code (int32), ext v0. */
  function result(feeCharged: bigint, code: number): xdr.TransactionResult {
    const bytes = Buffer.alloc(16);
    bytes.writeBigInt64BE(feeCharged, 0);
    bytes.writeInt32BE(code, 8);
    return xdr.TransactionResult.fromXDR(bytes);
  }
  const TX_INSUFFICIENT_FEE = -9;
  const TX_BAD_SEQ = -5;

  test('the fee named with tx_insufficient_fee; nothing for another refusal or a fee that is no fee', () => {
    const named = result(2001n, TX_INSUFFICIENT_FEE);
    assert.equal(requiredFeeOf(named, resultCodes(named)), 2001n);
    const other = result(2001n, TX_BAD_SEQ);
    assert.equal(requiredFeeOf(other, resultCodes(other)), undefined);
    for (const fee of [0n, -1n, -(2n ** 63n)]) {
      const r = result(fee, TX_INSUFFICIENT_FEE);
      assert.equal(requiredFeeOf(r, resultCodes(r)), undefined, String(fee));
    }
    assert.equal(requiredFeeOf(undefined, { transaction: 'tx_insufficient_fee', operations: [] }), undefined);
    // A huge fee is passed on as it is: the fee policy's maximum judges it (a denial, nothing sent).
    const huge = result(2n ** 63n - 1n, TX_INSUFFICIENT_FEE);
    assert.equal(requiredFeeOf(huge, resultCodes(huge)), 2n ** 63n - 1n);
  });
});
