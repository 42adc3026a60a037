// What the dashboard-monitoring operations' tests in this folder share: the service with three operators (an
// owner, a developer member, an outsider), apps made through the API, and transactions stored as the service writes
// them, at seconds after a fixed instant.
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { Keypair } from '@stellar/stellar-sdk';
import { insertTransaction, type NewTx } from '../../../src/domain/transactions/store';
import { signInOperator, type OperatorClient } from '../../support/operators';
import { startTestService, type TestService } from '../../support/service';
import { newTx } from '../../support/history';

export const USDC = `USDC:${Keypair.random().publicKey()}`;
export const BASE = Date.parse('2026-11-01T00:00:00Z');
export const at = (second: number) => new Date(BASE + second * 1000);
export const iso = (second: number) => at(second).toISOString();

/** Set by useService()'s hooks: ES module bindings are live, so read them inside tests, not at load time. */
export let svc: TestService;
export let owner: OperatorClient;
export let developer: OperatorClient;
export let outsider: OperatorClient;

/** Starts the service and signs the three operators in before the calling suite's tests; stops it after. */
export function useService(): void {
  before(async () => {
    svc = await startTestService({ LEDGER_FOLLOWER: 'off' }, { closeLedgersEveryMs: 200 });
    [owner, developer, outsider] = await Promise.all([signInOperator(svc), signInOperator(svc), signInOperator(svc)]);
  });
  after(async () => {
    await svc?.stop();
  });
}

export async function createApp(name = 'Monitored app'): Promise<{ appId: string; gasKey: string }> {
  const res = await owner.call('createApp', 'POST', '/api/v1/apps', { body: { name, network: 'testnet' } });
  assert.equal(res.status, 201, res.text);
  const appId = res.body.content.appId;
  // The single layout: the global wallet pays the app's fees.
  const gasKey = await svc.deps.db('wallets').where({ app_id: appId, role: 'global' }).first('public_key');
  assert.ok(gasKey, 'createApp makes the global wallet');
  return { appId, gasKey: gasKey.public_key };
}

/** Stores transactions through the store, as the service writes them; answers their ids in the order given. */
export async function store(appId: string, rows: { second: number; tx?: Partial<NewTx> }[]): Promise<string[]> {
  return svc.deps.db.transaction(async (trx) => {
    const ids: string[] = [];
    for (const r of rows) {
      const tx = await insertTransaction(trx, newTx(appId, null, at(r.second), r.tx), []);
      assert.ok(tx);
      ids.push(tx.id);
    }
    return ids;
  });
}
