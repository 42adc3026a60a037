// Sponsored reserves (CAP-33) exactly as the service uses them, and the reserve arithmetic behind its rule
// "the funding wallet locks 1 XLM + 0.5 XLM per configured asset".

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Asset, Keypair, Operation, StrKey, xdr } from '@stellar/stellar-sdk';
import { BEGIN_SPONSORING, CHANGE_TRUST, CREATE_ACCOUNT, END_SPONSORING, REVOKE_SPONSORSHIP, TX } from './codes';
import { Harness, XLM, decodeResult, entryKey, inner, show } from './testkit';

const HALF_XLM = 5_000_000n;

interface Counters {
  balance: bigint;
  numSubEntries: number;
  numSponsoring: number;
  numSponsored: number;
  sponsoringId?: string;
}

/** Reads an account through getLedgerEntry + xdr.LedgerEntryData.fromXDR, as a client would. */
function counters(h: Harness, id: string): Counters {
  const key = entryKey({
    type: 0,
    account: { accountId: { type: 0, ed25519: Keypair.fromPublicKey(id).rawPublicKey() } },
  });
  const entry = h.engine.getLedgerEntry(key);
  assert.ok(entry, `${id} exists`);
  const data = xdr.LedgerEntryData.fromXDR(entry.xdr, 'base64') as xdr.LedgerEntryDataAccount;
  const acc = data.account;
  let numSponsoring = 0;
  let numSponsored = 0;
  if (acc.ext.type === 'v1' && acc.ext.v1.ext.type === 'v2') {
    numSponsoring = acc.ext.v1.ext.v2.numSponsoring;
    numSponsored = acc.ext.v1.ext.v2.numSponsored;
  }
  const ext = xdr.LedgerEntryExt.fromXDR(entry.extXdr, 'base64');
  const out: Counters = { balance: acc.balance, numSubEntries: acc.numSubEntries, numSponsoring, numSponsored };
  if (ext.type === 'v1' && ext.v1.sponsoringId) out.sponsoringId = encode(ext.v1.sponsoringId);
  return out;
}

function encode(pk: xdr.PublicKey): string {
  return StrKey.encodeEd25519PublicKey(pk.ed25519.toBytes());
}

/** minBalance = (2 + numSubEntries + numSponsoring - numSponsored) x baseReserve; available = balance - minBalance. */
function available(c: Counters): bigint {
  return c.balance - BigInt(2 + c.numSubEntries + c.numSponsoring - c.numSponsored) * HALF_XLM;
}

/** The service's one-transaction wallet creation: S sponsors U's account and its trust lines. */
function sponsoredWallet(h: Harness, sponsor: Keypair, wallet: Keypair, assets: Asset[]) {
  return h.build(
    sponsor,
    [
      Operation.beginSponsoringFutureReserves({ sponsoredId: wallet.publicKey() }),
      Operation.createAccount({ destination: wallet.publicKey(), startingBalance: '0' }),
      ...assets.map((asset) => Operation.changeTrust({ asset, source: wallet.publicKey() })),
      Operation.endSponsoringFutureReserves({ source: wallet.publicKey() }),
    ],
    { signers: [sponsor, wallet] },
  );
}

function assets(h: Harness, n: number): Asset[] {
  const issuer = h.fund();
  return ['USDC', 'EURC', 'BRL'].slice(0, n).map((code) => new Asset(code, issuer.publicKey()));
}

