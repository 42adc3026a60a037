// Set-up shared by the history tests and the history benchmark: user wallet rows and transaction rows as the store
// writes them.
import { randomBytes } from 'node:crypto';
import { Keypair } from '@stellar/stellar-sdk';
import type { Knex } from 'knex';
import { newId } from '../../src/domain/ids';
import type { NewTx } from '../../src/domain/transactions/store';
import { findOrCreateUser } from '../../src/domain/users/users';

/** A user wallet row (no usable key: paging never touches it). */
export async function walletRow(knex: Knex, appId: string): Promise<{ id: string; publicKey: string }> {
  const email = `history-${randomBytes(4).toString('hex')}@example.com`;
  const user = await findOrCreateUser(knex, {
    appId,
    identity: { provider: 'email', subject: email, email },
    now: new Date(),
  });
  const id = newId('wal');
  const publicKey = Keypair.random().publicKey();
  await knex('wallets').insert({
    id,
    app_id: appId,
    user_id: user.id,
    network: 'testnet',
    public_key: publicKey,
    sealed_secret: Buffer.alloc(1),
    wrapped_data_key: Buffer.alloc(1),
    kms_key_id: 'test',
    created_at: new Date(),
  });
  return { id, publicKey };
}

export function newTx(appId: string, walletId: string | null, at: Date, over: Partial<NewTx> = {}): NewTx {
  return {
    appId,
    network: 'testnet',
    walletId,
    userId: null,
    origin: 'built',
    status: 'SUCCESS',
    stage: 'confirmed',
    operation: 'payment',
    opsCount: 1,
    summary: 'Sent 1 XLM to GABC...WXYZ',
    sourceAccount: Keypair.random().publicKey(),
    destination: null,
    asset: 'native',
    amount: '1',
    hash: randomBytes(32).toString('hex'),
    feeStroops: 200n,
    resultCode: 'tx_success',
    at,
    ...over,
  };
}
