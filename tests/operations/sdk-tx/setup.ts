// What the sdk-tx operations' tests in this folder share: the service and state they run against, and helpers.
import { after, before } from 'node:test';
import { insertTransaction } from '../../../src/domain/transactions/store';
import type { App } from '../../../src/domain/apps/store';
import { startTestService, type TestService } from '../../support/service';
import { signInUser, type UserClient } from '../../support/users';
import { appWithWallet } from '../../support/funding';
import { newTx } from '../../support/history';

/** The state the hooks of useService() set: read it inside tests, not at load time. */
export const ctx = {} as {
  svc: TestService;
  app: App;
  publishableKey: string;
};

/** Starts the service (and what the tests need of it) before the file's tests and stops it after. */
export function useService(): void {
  before(async () => {
    ctx.svc = await startTestService({}, { closeLedgersEveryMs: 100 });
    const seeded = await appWithWallet(ctx.svc, { settings: { fundingMode: 'deferred' }, funded: false });
    ctx.app = seeded.app;
    ctx.publishableKey = seeded.creds.publishableKey;
    // Park any ledger follower of the service far ahead: these tests decide what the service has recorded.
    await ctx.svc.deps
      .db('ledger_followers')
      .insert({ network: 'testnet', next_ledger: 2 ** 31 - 1, updated_at: new Date() })
      .onConflict('network')
      .merge();
  });
  after(async () => {
    await ctx.svc?.stop();
  });
}

export async function userWithHistory(
  n: number,
): Promise<{ user: UserClient; walletId: string; publicKey: string; ids: string[] }> {
  const user = await signInUser(ctx.svc, { publishableKey: ctx.publishableKey });
  const { walletId, publicKey } = user.signIn.wallet;
  const ids: string[] = [];
  await ctx.svc.deps.db.transaction(async (trx) => {
    for (let i = 0; i < n; i++) {
      const tx = await insertTransaction(
        trx,
        newTx(ctx.app.id, walletId, new Date(Date.parse('2026-11-20T10:00:00Z') + i * 1000)),
        [{ walletId, direction: 'sent', summary: `Sent ${i + 1} XLM to GABC...WXYZ` }],
      );
      ids.unshift(tx!.id); // newest first
    }
  });
  return { user, walletId, publicKey, ids };
}
