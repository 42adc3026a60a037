// ledgerAssets: a claimable balance's asset and a liquidity pool's two assets, read with getLedgerEntries, against a
// stub RPC serving crafted entries (the local network has neither kind of entry).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Keypair, xdr } from '@stellar/stellar-sdk';
import { createStellarGateway, type StellarGateway } from './gateway';

const issuer = Keypair.random();
const usdc = {
  type: 1 as const,
  alphaNum4: { assetCode: Buffer.from('USDC'), issuer: { type: 0 as const, ed25519: issuer.rawPublicKey() } },
};
const long = {
  type: 2 as const,
  alphaNum12: {
    assetCode: Buffer.from('LONGCODE\0\0\0\0'),
    issuer: { type: 0 as const, ed25519: issuer.rawPublicKey() },
  },
};
const balanceBytes = Buffer.alloc(32, 0xcd);
const poolBytes = Buffer.alloc(32, 0xab);
const balanceId = '00000000' + balanceBytes.toString('hex');
const poolId = poolBytes.toString('hex');

const balanceKey = xdr.LedgerKey.fromXdrObject({
  type: 4,
  claimableBalance: { balanceId: { type: 0, v0: balanceBytes } },
});
const poolKey = xdr.LedgerKey.fromXdrObject({ type: 5, liquidityPool: { liquidityPoolId: poolBytes } });
const entries = new Map<string, string>([
  [
    balanceKey.toXdr('base64'),
    xdr.LedgerEntryData.fromXdrObject({
      type: 4,
      claimableBalance: {
        balanceId: { type: 0, v0: balanceBytes },
        claimants: [],
        asset: usdc,
        amount: 10n,
        ext: { v: 0 },
      },
    }).toXdr('base64'),
  ],
  [
    poolKey.toXdr('base64'),
    xdr.LedgerEntryData.fromXdrObject({
      type: 5,
      liquidityPool: {
        liquidityPoolId: poolBytes,
        body: {
          type: 0,
          constantProduct: {
            params: { assetA: { type: 0 }, assetB: long, fee: 30 },
            reserveA: 0n,
            reserveB: 0n,
            totalPoolShares: 0n,
            poolSharesTrustLineCount: 0n,
          },
        },
      },
    }).toXdr('base64'),
  ],
]);

let server: Server;
let gw: StellarGateway;
before(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const call = JSON.parse(body) as { id: number; method: string; params: { keys: string[] } };
      assert.equal(call.method, 'getLedgerEntries');
      const found = call.params.keys
        .filter((k) => entries.has(k))
        .map((key) => ({ key, xdr: entries.get(key), lastModifiedLedgerSeq: 5 }));
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, result: { entries: found, latestLedger: 10 } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  gw = createStellarGateway({
    network: 'testnet',
    rpcUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    networkPassphrase: 'Test SDF Network ; September 2015',
  });
});
after(() => server?.close());

test('ledgerAssets: the claimable balance asset and the pool assets, unknown and malformed ids left out', async () => {
  const found = await gw.ledgerAssets({
    claimableBalances: [balanceId, '00000000' + 'ee'.repeat(32), 'not-hex'],
    liquidityPools: [poolId, 'ff'.repeat(32)],
  });
  assert.deepEqual([...found.claimableBalances], [[balanceId, `USDC:${issuer.publicKey()}`]]);
  assert.deepEqual([...found.liquidityPools], [[poolId, ['native', `LONGCODE:${issuer.publicKey()}`]]]);
});
