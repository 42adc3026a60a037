import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Account, Asset, Keypair, Networks, Operation, TransactionBuilder } from '@stellar/stellar-sdk';
import type { TransactionDetails } from '../../infra/stellar/gateway';
import { describeChainTransaction } from './chainTransactions';
import { shortAddress } from './describe';

const user = Keypair.random();
const sponsor = Keypair.random();
const payee = Keypair.random().publicKey();
const gas = Keypair.random();

function details(envelopeXdr: string, over: Partial<TransactionDetails> = {}): TransactionDetails {
  return {
    status: 'SUCCESS',
    hash: 'f'.repeat(64),
    ledger: 7,
    createdAt: 1_790_000_000,
    feeBump: false,
    envelopeXdr,
    resultXdr: '',
    codes: { transaction: 'tx_success', operations: ['op_success'] },
    feeChargedStroops: 200n,
    ...over,
  };
}

function inner() {
  const tx = new TransactionBuilder(new Account(user.publicKey(), '1'), {
    fee: '100',
    networkPassphrase: Networks.TESTNET,
  })
    .addOperation(Operation.payment({ destination: payee, asset: Asset.native(), amount: '10' }))
    .addOperation(
      Operation.payment({
        source: sponsor.publicKey(),
        destination: user.publicKey(),
        asset: Asset.native(),
        amount: '1.5',
      }),
    )
    .setTimeout(0)
    .build();
  tx.sign(user, sponsor);
  return tx;
}

test('a fee-bump: the outer hash is the hash, the inner one is kept; sources, destinations and the fee payer', () => {
  const tx = inner();
  const bump = TransactionBuilder.buildFeeBumpTransaction(gas.publicKey(), '200', tx, Networks.TESTNET);
  const chain = describeChainTransaction(details(bump.toXDR(), { feeBump: true }), Networks.TESTNET)!;
  assert.equal(chain.hash, Buffer.from(bump.hash()).toString('hex'));
  assert.equal(chain.innerHash, Buffer.from(tx.hash()).toString('hex'));
  assert.equal(chain.feeSource, gas.publicKey());
  assert.deepEqual([...chain.sources], [user.publicKey(), sponsor.publicKey()]);
  assert.deepEqual([...chain.destinations].sort(), [payee, user.publicKey()].sort());
  assert.equal(chain.resultCode, 'tx_success');
});

test('each account its own view; an account not in the transaction has none', () => {
  const chain = describeChainTransaction(details(inner().toXDR()), Networks.TESTNET)!;
  assert.equal(chain.innerHash, null);
  assert.deepEqual(chain.viewOf(payee), {
    direction: 'received',
    summary: `Received 10 XLM from ${shortAddress(user.publicKey())}`,
  });
  // The user pays and is paid (by the sponsor's operation): paid by another account, so received.
  assert.deepEqual(chain.viewOf(user.publicKey()), {
    direction: 'received',
    summary: `Received 1.5 XLM from ${shortAddress(sponsor.publicKey())}`,
  });
  assert.equal(chain.viewOf(sponsor.publicKey())?.direction, 'sent');
  assert.equal(chain.viewOf(gas.publicKey()), undefined);
  assert.equal(chain.viewOf('not an address'), undefined);
});

test('a merge destination receives the account; a failed transaction answers the failing code', () => {
  const merging = Keypair.random();
  const into = Keypair.random().publicKey();
  const tx = new TransactionBuilder(new Account(merging.publicKey(), '1'), {
    fee: '100',
    networkPassphrase: Networks.TESTNET,
  })
    .addOperation(Operation.accountMerge({ destination: into }))
    .setTimeout(0)
    .build();
  const chain = describeChainTransaction(
    details(tx.toXDR(), { status: 'FAILED', codes: { transaction: 'tx_failed', operations: ['op_has_sub_entries'] } }),
    Networks.TESTNET,
  )!;
  assert.deepEqual(chain.viewOf(into), {
    direction: 'received',
    summary: `Account ${shortAddress(merging.publicKey())} merged into this wallet`,
  });
  assert.equal(chain.viewOf(merging.publicKey())?.direction, 'sent');
  assert.equal(chain.resultCode, 'op_has_sub_entries');
});

test('an envelope that cannot be read is no transaction', () => {
  assert.equal(describeChainTransaction(details('not xdr'), Networks.TESTNET), undefined);
});