describe('sponsored wallet creation', () => {
  for (const [n, locked] of [
    [0, 10_000_000n],
    [1, 15_000_000n],
    [2, 20_000_000n],
    [3, 25_000_000n],
  ] as const) {
    test(`a wallet with ${n} trust line(s) locks ${Number(locked) / 1e7} XLM in the sponsor`, () => {
      const h = new Harness();
      const sponsor = h.fund(100n);
      const wallet = Keypair.random();
      const lines = assets(h, n);
      const before = counters(h, sponsor.publicKey());
      const r = h.apply(sponsoredWallet(h, sponsor, wallet, lines));
      assert.equal(r.successful, true, show(r.decoded));
      const after = counters(h, sponsor.publicKey());
      const fee = BigInt(100 * (n + 3));
      assert.equal(after.numSponsoring, 2 + n);
      assert.equal(after.balance, before.balance - fee);
      assert.equal(available(before) - available(after) - fee, locked);

      const w = counters(h, wallet.publicKey());
      assert.equal(w.balance, 0n);
      assert.equal(w.numSponsored, 2 + n);
      assert.equal(w.numSubEntries, n);
      assert.equal(w.sponsoringId, sponsor.publicKey());
      assert.equal(available(w), 0n);
      for (const asset of lines) {
        const key = entryKey({
          type: 1,
          trustLine: {
            accountId: { type: 0, ed25519: wallet.rawPublicKey() },
            asset: asset.toTrustLineXdrObject().toXdrObject(),
          },
        });
        const line = h.engine.getLedgerEntry(key);
        assert.ok(line);
        const ext = xdr.LedgerEntryExt.fromXDR(line.extXdr, 'base64');
        assert.ok(ext.type === 'v1' && ext.v1.sponsoringId && encode(ext.v1.sponsoringId) === sponsor.publicKey());
      }
    });
  }

  test('the wallet (balance 0) can transact when fee-bumped, not on its own', () => {
    const h = new Harness();
    const sponsor = h.fund(100n);
    const wallet = Keypair.random();
    const [usdc] = assets(h, 1) as [Asset];
    assert.equal(h.apply(sponsoredWallet(h, sponsor, wallet, [usdc])).successful, true);
    const own = h.submit(h.build(wallet, [Operation.changeTrust({ asset: usdc, limit: '0' })]));
    assert.equal(own.status, 'ERROR');
    assert.equal(decodeResult(own.errorResultXdr as string).tx, TX.INSUFFICIENT_BALANCE);
    // Removing the sponsored line hands half a lumen back to the sponsor.
    const bumped = h.apply(h.feeBump(sponsor, h.build(wallet, [Operation.changeTrust({ asset: usdc, limit: '0' })])));
    assert.equal(bumped.decoded.tx, TX.FEE_BUMP_INNER_SUCCESS);
    assert.equal(counters(h, sponsor.publicKey()).numSponsoring, 2);
    const w = counters(h, wallet.publicKey());
    assert.deepEqual([w.numSponsored, w.numSubEntries, w.balance], [2, 0, 0n]);
  });

  test('a sponsor that cannot afford the reserve: createAccount LOW_RESERVE', () => {
    const h = new Harness();
    const sponsor = h.fund(1n);
    h.run(h.root, [Operation.payment({ destination: sponsor.publicKey(), asset: Asset.native(), amount: '0.5' })]);
    const r = h.apply(sponsoredWallet(h, sponsor, Keypair.random(), []));
    assert.equal(r.decoded.tx, TX.FAILED);
    assert.deepEqual(r.decoded.ops[1], inner(CREATE_ACCOUNT.LOW_RESERVE));
  });

  test('merging a sponsored wallet releases the sponsor reserve', () => {
    const h = new Harness();
    const sponsor = h.fund(100n);
    const wallet = Keypair.random();
    h.apply(sponsoredWallet(h, sponsor, wallet, []));
    h.close();
    const r = h.apply(
      h.feeBump(sponsor, h.build(wallet, [Operation.accountMerge({ destination: sponsor.publicKey() })])),
    );
    assert.equal(r.decoded.tx, TX.FEE_BUMP_INNER_SUCCESS);
    assert.equal(counters(h, sponsor.publicKey()).numSponsoring, 0);
    assert.equal(h.account(wallet.publicKey()), undefined);
  });
});

