// The pure parts of the Monitor list: which fees count as sponsored, and RFC 4180 quoting.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sponsoredFeeStroops, toCsv, type AppTransaction } from './appTransactions';

const GAS = 'GAS';
const payers = new Set([GAS]);

test('a fee counts only when the gas wallet paid it and Stellar charged it', () => {
  const fee = (over: Partial<Parameters<typeof sponsoredFeeStroops>[0]>) =>
    sponsoredFeeStroops(
      { feeStroops: 200n, feeSource: GAS, stage: 'confirmed', status: 'SUCCESS', ledger: 5, ...over },
      payers,
    );
  assert.equal(fee({}), 200n);
  assert.equal(fee({ stage: 'submitted', status: 'PENDING', ledger: null }), 200n, 'sent, in flight');
  assert.equal(fee({ stage: 'failed', status: 'FAILED' }), 200n, 'applied as failed');
  assert.equal(fee({ stage: 'failed', status: 'FAILED', ledger: null }), 0n, 'refused at submission or expired');
  for (const stage of ['built', 'signed', 'denied'] as const)
    assert.equal(fee({ stage, status: stage === 'denied' ? 'FAILED' : 'PENDING', ledger: null }), 0n, stage);
  assert.equal(fee({ feeSource: 'GUSER' }), 0n, 'paid by someone else');
  assert.equal(fee({ feeSource: null }), 0n);
  assert.equal(fee({ feeStroops: null }), 0n);
});

test('CSV: a header row, CRLF after every record, quotes only where RFC 4180 needs them, null as an empty cell', () => {
  const tx: AppTransaction = {
    id: 'tx_1',
    hash: 'ab',
    type: 'payment',
    asset: null,
    amount: '1',
    from: 'GA',
    to: null,
    feeSponsoredXlm: '0',
    ledger: 3,
    status: 'FAILED',
    resultCode: 'a,b',
    createdAt: '2026-11-01T00:00:00.000Z',
  };
  const header = 'id,hash,type,asset,amount,from,to,feeSponsoredXlm,ledger,status,resultCode,createdAt\r\n';
  assert.equal(toCsv([]), header);
  assert.equal(toCsv([tx]), `${header}tx_1,ab,payment,,1,GA,,0,3,FAILED,"a,b",2026-11-01T00:00:00.000Z\r\n`);
  for (const [code, cell] of [
    ['say "x"', '"say ""x"""'],
    ['a\nb', '"a\nb"'],
    ['a\rb', '"a\rb"'],
    ['plain', 'plain'],
  ]) {
    assert.ok(toCsv([{ ...tx, resultCode: code! }]).includes(`,FAILED,${cell},`), code);
  }
});
