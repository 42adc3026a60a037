import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Account, Asset, Keypair, Networks, Operation, TransactionBuilder } from '@stellar/stellar-sdk';
import { DEFAULT_FEE_POLICY } from '../feePolicy/policy';
import { feeBumpFeeOf, raisedFeeBumpFeeStroops, raisedFeeUnderPolicy } from './feeBump';

const source = Keypair.random().publicKey();
const inner = new TransactionBuilder(new Account(source, '1'), { fee: '100', networkPassphrase: Networks.TESTNET })
  .addOperation(Operation.payment({ destination: source, asset: Asset.native(), amount: '1' }))
  .setTimeout(30)
  .build();

test('a raised fee pays at least what the network named, a whole rate per operation, never below the product fee', () => {
  assert.equal(feeBumpFeeOf(inner), 200n);
  assert.equal(raisedFeeBumpFeeStroops(inner, 2001n), 2002n); // 1,001 per operation, 2 operations
  assert.equal(raisedFeeBumpFeeStroops(inner, 2002n), 2002n);
  // A named fee under the product's (a confused or hostile RPC) never lowers it.
  assert.equal(raisedFeeBumpFeeStroops(inner, 1n), 200n);
  assert.equal(raisedFeeBumpFeeStroops(inner, -5n), 200n);
});

test("a raised fee is judged against the policy's maximum: at it allowed, above it refused with what the network needed", () => {
  const policy = { ...DEFAULT_FEE_POLICY, maxFeeStroops: 2002n };
  assert.deepEqual(raisedFeeUnderPolicy(policy, inner, 2001n), { feeStroops: 2002n });
  const above = raisedFeeUnderPolicy(policy, inner, 2003n);
  assert.equal(above.feeStroops, 2004n);
  assert.equal(above.refusal?.code, 'TX_POLICY_MAX_FEE_EXCEEDED');
  assert.match(above.refusal?.message ?? '', /congested/);
});
