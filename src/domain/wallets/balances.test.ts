// Balance lines (pure): XLM available = balance - minimum balance - selling liabilities, never below 0; trustline
// available = balance - selling liabilities; code, issuer, type by code length, enabledInApp = configured.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AccountState, TrustlineState } from '../../infra/stellar/gateway';
import { balanceLines } from './balances';

const ISSUER = 'GBBD47IF6LWK7P7MDEVSCWR7DPUWV3NY3DTQEVFL4NAT4AQH3ZLLFLA5';
const USDC = `USDC:${ISSUER}`;
const LONG = `EUROCOIN:${ISSUER}`;
const BASE_RESERVE = 5_000_000n;

function account(over: Partial<AccountState> = {}): AccountState {
  return {
    address: 'GCQ53WWRBL6HVSDNRMZKFZD7SP5DKYC6JFWSRLPQCVGD6Y42TYIN73Q2',
    sequence: '1',
    balanceStroops: 0n,
    sellingLiabilitiesStroops: 0n,
    numSubEntries: 0,
    numSponsoring: 0,
    numSponsored: 0,
    thresholds: { masterWeight: 1, low: 0, medium: 0, high: 0 },
    sponsor: undefined,
    ...over,
  };
}

function line(asset: string, balanceStroops: bigint, sellingLiabilitiesStroops = 0n): TrustlineState {
  return {
    asset,
    balanceStroops,
    limitStroops: 9_223_372_036_854_775_807n,
    sellingLiabilitiesStroops,
    buyingLiabilitiesStroops: 0n,
    authorized: true,
    sponsor: undefined,
  };
}

describe('balanceLines', () => {
  test('a sponsored wallet (account and trustline reserves paid by the sponsor): everything it holds is available', () => {
    const lines = balanceLines({
      account: account({ balanceStroops: 25_000_000n, numSubEntries: 1, numSponsored: 3 }),
      baseReserveStroops: BASE_RESERVE,
      trustlines: [line(USDC, 1_255_000_000n)],
      configuredAssets: [USDC],
    });
    assert.deepEqual(lines, [
      { asset: 'native', code: 'XLM', balance: '2.5', available: '2.5', type: 'native', enabledInApp: true },
      {
        asset: USDC,
        code: 'USDC',
        issuer: ISSUER,
        balance: '125.5',
        available: '125.5',
        type: 'credit_alphanum4',
        enabledInApp: true,
      },
    ]);
  });

  test('an own reserve and selling liabilities come off XLM; liabilities come off a trustline', () => {
    // (2 + 2 subentries - 0 sponsored) x 0.5 = 2 XLM reserve, 1.25 XLM on offer.
    const [xlm, usdc, long] = balanceLines({
      account: account({ balanceStroops: 100_000_000n, numSubEntries: 2, sellingLiabilitiesStroops: 12_500_000n }),
      baseReserveStroops: BASE_RESERVE,
      trustlines: [line(USDC, 50_000_000n, 20_000_000n), line(LONG, 1n)],
      configuredAssets: [],
    });
    assert.equal(xlm!.balance, '10');
    assert.equal(xlm!.available, '6.75');
    assert.deepEqual([usdc!.balance, usdc!.available, usdc!.enabledInApp], ['5', '3', false]);
    assert.deepEqual(
      [long!.code, long!.type, long!.balance, long!.available],
      ['EUROCOIN', 'credit_alphanum12', '0.0000001', '0.0000001'],
    );
  });

  test('available never goes below 0 (a balance under the reserve, liabilities above the balance)', () => {
    const [xlm, usdc] = balanceLines({
      account: account({ balanceStroops: 5_000_000n, numSubEntries: 1 }),
      baseReserveStroops: BASE_RESERVE,
      trustlines: [line(USDC, 10n, 20n)],
      configuredAssets: [USDC],
    });
    assert.equal(xlm!.available, '0');
    assert.equal(usdc!.available, '0');
  });

  test('an account sponsoring others keeps their reserves: they are not available', () => {
    const [xlm] = balanceLines({
      account: account({ balanceStroops: 100_000_000n, numSponsoring: 4 }),
      baseReserveStroops: BASE_RESERVE,
      trustlines: [],
      configuredAssets: [],
    });
    assert.equal(xlm!.available, '7');
  });
});
