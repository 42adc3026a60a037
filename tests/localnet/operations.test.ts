// Every modelled operation's success and its failure codes as a client sees them: sendTransaction ERROR (checks
// stellar-core runs at submission, e.g. MALFORMED) or getTransaction FAILED (ledger-state checks at apply), with the
// result XDR decoded by the SDK.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Asset, AuthRequiredFlag, Claimant, Keypair, Operation, Transaction, xdr } from '@stellar/stellar-sdk';
import {
  balanceOf,
  build,
  newAccounts,
  opCodes,
  submit,
  submitOk,
  txCode,
  type TestNet,
  startTestLocalnet,
} from '../support/localnet';

const native = Asset.native();

describe('localnet: operations', () => {
  let net: TestNet;
  before(async () => {
    net = await startTestLocalnet();
  });
  after(() => net?.stop());

  /** Where and how a transaction failed: at submission (ERROR) or at apply (FAILED), with its codes. */
  async function outcome(
    tx: Transaction,
  ): Promise<{ stage: 'submission' | 'apply' | 'success'; tx: string; ops: string[] }> {
    const sent = await net.server.sendTransaction(tx);
    if (sent.status === 'ERROR')
      return { stage: 'submission', tx: txCode(sent.errorResult!), ops: opCodes(sent.errorResult!) };
    assert.equal(sent.status, 'PENDING');
    await net.localnet.closeLedger();
    const got = await net.server.getTransaction(sent.hash);
    assert.ok(got.status !== 'NOT_FOUND');
    return {
      stage: got.status === 'SUCCESS' ? 'success' : 'apply',
      tx: txCode(got.resultXdr),
      ops: opCodes(got.resultXdr),
    };
  }

  async function failsAtApply(tx: Transaction, ops: string[]): Promise<void> {
    assert.deepEqual(await outcome(tx), { stage: 'apply', tx: 'txFailed', ops });
  }

  async function refusedAtSubmission(tx: Transaction, ops: string[]): Promise<void> {
    assert.deepEqual(await outcome(tx), { stage: 'submission', tx: 'txFailed', ops });
  }

  describe('createAccount', () => {
    test('creates the account with sequence = ledger << 32 and the starting balance', async () => {
      const kp = Keypair.random();
      const got = await submitOk(
        net,
        await build(net, net.root, [Operation.createAccount({ destination: kp.publicKey(), startingBalance: '25' })]),
      );
      const entry = await net.server.getAccountEntry(kp.publicKey());
      assert.equal(entry.balance, 250_000_000n);
      assert.equal(entry.seqNum, BigInt(got.ledger) << 32n);
      assert.equal(entry.thresholds.toXdr('hex'), '01000000');
      // requestAirdrop's parser finds the created account in the meta, so the meta carries the created entry.
      assert.ok(
        got.resultMetaXdr.type === 'v4' &&
          got.resultMetaXdr.v4.operations[0]!.changes.some((c) => c.type === 'ledgerEntryCreated'),
      );
    });

    test('ALREADY_EXIST, LOW_RESERVE (below 1 XLM), UNDERFUNDED at apply; MALFORMED (to itself) at submission', async () => {
      const [a] = await newAccounts(net, 1, '10');
      await failsAtApply(
        await build(net, net.root, [Operation.createAccount({ destination: a.publicKey(), startingBalance: '1' })]),
        ['createAccountAlreadyExist'],
      );
      await failsAtApply(
        await build(net, a, [
          Operation.createAccount({ destination: Keypair.random().publicKey(), startingBalance: '0.9999999' }),
        ]),
        ['createAccountLowReserve'],
      );
      await failsAtApply(
        await build(net, a, [
          Operation.createAccount({ destination: Keypair.random().publicKey(), startingBalance: '9' }),
        ]),
        ['createAccountUnderfunded'],
      );
      await refusedAtSubmission(
        await build(net, a, [Operation.createAccount({ destination: a.publicKey(), startingBalance: '1' })]),
        ['createAccountMalformed'],
      );
    });
  });

  describe('payment and issued assets', () => {
    let issuer: Keypair;
    let holder: Keypair;
    let other: Keypair;
    let usd: Asset;
    before(async () => {
      [issuer, holder, other] = await newAccounts(net, 3, '50');
      usd = new Asset('USD', issuer!.publicKey());
      await submitOk(net, await build(net, holder!, [Operation.changeTrust({ asset: usd, limit: '1000' })]));
    });

    test('native payment moves stroops; a payment to oneself is a successful no-op', async () => {
      const before = await balanceOf(net, other.publicKey());
      await submitOk(
        net,
        await build(net, holder, [Operation.payment({ destination: other.publicKey(), asset: native, amount: '2.5' })]),
      );
      assert.equal(await balanceOf(net, other.publicKey()), before + 25_000_000n);
      const self = await balanceOf(net, holder.publicKey());
      await submitOk(
        net,
        await build(net, holder, [Operation.payment({ destination: holder.publicKey(), asset: native, amount: '1' })]),
      );
      assert.equal(await balanceOf(net, holder.publicKey()), self - 100n);
    });

    test('the issuer issues by paying; holders pay each other; the balance shows in the trustline', async () => {
      await submitOk(
        net,
        await build(net, issuer, [Operation.payment({ destination: holder.publicKey(), asset: usd, amount: '100' })]),
      );
      const line = await net.server.getTrustline(holder.publicKey(), usd);
      assert.equal(line.balance, 1_000_000_000n);
      assert.equal(line.limit, 10_000_000_000n);
      // Paying back to the issuer burns; no trustline needed on the issuer's side.
      await submitOk(
        net,
        await build(net, holder, [Operation.payment({ destination: issuer.publicKey(), asset: usd, amount: '10' })]),
      );
      assert.equal((await net.server.getTrustline(holder.publicKey(), usd)).balance, 900_000_000n);
    });

    test('NO_DESTINATION, NO_TRUST, LINE_FULL, UNDERFUNDED, SRC_NO_TRUST at apply', async () => {
      await failsAtApply(
        await build(net, holder, [
          Operation.payment({ destination: Keypair.random().publicKey(), asset: native, amount: '1' }),
        ]),
        ['paymentNoDestination'],
      );
      await failsAtApply(
        await build(net, issuer, [Operation.payment({ destination: other.publicKey(), asset: usd, amount: '1' })]),
        ['paymentNoTrust'],
      );
      await failsAtApply(
        await build(net, issuer, [Operation.payment({ destination: holder.publicKey(), asset: usd, amount: '950' })]),
        ['paymentLineFull'],
      );
      await failsAtApply(
        await build(net, other, [
          Operation.payment({ destination: holder.publicKey(), asset: native, amount: '5000' }),
        ]),
        ['paymentUnderfunded'],
      );
      await failsAtApply(
        await build(net, other, [Operation.payment({ destination: holder.publicKey(), asset: usd, amount: '1' })]),
        ['paymentSrcNoTrust'],
      );
      await failsAtApply(
        await build(net, holder, [Operation.payment({ destination: issuer.publicKey(), asset: usd, amount: '5000' })]),
        ['paymentUnderfunded'],
      );
    });

    test('NOT_AUTHORIZED when the issuer requires authorization', async () => {
      const [strict, fan] = await newAccounts(net, 2, '20');
      await submitOk(net, await build(net, strict, [Operation.setOptions({ setFlags: AuthRequiredFlag })]));
      const eur = new Asset('EUR', strict.publicKey());
      await submitOk(net, await build(net, fan, [Operation.changeTrust({ asset: eur })]));
      const line = await net.server.getTrustline(fan.publicKey(), eur);
      assert.equal(line.flags, 0);
      await failsAtApply(
        await build(net, strict, [Operation.payment({ destination: fan.publicKey(), asset: eur, amount: '1' })]),
        ['paymentNotAuthorized'],
      );
    });

    test('MALFORMED (zero amount) at submission', async () => {
      const tx = await build(net, holder, [
        Operation.payment({ destination: other.publicKey(), asset: native, amount: '1' }),
      ]);
      const wire = xdr.TransactionEnvelope.schema.decode(Buffer.from(tx.toXDR(), 'base64')) as any;
      wire.v1.tx.operations[0].body.paymentOp.amount = 0n;
      wire.v1.signatures = [];
      const zero = new Transaction(
        Buffer.from(xdr.TransactionEnvelope.schema.encode(wire)).toString('base64'),
        net.passphrase,
      );
      zero.sign(holder);
      await refusedAtSubmission(zero, ['paymentMalformed']);
    });
  });

  describe('changeTrust', () => {
    test('create, update the limit, remove with limit 0 (reserve released)', async () => {
      const [issuer, holder] = await newAccounts(net, 2, '20');
      const gbp = new Asset('GBP', issuer.publicKey());
      await submitOk(net, await build(net, holder, [Operation.changeTrust({ asset: gbp, limit: '500' })]));
      assert.equal((await net.server.getAccountEntry(holder.publicKey())).numSubEntries, 1);
      await submitOk(net, await build(net, holder, [Operation.changeTrust({ asset: gbp, limit: '700' })]));
      assert.equal((await net.server.getTrustline(holder.publicKey(), gbp)).limit, 7_000_000_000n);
      await submitOk(net, await build(net, holder, [Operation.changeTrust({ asset: gbp, limit: '0' })]));
      await assert.rejects(net.server.getTrustline(holder.publicKey(), gbp), /not found/);
      assert.equal((await net.server.getAccountEntry(holder.publicKey())).numSubEntries, 0);
    });

    test('INVALID_LIMIT (below the balance, or 0 for a new line), NO_ISSUER, LOW_RESERVE at apply; MALFORMED at submission', async () => {
      const [issuer, holder] = await newAccounts(net, 2, '20');
      const chf = new Asset('CHF', issuer.publicKey());
      await submitOk(net, await build(net, holder, [Operation.changeTrust({ asset: chf, limit: '100' })]));
      await submitOk(
        net,
        await build(net, issuer, [Operation.payment({ destination: holder.publicKey(), asset: chf, amount: '50' })]),
      );
      await failsAtApply(await build(net, holder, [Operation.changeTrust({ asset: chf, limit: '10' })]), [
        'changeTrustInvalidLimit',
      ]);
      await failsAtApply(await build(net, holder, [Operation.changeTrust({ asset: chf, limit: '0' })]), [
        'changeTrustInvalidLimit',
      ]);
      await failsAtApply(
        await build(net, holder, [Operation.changeTrust({ asset: new Asset('JPY', Keypair.random().publicKey()) })]),
        ['changeTrustNoIssuer'],
      );
      const [poor] = await newAccounts(net, 1, '1.0001');
      await failsAtApply(await build(net, poor, [Operation.changeTrust({ asset: chf })]), ['changeTrustLowReserve']);
      await refusedAtSubmission(await build(net, issuer, [Operation.changeTrust({ asset: chf })]), [
        'changeTrustMalformed',
      ]);
    });
  });

  describe('manageData', () => {
    test('set, overwrite, delete; NAME_NOT_FOUND and LOW_RESERVE at apply', async () => {
      const [a] = await newAccounts(net, 1, '1.5001');
      await submitOk(net, await build(net, a, [Operation.manageData({ name: 'k', value: 'v1' })]));
      await submitOk(net, await build(net, a, [Operation.manageData({ name: 'k', value: 'v2' })]));
      const key = xdr.LedgerKey.data(
        new xdr.LedgerKeyData({ accountId: Keypair.fromPublicKey(a.publicKey()).xdrAccountId(), dataName: 'k' }),
      );
      const data = (await net.server.getLedgerEntries(key)).entries[0]!.val;
      assert.ok(data.type === 'data');
      assert.equal(Buffer.from(data.data.dataValue.value).toString(), 'v2');
      await failsAtApply(await build(net, a, [Operation.manageData({ name: 'other', value: 'x' })]), [
        'manageDataLowReserve',
      ]);
      await submitOk(net, await build(net, a, [Operation.manageData({ name: 'k', value: null })]));
      assert.equal((await net.server.getLedgerEntries(key)).entries.length, 0);
      await failsAtApply(await build(net, a, [Operation.manageData({ name: 'k', value: null })]), [
        'manageDataNameNotFound',
      ]);
    });
  });

  describe('setOptions', () => {
    test('signers and thresholds: a 2-of-2 account needs both signatures', async () => {
      const [a] = await newAccounts(net, 1, '10');
      const cosigner = Keypair.random();
      await submitOk(
        net,
        await build(net, a, [
          Operation.setOptions({
            signer: { ed25519PublicKey: cosigner.publicKey(), weight: 1 },
            lowThreshold: 2,
            medThreshold: 2,
            highThreshold: 2,
          }),
        ]),
      );
      const entry = await net.server.getAccountEntry(a.publicKey());
      assert.equal(entry.signers.length, 1);
      assert.equal(entry.numSubEntries, 1);
      const alone = await build(net, a, [Operation.bumpSequence({ bumpTo: '0' })]);
      assert.equal(txCode((await net.server.sendTransaction(alone)).errorResult!), 'txBadAuth');
      await submitOk(net, await build(net, a, [Operation.bumpSequence({ bumpTo: '0' })], { signers: [a, cosigner] }));
    });

    test('BAD_SIGNER (own key) at submission; LOW_RESERVE and TOO_MANY_SIGNERS at apply', async () => {
      const [a, poor] = await newAccounts(net, 2, '20');
      await refusedAtSubmission(
        await build(net, a, [Operation.setOptions({ signer: { ed25519PublicKey: a.publicKey(), weight: 1 } })]),
        ['setOptionsBadSigner'],
      );
      const [broke] = await newAccounts(net, 1, '1.0001');
      await failsAtApply(
        await build(net, broke, [
          Operation.setOptions({ signer: { ed25519PublicKey: Keypair.random().publicKey(), weight: 1 } }),
        ]),
        ['setOptionsLowReserve'],
      );
      const add = Array.from({ length: 21 }, () =>
        Operation.setOptions({ signer: { ed25519PublicKey: Keypair.random().publicKey(), weight: 1 } }),
      );
      const got = await submit(net, await build(net, poor, add));
      assert.equal(got.status, 'FAILED');
      assert.equal(opCodes(got.resultXdr)[20], 'setOptionsTooManySigners');
    });

    test('THRESHOLD_OUT_OF_RANGE (a weight above 255) at submission', async () => {
      const [a] = await newAccounts(net, 1, '5');
      const tx = await build(net, a, [Operation.setOptions({ masterWeight: 1 })]);
      const wire = xdr.TransactionEnvelope.schema.decode(Buffer.from(tx.toXDR(), 'base64')) as any;
      wire.v1.tx.operations[0].body.setOptionsOp.masterWeight = 256;
      wire.v1.signatures = [];
      const bad = new Transaction(
        Buffer.from(xdr.TransactionEnvelope.schema.encode(wire)).toString('base64'),
        net.passphrase,
      );
      bad.sign(a);
      await refusedAtSubmission(bad, ['setOptionsThresholdOutOfRange']);
    });
  });

  describe('bumpSequence', () => {
    test('moves the sequence forward; a lower target is a successful no-op', async () => {
      const [a] = await newAccounts(net, 1, '5');
      const seq = BigInt((await net.server.getAccount(a.publicKey())).sequenceNumber());
      await submitOk(net, await build(net, a, [Operation.bumpSequence({ bumpTo: String(seq + 100n) })]));
      assert.equal(BigInt((await net.server.getAccount(a.publicKey())).sequenceNumber()), seq + 100n);
      await submitOk(net, await build(net, a, [Operation.bumpSequence({ bumpTo: '5' })]));
      assert.equal(BigInt((await net.server.getAccount(a.publicKey())).sequenceNumber()), seq + 101n);
    });
  });

  describe('accountMerge', () => {
    test('moves the whole balance (less the fee) and removes the account', async () => {
      const [from, to] = await newAccounts(net, 2, '30');
      const before = await balanceOf(net, to.publicKey());
      await submitOk(net, await build(net, from, [Operation.accountMerge({ destination: to.publicKey() })]));
      await assert.rejects(net.server.getAccount(from.publicKey()), /Account not found/);
      assert.equal(await balanceOf(net, to.publicKey()), before + 300_000_000n - 100n);
    });

    test('NO_ACCOUNT and HAS_SUB_ENTRIES at apply; MALFORMED (into itself) at submission', async () => {
      const [a, issuer] = await newAccounts(net, 2, '30');
      await failsAtApply(await build(net, a, [Operation.accountMerge({ destination: Keypair.random().publicKey() })]), [
        'accountMergeNoAccount',
      ]);
      await submitOk(net, await build(net, a, [Operation.changeTrust({ asset: new Asset('X', issuer.publicKey()) })]));
      await failsAtApply(await build(net, a, [Operation.accountMerge({ destination: issuer.publicKey() })]), [
        'accountMergeHasSubEntries',
      ]);
      await refusedAtSubmission(await build(net, a, [Operation.accountMerge({ destination: a.publicKey() })]), [
        'accountMergeMalformed',
      ]);
    });
  });

  describe('path payments (same asset and direct paths)', () => {
    test('strict send and strict receive of the same asset behave as payments, with destMin / sendMax enforced', async () => {
      const [a, b] = await newAccounts(net, 2, '50');
      const before = await balanceOf(net, b.publicKey());
      await submitOk(
        net,
        await build(net, a, [
          Operation.pathPaymentStrictSend({
            sendAsset: native,
            sendAmount: '3',
            destination: b.publicKey(),
            destAsset: native,
            destMin: '3',
            path: [],
          }),
        ]),
      );
      await submitOk(
        net,
        await build(net, a, [
          Operation.pathPaymentStrictReceive({
            sendAsset: native,
            sendMax: '2',
            destination: b.publicKey(),
            destAsset: native,
            destAmount: '2',
            path: [],
          }),
        ]),
      );
      assert.equal(await balanceOf(net, b.publicKey()), before + 50_000_000n);
      await failsAtApply(
        await build(net, a, [
          Operation.pathPaymentStrictSend({
            sendAsset: native,
            sendAmount: '1',
            destination: Keypair.random().publicKey(),
            destAsset: native,
            destMin: '1',
            path: [],
          }),
        ]),
        ['pathPaymentStrictSendNoDestination'],
      );
    });

    test('a conversion with no offers to cross is TOO_FEW_OFFERS (localnet models no order book)', async () => {
      const [a, b, issuer] = await newAccounts(net, 3, '50');
      const usd = new Asset('USD', issuer.publicKey());
      await submitOk(net, await build(net, b, [Operation.changeTrust({ asset: usd })]));
      await failsAtApply(
        await build(net, a, [
          Operation.pathPaymentStrictSend({
            sendAsset: native,
            sendAmount: '1',
            destination: b.publicKey(),
            destAsset: usd,
            destMin: '1',
            path: [],
          }),
        ]),
        ['pathPaymentStrictSendTooFewOffers'],
      );
      await failsAtApply(
        await build(net, a, [
          Operation.pathPaymentStrictReceive({
            sendAsset: native,
            sendMax: '1',
            destination: b.publicKey(),
            destAsset: usd,
            destAmount: '1',
            path: [],
          }),
        ]),
        ['pathPaymentStrictReceiveTooFewOffers'],
      );
    });
  });

  describe('what localnet does not model', () => {
    // Contract invocation (opNOT_SUPPORTED once its Soroban data is valid) is covered in contracts.test.ts.
    test('order book, claimable balances, trustline authorization, clawback: opNOT_SUPPORTED at submission', async () => {
      const [a, issuer] = await newAccounts(net, 2, '50');
      const usd = new Asset('USD', issuer.publicKey());
      const unsupported = [
        Operation.manageSellOffer({ selling: native, buying: usd, amount: '1', price: '1' }),
        Operation.createClaimableBalance({ asset: native, amount: '1', claimants: [new Claimant(issuer.publicKey())] }),
        Operation.setTrustLineFlags({ trustor: a.publicKey(), asset: usd, flags: { authorized: true } }),
        Operation.clawback({ asset: usd, from: a.publicKey(), amount: '1' }),
      ];
      for (const op of unsupported) await refusedAtSubmission(await build(net, a, [op]), ['opNotSupported']);
    });
  });
});
