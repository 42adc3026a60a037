// Sponsored reserves (the sandwich begin/…/end), revokeSponsorship, and the reserve examples of the service's
// interface spec: a sponsored wallet with 0, 1, 2, 3 trustlines locks 1, 1.5, 2, 2.5 XLM in the sponsor.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Asset, Keypair, Operation } from '@stellar/stellar-sdk';
import {
  accountLedgerKey,
  build,
  minBalance,
  newAccounts,
  opCodes,
  rawEntries,
  sponsorCounts,
  sponsorInExt,
  submit,
  submitOk,
  trustlineLedgerKey,
  txCode,
  type TestNet,
  startTestLocalnet,
} from '../support/localnet';

describe('localnet: sponsorship and reserves', () => {
  let net: TestNet;
  let issuer: Keypair;
  let assets: Asset[];
  before(async () => {
    net = await startTestLocalnet();
    [issuer] = await newAccounts(net, 1, '10');
    assets = ['AAA', 'BBB', 'CCC'].map((code) => new Asset(code, issuer!.publicKey()));
  });
  after(() => net?.stop());

  /** Creates a wallet with 0 XLM whose account and `lines` trustlines are sponsored by `sponsor`, in one transaction. */
  async function sponsoredWallet(sponsor: Keypair, lines: number): Promise<Keypair> {
    const wallet = Keypair.random();
    const w = wallet.publicKey();
    await submitOk(
      net,
      await build(
        net,
        sponsor,
        [
          Operation.beginSponsoringFutureReserves({ sponsoredId: w }),
          Operation.createAccount({ destination: w, startingBalance: '0' }),
          ...assets.slice(0, lines).map((asset) => Operation.changeTrust({ asset, source: w })),
          Operation.endSponsoringFutureReserves({ source: w }),
        ],
        { signers: [sponsor, wallet] },
      ),
    );
    return wallet;
  }

  test('reserve examples: a sponsored wallet with 0, 1, 2, 3 trustlines locks 1, 1.5, 2, 2.5 XLM in the sponsor', async () => {
    for (const [lines, xlm] of [
      [0, 1],
      [1, 1.5],
      [2, 2],
      [3, 2.5],
    ] as const) {
      const [sponsor] = await newAccounts(net, 1, '20');
      const before = minBalance(await net.server.getAccountEntry(sponsor.publicKey()));
      const wallet = await sponsoredWallet(sponsor, lines);
      const sponsorEntry = await net.server.getAccountEntry(sponsor.publicKey());
      assert.equal(minBalance(sponsorEntry) - before, BigInt(xlm * 10_000_000), `${lines} trustlines`);
      assert.deepEqual(sponsorCounts(sponsorEntry), { numSponsoring: 2 + lines, numSponsored: 0 });
      const walletEntry = await net.server.getAccountEntry(wallet.publicKey());
      assert.equal(walletEntry.balance, 0n);
      assert.equal(walletEntry.numSubEntries, lines);
      assert.deepEqual(sponsorCounts(walletEntry), { numSponsoring: 0, numSponsored: 2 + lines });
      // The wallet locks nothing of its own.
      assert.equal(minBalance(walletEntry), 0n);
      const keys = [
        accountLedgerKey(wallet.publicKey()),
        ...assets.slice(0, lines).map((a) => trustlineLedgerKey(wallet.publicKey(), a)),
      ];
      for (const e of await rawEntries(net, keys)) assert.equal(sponsorInExt(e.extXdr), sponsor.publicKey());
    }
  });

  test('removing a sponsored trustline gives the reserve back to the sponsor', async () => {
    const [sponsor] = await newAccounts(net, 1, '20');
    const wallet = await sponsoredWallet(sponsor, 2);
    const locked = minBalance(await net.server.getAccountEntry(sponsor.publicKey()));
    await submitOk(
      net,
      await build(
        net,
        sponsor,
        [Operation.changeTrust({ asset: assets[1]!, limit: '0', source: wallet.publicKey() })],
        { signers: [sponsor, wallet] },
      ),
    );
    assert.equal(minBalance(await net.server.getAccountEntry(sponsor.publicKey())), locked - 5_000_000n);
    assert.deepEqual(sponsorCounts(await net.server.getAccountEntry(wallet.publicKey())), {
      numSponsoring: 0,
      numSponsored: 2 + 1,
    });
  });

  test('sandwich errors: MALFORMED (self) at submission; ALREADY_SPONSORED, RECURSIVE, NOT_SPONSORED, txBAD_SPONSORSHIP at apply', async () => {
    const [s, a, b] = await newAccounts(net, 3, '20');
    const self = await net.server.sendTransaction(
      await build(net, s, [Operation.beginSponsoringFutureReserves({ sponsoredId: s.publicKey() })]),
    );
    assert.equal(txCode(self.errorResult!), 'txFailed');
    assert.deepEqual(opCodes(self.errorResult!), ['beginSponsoringFutureReservesMalformed']);

    const twice = await submit(
      net,
      await build(
        net,
        s,
        [
          Operation.beginSponsoringFutureReserves({ sponsoredId: a.publicKey() }),
          Operation.beginSponsoringFutureReserves({ sponsoredId: a.publicKey() }),
          Operation.endSponsoringFutureReserves({ source: a.publicKey() }),
        ],
        { signers: [s, a] },
      ),
    );
    assert.equal(opCodes(twice.resultXdr)[1], 'beginSponsoringFutureReservesAlreadySponsored');

    const recursive = await submit(
      net,
      await build(
        net,
        s,
        [
          Operation.beginSponsoringFutureReserves({ sponsoredId: a.publicKey() }),
          Operation.beginSponsoringFutureReserves({ sponsoredId: b.publicKey(), source: a.publicKey() }),
          Operation.endSponsoringFutureReserves({ source: b.publicKey() }),
          Operation.endSponsoringFutureReserves({ source: a.publicKey() }),
        ],
        { signers: [s, a, b] },
      ),
    );
    assert.equal(opCodes(recursive.resultXdr)[1], 'beginSponsoringFutureReservesRecursive');

    const notSponsored = await submit(net, await build(net, a, [Operation.endSponsoringFutureReserves({})]));
    assert.deepEqual(opCodes(notSponsored.resultXdr), ['endSponsoringFutureReservesNotSponsored']);

    const open = await submit(
      net,
      await build(net, s, [Operation.beginSponsoringFutureReserves({ sponsoredId: a.publicKey() })]),
    );
    assert.equal(open.status, 'FAILED');
    assert.equal(txCode(open.resultXdr), 'txBadSponsorship');
  });

  test('a sponsor without the reserve: the sponsored operation fails with its LOW_RESERVE', async () => {
    const [poorSponsor] = await newAccounts(net, 1, '1.2');
    const wallet = Keypair.random();
    const got = await submit(
      net,
      await build(
        net,
        poorSponsor,
        [
          Operation.beginSponsoringFutureReserves({ sponsoredId: wallet.publicKey() }),
          Operation.createAccount({ destination: wallet.publicKey(), startingBalance: '0' }),
          Operation.endSponsoringFutureReserves({ source: wallet.publicKey() }),
        ],
        { signers: [poorSponsor, wallet] },
      ),
    );
    assert.equal(got.status, 'FAILED');
    assert.equal(opCodes(got.resultXdr)[1], 'createAccountLowReserve');
  });

  test('revokeSponsorship: DOES_NOT_EXIST, NOT_SPONSOR, LOW_RESERVE (the wallet cannot take the reserve over), success', async () => {
    const [sponsor, stranger] = await newAccounts(net, 2, '20');
    const wallet = await sponsoredWallet(sponsor, 1);
    const gone = await submit(
      net,
      await build(net, sponsor, [
        Operation.revokeTrustlineSponsorship({ account: wallet.publicKey(), asset: assets[2]! }),
      ]),
    );
    assert.deepEqual(opCodes(gone.resultXdr), ['revokeSponsorshipDoesNotExist']);
    const notMine = await submit(
      net,
      await build(net, stranger, [
        Operation.revokeTrustlineSponsorship({ account: wallet.publicKey(), asset: assets[0]! }),
      ]),
    );
    assert.deepEqual(opCodes(notMine.resultXdr), ['revokeSponsorshipNotSponsor']);
    const broke = await submit(
      net,
      await build(net, sponsor, [
        Operation.revokeTrustlineSponsorship({ account: wallet.publicKey(), asset: assets[0]! }),
      ]),
    );
    assert.deepEqual(opCodes(broke.resultXdr), ['revokeSponsorshipLowReserve']);
    // Once the wallet holds enough XLM, it can take its trustline's reserve over.
    await submitOk(
      net,
      await build(net, sponsor, [
        Operation.payment({ destination: wallet.publicKey(), asset: Asset.native(), amount: '1' }),
      ]),
    );
    const before = minBalance(await net.server.getAccountEntry(sponsor.publicKey()));
    await submitOk(
      net,
      await build(net, sponsor, [
        Operation.revokeTrustlineSponsorship({ account: wallet.publicKey(), asset: assets[0]! }),
      ]),
    );
    assert.equal(minBalance(await net.server.getAccountEntry(sponsor.publicKey())), before - 5_000_000n);
    const [line] = await rawEntries(net, [trustlineLedgerKey(wallet.publicKey(), assets[0]!)]);
    assert.equal(sponsorInExt(line!.extXdr), undefined);
  });
});
