// State survives a restart with the same data directory (what `make run` relies on).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Asset, Keypair, Operation } from '@stellar/stellar-sdk';
import { startLocalnet } from '../../src/localnet';
import { balanceOf, build, submitOk, startTestLocalnet } from '../support/localnet';

describe('localnet: persistence', () => {
  test('stop, start with the same dataDir: accounts, sequence numbers, history and the ledger sequence carry on', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'localnet-persist-'));
    try {
      const kp = Keypair.random();
      const first = await startTestLocalnet({ dataDir });
      await first.server.fundAddress(kp.publicKey());
      const paid = await submitOk(
        first,
        await build(first, kp, [
          Operation.payment({ destination: first.root.publicKey(), asset: Asset.native(), amount: '1' }),
        ]),
      );
      const seq = (await first.server.getAccount(kp.publicKey())).sequenceNumber();
      const ledger = (await first.server.getLatestLedger()).sequence;
      await first.stop();

      const second = await startTestLocalnet({ dataDir });
      try {
        assert.equal((await second.server.getAccount(kp.publicKey())).sequenceNumber(), seq);
        assert.equal(await balanceOf(second, kp.publicKey()), 100_000_000_000n - 10_000_000n - 100n);
        assert.equal((await second.server.getLatestLedger()).sequence, ledger);
        assert.equal((await second.server.getTransaction(paid.txHash)).status, 'SUCCESS');
        // getLedgers serves the close meta kept in the history file.
        const closed = (await second.server.getLedgers({ startLedger: paid.ledger, pagination: { limit: 1 } }))
          .ledgers[0]!;
        assert.ok(closed.metadataXdr.type === 'v2');
        assert.equal(closed.metadataXdr.v2.txProcessing.length, 1);
        await submitOk(second, await build(second, kp, [Operation.bumpSequence({ bumpTo: '0' })]));
        assert.equal((await second.server.getLatestLedger()).sequence, ledger + 1);
        // Friendbot's channel accounts were persisted too.
        const other = Keypair.random();
        assert.equal((await second.server.fundAddress(other.publicKey())).status, 'SUCCESS');
      } finally {
        await second.stop();
      }
      await assert.rejects(
        startLocalnet({ dataDir, ledgerCloseMs: 'manual', networkPassphrase: 'Standalone Network ; February 2017' }),
        /holds a localnet for/,
      );
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
