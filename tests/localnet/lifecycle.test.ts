// Ledgers on a timer, and the standalone CLI (npm run localnet).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { rpc } from '@stellar/stellar-sdk';
import { projectRoot } from '../../src/paths';
import { startLocalnet } from '../../src/localnet';

describe('localnet: lifecycle', () => {
  test('with an interval, ledgers close on their own (empty ones too) and getHealth is healthy', async () => {
    const localnet = await startLocalnet({ ledgerCloseMs: 100 });
    try {
      const server = new rpc.Server(localnet.rpcUrl, { allowHttp: true });
      const start = (await server.getLatestLedger()).sequence;
      await new Promise((r) => setTimeout(r, 450));
      assert.ok((await server.getLatestLedger()).sequence >= start + 2);
      assert.equal((await server.getHealth()).status, 'healthy');
    } finally {
      await localnet.stop();
    }
  });

  test('the CLI prints the RPC URL, friendbot URL, passphrase and root account, and stops cleanly on SIGINT', async () => {
    // The same Node as the tests (the project's Node 24), with tsx as the loader, like `npm run localnet`.
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/localnet/cli.ts', '--port', '0', '--ledger-seconds', 'manual'],
      { cwd: projectRoot },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no banner: ${out}`)), 20_000);
      child.stdout.on('data', () => {
        if (out.includes('Ctrl-C')) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    const url = /RPC URL:\s+(\S+)/.exec(out)?.[1];
    assert.ok(url, out);
    assert.match(out, /Friendbot URL:\s+http:\/\/127\.0\.0\.1:\d+\/friendbot/);
    assert.match(out, /Passphrase:\s+Test SDF Network ; September 2015/);
    assert.match(out, /Root account:\s+G[A-Z2-7]{55}/);
    assert.equal((await new rpc.Server(url, { allowHttp: true }).getHealth()).status, 'healthy');
    const closed = await fetch(url.replace(/\/rpc$/, '/localnet/close-ledger'), { method: 'POST' });
    assert.equal(((await closed.json()) as { sequence: number }).sequence, 2);
    const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGINT');
    assert.equal(await exit, 0);
  });
});