describe('begin/end sandwich rules', () => {
  test('a begin without its end: txBAD_SPONSORSHIP, everything rolled back, fee and sequence kept', () => {
    const h = new Harness();
    const sponsor = h.fund(100n);
    const wallet = Keypair.random();
    const seqBefore = h.seq(sponsor.publicKey());
    const balanceBefore = h.balance(sponsor.publicKey());
    const r = h.run(
      sponsor,
      [
        Operation.beginSponsoringFutureReserves({ sponsoredId: wallet.publicKey() }),
        Operation.createAccount({ destination: wallet.publicKey(), startingBalance: '0' }),
      ],
      { signers: [sponsor] },
    );
    assert.equal(r.decoded.tx, TX.BAD_SPONSORSHIP);
    assert.deepEqual(r.decoded.ops, []);
    assert.equal(h.account(wallet.publicKey()), undefined);
    assert.equal(h.seq(sponsor.publicKey()), seqBefore + 1n);
    assert.equal(h.balance(sponsor.publicKey()), balanceBefore - 200n);
    assert.equal(counters(h, sponsor.publicKey()).numSponsoring, 0);
  });

  test('MALFORMED (self) at submission; ALREADY_SPONSORED, RECURSIVE, NOT_SPONSORED at apply', () => {
    const h = new Harness();
    const s = h.fund();
    const u = h.fund();
    const v = h.fund();
    const self = h.submit(h.build(s, [Operation.beginSponsoringFutureReserves({ sponsoredId: s.publicKey() })]));
    assert.deepEqual(decodeResult(self.errorResultXdr as string).ops, [inner(BEGIN_SPONSORING.MALFORMED)]);
    const twice = h.run(s, [
      Operation.beginSponsoringFutureReserves({ sponsoredId: u.publicKey() }),
      Operation.beginSponsoringFutureReserves({ sponsoredId: u.publicKey() }),
    ]);
    assert.deepEqual(twice.decoded.ops[1], inner(BEGIN_SPONSORING.ALREADY_SPONSORED));
    const recursive = h.run(
      s,
      [
        Operation.beginSponsoringFutureReserves({ sponsoredId: u.publicKey() }),
        Operation.beginSponsoringFutureReserves({ sponsoredId: v.publicKey(), source: u.publicKey() }),
      ],
      { signers: [s, u] },
    );
    assert.deepEqual(recursive.decoded.ops[1], inner(BEGIN_SPONSORING.RECURSIVE));
    const notSponsored = h.run(u, [Operation.endSponsoringFutureReserves({})]);
    assert.deepEqual(notSponsored.decoded.ops, [inner(END_SPONSORING.NOT_SPONSORED)]);
  });

  test('a sponsored trust line for an existing account; the owner would have paid LOW_RESERVE otherwise', () => {
    const h = new Harness();
    const sponsor = h.fund(100n);
    const poor = h.fund(1n);
    const [usdc] = assets(h, 1) as [Asset];
    const alone = h.apply(h.feeBump(sponsor, h.build(poor, [Operation.changeTrust({ asset: usdc })])));
    assert.deepEqual(alone.decoded.ops, [inner(CHANGE_TRUST.LOW_RESERVE)]);
    const sponsored = h.run(
      sponsor,
      [
        Operation.beginSponsoringFutureReserves({ sponsoredId: poor.publicKey() }),
        Operation.changeTrust({ asset: usdc, source: poor.publicKey() }),
        Operation.endSponsoringFutureReserves({ source: poor.publicKey() }),
      ],
      { signers: [sponsor, poor] },
    );
    assert.equal(sponsored.successful, true);
    assert.equal(counters(h, sponsor.publicKey()).numSponsoring, 1);
  });
});

describe('revokeSponsorship', () => {
  function setup() {
    const h = new Harness();
    const sponsor = h.fund(100n);
    const wallet = Keypair.random();
    const [usdc] = assets(h, 1) as [Asset];
    assert.equal(h.apply(sponsoredWallet(h, sponsor, wallet, [usdc])).successful, true);
    return { h, sponsor, wallet, usdc };
  }

  test('handing a reserve back needs the owner to afford it: LOW_RESERVE, then success once funded', () => {
    const { h, sponsor, wallet, usdc } = setup();
    const lowAccount = h.run(sponsor, [Operation.revokeAccountSponsorship({ account: wallet.publicKey() })]);
    assert.deepEqual(lowAccount.decoded.ops, [inner(REVOKE_SPONSORSHIP.LOW_RESERVE)]);
    const lowLine = h.run(sponsor, [
      Operation.revokeTrustlineSponsorship({ account: wallet.publicKey(), asset: usdc }),
    ]);
    assert.deepEqual(lowLine.decoded.ops, [inner(REVOKE_SPONSORSHIP.LOW_RESERVE)]);

    h.run(h.root, [Operation.payment({ destination: wallet.publicKey(), asset: Asset.native(), amount: '2' })]);
    assert.equal(
      h.run(sponsor, [Operation.revokeTrustlineSponsorship({ account: wallet.publicKey(), asset: usdc })]).successful,
      true,
    );
    assert.equal(
      h.run(sponsor, [Operation.revokeAccountSponsorship({ account: wallet.publicKey() })]).successful,
      true,
    );
    assert.equal(counters(h, sponsor.publicKey()).numSponsoring, 0);
    const w = counters(h, wallet.publicKey());
    assert.equal(w.numSponsored, 0);
    assert.equal(w.sponsoringId, undefined);
    assert.equal(available(w), 2n * XLM - 3n * HALF_XLM);
  });

  test('MALFORMED keys are rejected at submission', () => {
    const { h, sponsor, wallet } = setup();
    const nativeLine = xdr.Operation.fromXdrObject({
      sourceAccount: null,
      body: {
        type: 18,
        revokeSponsorshipOp: {
          type: 0,
          ledgerKey: {
            type: 1,
            trustLine: { accountId: { type: 0, ed25519: wallet.rawPublicKey() }, asset: { type: 0 } },
          },
        },
      },
    });
    const r = h.submit(h.build(sponsor, [nativeLine]));
    assert.deepEqual(decodeResult(r.errorResultXdr as string).ops, [inner(REVOKE_SPONSORSHIP.MALFORMED)]);
  });

  test('NOT_SPONSOR and DOES_NOT_EXIST', () => {
    const { h, wallet } = setup();
    const stranger = h.fund();
    const notSponsor = h.run(stranger, [Operation.revokeAccountSponsorship({ account: wallet.publicKey() })]);
    assert.deepEqual(notSponsor.decoded.ops, [inner(REVOKE_SPONSORSHIP.NOT_SPONSOR)]);
    const missing = h.run(stranger, [Operation.revokeDataSponsorship({ account: stranger.publicKey(), name: 'nope' })]);
    assert.deepEqual(missing.decoded.ops, [inner(REVOKE_SPONSORSHIP.DOES_NOT_EXIST)]);
  });

  test('inside a sandwich: establish on an unsponsored entry, transfer to a new sponsor', () => {
    const h = new Harness();
    const s1 = h.fund(100n);
    const s2 = h.fund(100n);
    const owner = h.fund(10n);
    h.run(owner, [Operation.manageData({ name: 'k', value: 'v' })]);
    const establish = h.run(
      s1,
      [
        Operation.beginSponsoringFutureReserves({ sponsoredId: owner.publicKey() }),
        Operation.revokeDataSponsorship({ account: owner.publicKey(), name: 'k', source: owner.publicKey() }),
        Operation.endSponsoringFutureReserves({ source: owner.publicKey() }),
      ],
      { signers: [s1, owner] },
    );
    assert.equal(establish.successful, true, show(establish.decoded));
    assert.equal(counters(h, s1.publicKey()).numSponsoring, 1);
    assert.equal(counters(h, owner.publicKey()).numSponsored, 1);

    const transfer = h.run(
      s2,
      [
        Operation.beginSponsoringFutureReserves({ sponsoredId: s1.publicKey() }),
        Operation.revokeDataSponsorship({ account: owner.publicKey(), name: 'k', source: s1.publicKey() }),
        Operation.endSponsoringFutureReserves({ source: s1.publicKey() }),
      ],
      { signers: [s2, s1] },
    );
    assert.equal(transfer.successful, true, show(transfer.decoded));
    assert.equal(counters(h, s1.publicKey()).numSponsoring, 0);
    assert.equal(counters(h, s2.publicKey()).numSponsoring, 1);
    const key = entryKey({
      type: 3,
      data: { accountId: { type: 0, ed25519: owner.rawPublicKey() }, dataName: new xdr.XdrString('k') },
    });
    const ext = xdr.LedgerEntryExt.fromXDR(h.engine.getLedgerEntry(key)?.extXdr as string, 'base64');
    assert.ok(ext.type === 'v1' && ext.v1.sponsoringId && encode(ext.v1.sponsoringId) === s2.publicKey());
  });

  test('signer sponsorship: sponsored signer, revoke LOW_RESERVE, then success', () => {
    const h = new Harness();
    const sponsor = h.fund(100n);
    const owner = h.fund(1n);
    const cosigner = Keypair.random();
    const add = h.run(
      sponsor,
      [
        Operation.beginSponsoringFutureReserves({ sponsoredId: owner.publicKey() }),
        Operation.setOptions({
          signer: { ed25519PublicKey: cosigner.publicKey(), weight: 1 },
          source: owner.publicKey(),
        }),
        Operation.endSponsoringFutureReserves({ source: owner.publicKey() }),
      ],
      { signers: [sponsor, owner] },
    );
    assert.equal(add.successful, true, show(add.decoded));
    assert.equal(counters(h, sponsor.publicKey()).numSponsoring, 1);
    const revoke = () =>
      h.run(sponsor, [
        Operation.revokeSignerSponsorship({
          account: owner.publicKey(),
          signer: { ed25519PublicKey: cosigner.publicKey() },
        }),
      ]);
    assert.deepEqual(revoke().decoded.ops, [inner(REVOKE_SPONSORSHIP.LOW_RESERVE)]);
    h.run(h.root, [Operation.payment({ destination: owner.publicKey(), asset: Asset.native(), amount: '1' })]);
    assert.equal(revoke().successful, true);
    assert.equal(counters(h, sponsor.publicKey()).numSponsoring, 0);
    assert.equal(counters(h, owner.publicKey()).numSponsored, 0);
  });
});
