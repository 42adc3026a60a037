// The Dashboard's Monitor list of an app's transactions over HTTP with real operator sessions, every answer checked
// against the contract: the record of each kind of stored transaction (and which fees count as sponsored), filters,
// offset and cursor paging, the CSV export (RFC 4180, newest first, capped at 10,000 rows, limit ignored), errors as
// JSON, who may read it; and the records of a real activation and sponsored payments on the localnet.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Account, Asset, Keypair, Operation, TransactionBuilder } from '@stellar/stellar-sdk';
import { encodeCursor } from '../../../src/domain/paging/cursor';
import { MAX_CSV_ROWS } from '../../../src/domain/transactions/appTransactions';
import { fromStroops } from '../../../src/domain/money/amounts';
import { headersFor, withSessions } from '../../support/credentials';
import { call } from '../../support/http';
import { signInUser } from '../../support/users';
import { appWithWallet, gatewayOf } from '../../support/funding';
import type { OperatorClient } from '../../support/operators';
import { createApp, developer, iso, outsider, owner, store, svc, useService, USDC } from './setup';

useService();

function listPath(appId: string, query: Record<string, string | number> = {}): string {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();
  return `/api/v1/apps/${appId}/transactions${qs ? `?${qs}` : ''}`;
}

async function list(client: OperatorClient, appId: string, query: Record<string, string | number> = {}): Promise<any> {
  const res = await client.call('listAppTransactions', 'GET', listPath(appId, query));
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.code, 'APP_TRANSACTIONS_LISTED');
  return res.body.content;
}

async function ids(
  client: OperatorClient,
  appId: string,
  query: Record<string, string | number> = {},
): Promise<string[]> {
  return (await list(client, appId, query)).transactions.map((t: any) => t.id);
}

function assertValidationError(
  res: { status: number; body: any; text: string },
  field: string,
  code: 'VALIDATION_ERROR' | 'INVALID_CURSOR' = 'VALIDATION_ERROR',
): void {
  assert.equal(res.status, 400, res.text);
  assert.equal(res.body.code, code);
  assert.ok(res.body.details.fieldErrors[field], res.text);
}

/** RFC 4180 parsing (quoted fields, doubled quotes, CRLF between records), to read the export back. */
function parseCsv(text: string): string[][] {
  assert.ok(text.endsWith('\r\n'), 'the last record ends with CRLF');
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c !== '"') field += c;
      else if (text[i + 1] === '"') {
        field += '"';
        i++;
      } else quoted = false;
    } else if (c === '"') {
      quoted = true;
    } else if (c === ',') {
      record.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      i++;
    } else {
      field += c;
    }
  }
  return records;
}

const HEADER = 'id,hash,type,asset,amount,from,to,feeSponsoredXlm,ledger,status,resultCode,createdAt';

describe('the records and their sponsored fees', () => {
  let appId: string;
  let gasKey: string;
  const source = Keypair.random().publicKey();
  const dest = Keypair.random().publicKey();
  let kinds: Record<string, string>;

  before(async () => {
    ({ appId, gasKey } = await createApp());
    const paid = { feeSource: gasKey, envelopeXdr: 'AAAA' };
    const [confirmed, activation, inFlight, refused, appliedFailed, denied, external, built] = await store(appId, [
      {
        second: 1,
        tx: { ...paid, sourceAccount: source, destination: dest, amount: '10', feeStroops: 200n, ledger: 100 },
      },
      {
        second: 2,
        tx: {
          ...paid,
          origin: 'activation',
          operation: 'createAccount',
          asset: null,
          amount: null,
          destination: dest,
          feeStroops: 400n,
          ledger: 101,
        },
      },
      {
        second: 3,
        tx: {
          ...paid,
          status: 'PENDING',
          stage: 'submitted',
          asset: USDC,
          amount: '2.5',
          feeStroops: 300n,
          resultCode: undefined,
        },
      },
      // refused at submission: never in a ledger, so Stellar charged nothing
      {
        second: 4,
        tx: { ...paid, status: 'FAILED', stage: 'failed', asset: USDC, feeStroops: 200n, resultCode: 'tx_bad_seq' },
      },
      // applied as failed: in a ledger, the fee was charged
      {
        second: 5,
        tx: { ...paid, status: 'FAILED', stage: 'failed', feeStroops: 200n, ledger: 102, resultCode: 'op_underfunded' },
      },
      // the policy said no: the fee-bump was never signed (the estimate stays in fee_stroops)
      {
        second: 6,
        tx: { status: 'FAILED', stage: 'denied', feeStroops: 200n, resultCode: 'TX_POLICY_MAX_FEE_EXCEEDED' },
      },
      // made outside the service, its own source paid the fee
      {
        second: 7,
        tx: {
          origin: 'external',
          sourceAccount: source,
          feeSource: source,
          envelopeXdr: 'AAAA',
          feeStroops: 100n,
          ledger: 103,
        },
      },
      { second: 8, tx: { status: 'PENDING', stage: 'built', feeStroops: 200n, resultCode: undefined } },
    ]);
    kinds = {
      confirmed: confirmed!,
      activation: activation!,
      inFlight: inFlight!,
      refused: refused!,
      appliedFailed: appliedFailed!,
      denied: denied!,
      external: external!,
      built: built!,
    };
  });

  test('each field maps its column; feeSponsoredXlm is the fee the gas wallet paid, else "0"', async () => {
    const page = await list(owner, appId);
    assert.equal(page.total, 8);
    assert.equal(page.limit, 20);
    assert.equal(page.offset, 0);
    assert.equal(page.nextCursor, null);
    assert.deepEqual(
      page.transactions.map((t: any) => t.id),
      ['built', 'external', 'denied', 'appliedFailed', 'refused', 'inFlight', 'activation', 'confirmed'].map(
        (k) => kinds[k],
      ),
      'newest first',
    );
    const byId = new Map(page.transactions.map((t: any) => [t.id, t]));
    const stored = await svc.deps.db('transactions').where({ app_id: appId }).select('id', 'hash', 'source_account');
    const row = (k: string) => stored.find((r) => r.id === kinds[k])!;
    assert.deepEqual(byId.get(kinds.confirmed), {
      id: kinds.confirmed,
      hash: row('confirmed').hash,
      type: 'payment',
      asset: 'native',
      amount: '10',
      from: source,
      to: dest,
      feeSponsoredXlm: '0.00002',
      ledger: 100,
      status: 'SUCCESS',
      resultCode: 'tx_success',
      createdAt: iso(1),
    });
    assert.deepEqual(byId.get(kinds.activation), {
      id: kinds.activation,
      hash: row('activation').hash,
      type: 'createAccount',
      asset: null,
      amount: null,
      from: row('activation').source_account,
      to: dest,
      feeSponsoredXlm: '0.00004',
      ledger: 101,
      status: 'SUCCESS',
      resultCode: 'tx_success',
      createdAt: iso(2),
    });
    const fees = Object.fromEntries(Object.entries(kinds).map(([k, id]) => [k, (byId.get(id) as any).feeSponsoredXlm]));
    assert.deepEqual(fees, {
      confirmed: '0.00002',
      activation: '0.00004',
      inFlight: '0.00003', // sent: the fee-bump's fee is being paid
      refused: '0',
      appliedFailed: '0.00002',
      denied: '0',
      external: '0',
      built: '0',
    });
    const pending = byId.get(kinds.inFlight) as any;
    assert.equal(pending.status, 'PENDING');
    assert.equal(pending.resultCode, null);
    assert.equal(pending.ledger, null);
    assert.equal((byId.get(kinds.denied) as any).resultCode, 'TX_POLICY_MAX_FEE_EXCEEDED');
  });

  test('filters: status, type, asset and the [from, to) window, alone and together', async () => {
    const k = (...names: string[]) => names.map((n) => kinds[n]);
    assert.deepEqual(await ids(owner, appId, { status: 'FAILED' }), k('denied', 'appliedFailed', 'refused'));
    assert.deepEqual(await ids(owner, appId, { status: 'PENDING' }), k('built', 'inFlight'));
    assert.deepEqual(await ids(owner, appId, { type: 'createAccount' }), k('activation'));
    assert.deepEqual(await ids(owner, appId, { type: 'changeTrust' }), []);
    assert.deepEqual(await ids(owner, appId, { asset: USDC }), k('refused', 'inFlight'));
    assert.equal((await list(owner, appId, { asset: 'native' })).total, 5);
    assert.deepEqual(await ids(owner, appId, { asset: USDC, status: 'FAILED' }), k('refused'));
    // from inclusive, to exclusive
    const window = await list(owner, appId, { from: iso(3), to: iso(6) });
    assert.deepEqual(
      window.transactions.map((t: any) => t.id),
      k('appliedFailed', 'refused', 'inFlight'),
    );
    assert.equal(window.total, 3);
    assert.deepEqual(await ids(owner, appId, { from: iso(7) }), k('built', 'external'));
    assert.deepEqual(await ids(owner, appId, { to: iso(2) }), k('confirmed'));
    // any offset: 02:00:05+02:00 is 00:00:05Z
    assert.deepEqual(
      await ids(owner, appId, { from: '2026-11-01T02:00:05+02:00', status: 'FAILED' }),
      k('denied', 'appliedFailed'),
    );
    assert.deepEqual(await ids(owner, appId, { from: iso(3), to: iso(6), status: 'SUCCESS' }), []);
  });

  test('a window whose from is not before its to is a 400 naming the field, in either format', async () => {
    const windows: Record<string, string>[] = [
      { from: iso(5), to: iso(5) },
      { from: iso(6), to: iso(5) },
      { from: iso(6), to: iso(5), format: 'csv' },
    ];
    for (const query of windows) {
      const res = await owner.call('listAppTransactions', 'GET', listPath(appId, query));
      assertValidationError(res, 'query.from');
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    }
    assertValidationError(
      await owner.call('listAppTransactions', 'GET', listPath(appId, { status: 'DONE' })),
      'query.status',
    );
    assertValidationError(
      await owner.call('listAppTransactions', 'GET', listPath(appId, { format: 'xml' })),
      'query.format',
    );
  });
});

describe('paging', () => {
  let appId: string;
  /** Newest first, as the list must give them. */
  let expected: string[];

  before(async () => {
    ({ appId } = await createApp('Paged'));
    // 45 transactions, five of them at one instant (the order must not rest on the time alone); every third FAILED
    const rows = Array.from({ length: 45 }, (_, i) => ({
      second: i >= 20 && i < 25 ? 20 : i,
      tx: i % 3 === 0 ? { status: 'FAILED' as const, stage: 'failed' as const, resultCode: 'tx_failed' } : {},
    }));
    const stored = await store(appId, rows);
    expected = stored
      .map((id, i) => ({ id, second: rows[i]!.second }))
      .sort((x, y) => y.second - x.second || (x.id < y.id ? 1 : -1))
      .map((r) => r.id);
  });

  test('offset pages walk every transaction once, newest first, with the total', async () => {
    const seen: string[] = [];
    for (let offset = 0; offset < 45; offset += 20) {
      const page = await list(owner, appId, { limit: 20, offset });
      assert.equal(page.total, 45);
      assert.equal(page.offset, offset);
      assert.equal(page.limit, 20);
      assert.equal(page.nextCursor === null, offset + 20 >= 45);
      seen.push(...page.transactions.map((t: any) => t.id));
    }
    assert.deepEqual(seen, expected);
    assert.equal((await list(owner, appId)).transactions.length, 20, 'default limit 20');
    const beyond = await list(owner, appId, { offset: 100 });
    assert.deepEqual([beyond.transactions, beyond.total, beyond.nextCursor], [[], 45, null]);
  });

  test('cursor pages walk the same transactions; the cursor overrides offset and keeps the filters', async () => {
    const seen: string[] = [];
    const offsets: number[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await list(owner, appId, { limit: 20, offset: 7, ...(cursor ? { cursor } : {}) });
      if (cursor) offsets.push(page.offset);
      assert.equal(page.total, 45);
      seen.push(...page.transactions.map((t: any) => t.id));
      cursor = page.nextCursor;
    } while (cursor);
    assert.deepEqual(offsets, [27], 'the second page starts where the first (offset 7, 20 rows) ended');
    assert.deepEqual(seen, expected.slice(7));

    const failed: string[] = [];
    cursor = null;
    do {
      const page: any = await list(owner, appId, { limit: 4, status: 'FAILED', ...(cursor ? { cursor } : {}) });
      assert.equal(page.total, 15);
      failed.push(...page.transactions.map((t: any) => t.id));
      cursor = page.nextCursor;
    } while (cursor);
    const failedIds = new Set(await svc.deps.db('transactions').where({ app_id: appId, status: 'FAILED' }).pluck('id'));
    assert.deepEqual(
      failed,
      expected.filter((id) => failedIds.has(id)),
    );
  });

  test('a cursor that is malformed, of no transaction, of another list or of another app is a 400 query.cursor', async () => {
    const other = (await createApp('Other')).appId;
    await store(other, [{ second: 1 }, { second: 2 }]);
    const ofOther = (await list(owner, other, { limit: 1 })).nextCursor;
    assert.ok(ofOther);
    const ofThis = (await list(owner, appId, { limit: 1 })).nextCursor;
    assert.equal((await list(owner, appId, { cursor: ofThis })).offset, 1, 'its own cursor is followed');
    for (const cursor of [
      'garbage!',
      encodeCursor({ afterId: 'tx_0000000000000000000000', offset: 1 }),
      encodeCursor({ afterId: 'aud_0000000000', offset: 1 }),
      ofOther,
    ]) {
      const res = await owner.call('listAppTransactions', 'GET', listPath(appId, { cursor }));
      assertValidationError(res, 'query.cursor', 'INVALID_CURSOR');
    }
  });
});

describe('the CSV export', () => {
  test('RFC 4180 with a header row, quoted fields, empty cells for nulls, as an attachment; limit, offset and cursor ignored', async () => {
    const { appId, gasKey } = await createApp('Exported');
    const [plain, odd, pending] = await store(appId, [
      { second: 1, tx: { feeSource: gasKey, envelopeXdr: 'AAAA', feeStroops: 1234567n, ledger: 7, amount: '0.5' } },
      {
        second: 2,
        tx: {
          status: 'FAILED',
          stage: 'failed',
          operation: 'invokeHostFunction',
          asset: null,
          amount: null,
          resultCode: 'op_x, "quoted"\nline',
        },
      },
      {
        second: 3,
        tx: { status: 'PENDING', stage: 'built', resultCode: undefined, destination: Keypair.random().publicKey() },
      },
    ]);
    const json = await list(owner, appId);
    const res = await owner.call(
      'listAppTransactions',
      'GET',
      listPath(appId, { format: 'csv', limit: 1, offset: 2, cursor: 'ignored' }),
    );
    assert.equal(res.status, 200, res.text);
    assert.match(res.headers.get('content-type') ?? '', /^text\/csv/);
    assert.equal(res.headers.get('content-disposition'), `attachment; filename="transactions-${appId}.csv"`);
    assert.ok(res.text.startsWith(`${HEADER}\r\n`), res.text.slice(0, 200));
    // the field with a comma, quotes and a line break is quoted, its quotes doubled
    assert.ok(res.text.includes(',"op_x, ""quoted""\nline",'), res.text);
    const [header, ...records] = parseCsv(res.text);
    assert.deepEqual(header, HEADER.split(','));
    assert.deepEqual(
      records.map((r) => r[0]),
      [pending, odd, plain],
      'every row, newest first',
    );
    // the same values as the JSON records, nulls as empty cells
    const cells = (t: any) => header.map((c) => (t[c] === null ? '' : String(t[c])));
    assert.deepEqual(records, json.transactions.map(cells));
    const oddRow = records[1]!;
    assert.deepEqual(
      [oddRow[3], oddRow[4], oddRow[6], oddRow[8], oddRow[10]],
      ['', '', '', '', 'op_x, "quoted"\nline'],
    );
    assert.equal(records[0]![10], '', 'PENDING: no result code');
    assert.equal(records[2]![7], '0.1234567');

    const failedOnly = parseCsv(
      (await owner.call('listAppTransactions', 'GET', listPath(appId, { format: 'csv', status: 'FAILED' }))).text,
    );
    assert.deepEqual(
      failedOnly.slice(1).map((r) => r[0]),
      [odd],
    );
    const empty = await owner.call('listAppTransactions', 'GET', listPath(appId, { format: 'csv', type: 'clawback' }));
    assert.equal(empty.text, `${HEADER}\r\n`);
  });

  test(`at most ${MAX_CSV_ROWS} rows, the newest`, async () => {
    const { appId } = await createApp('Big export');
    const stored = await store(
      appId,
      Array.from({ length: MAX_CSV_ROWS + 5 }, (_, i) => ({ second: i })),
    );
    const res = await owner.call('listAppTransactions', 'GET', listPath(appId, { format: 'csv' }));
    assert.equal(res.status, 200);
    const records = parseCsv(res.text).slice(1);
    assert.equal(records.length, MAX_CSV_ROWS);
    assert.deepEqual(
      records.map((r) => r[0]),
      stored.slice(5).reverse(),
    );
    assert.equal((await list(owner, appId, { limit: 1 })).total, MAX_CSV_ROWS + 5);
  });
});

describe('who may read it', () => {
  test('any member, in both formats; another operator and an unknown app get 404 APPLICATION_NOT_FOUND as JSON', async () => {
    const { appId } = await createApp('Shared');
    await store(appId, [{ second: 1 }]);
    const added = await owner.call('addMember', 'POST', `/api/v1/apps/${appId}/members`, {
      body: { email: developer.email, role: 'developer' },
    });
    assert.equal(added.status, 201, added.text);
    assert.equal((await list(developer, appId)).total, 1);
    assert.equal((await developer.call('listAppTransactions', 'GET', listPath(appId, { format: 'csv' }))).status, 200);
    for (const [client, id] of [
      [outsider, appId],
      [owner, 'app_0000000000000000000000'],
    ] as const) {
      for (const query of [{}, { format: 'csv' }] as Record<string, string>[]) {
        const res = await client.call('listAppTransactions', 'GET', listPath(id, query));
        assert.equal(res.status, 404, res.text);
        assert.equal(res.body.code, 'APPLICATION_NOT_FOUND');
      }
    }
  });
});

/** Pays the user's wallet `amount` XLM from a new friendbot-funded account (outside the service). */
async function topUp(wallet: string, amount: string): Promise<void> {
  const gw = gatewayOf(svc);
  const funder = Keypair.random();
  await gw.fundWithFriendbot(funder.publicKey());
  const account = (await gw.loadAccount(funder.publicKey()))!;
  const tx = new TransactionBuilder(new Account(funder.publicKey(), account.sequence), {
    fee: '100',
    networkPassphrase: gw.networkPassphrase,
  })
    .addOperation(Operation.payment({ destination: wallet, asset: Asset.native(), amount }))
    .setTimeout(60)
    .build();
  tx.sign(funder);
  await gw.submitAndConfirm(tx);
}

describe('real transactions', () => {
  test('an activation, a payment applied as failed and a successful one, with the fees the gas wallet was charged', async () => {
    const setup = await appWithWallet(svc, { settings: { fundingMode: 'immediate' } });
    const user = await signInUser(svc, setup.creds);
    const wallet = user.signIn.wallet.publicKey;
    assert.equal(user.signIn.wallet.funded, true);
    const pay = {
      body: { operation: { type: 'payment', destination: setup.appWallet.publicKey, asset: 'native', amount: '1.5' } },
    };
    // The activated wallet holds no spendable XLM yet: the payment fails in the ledger, and its fee is charged.
    const failed = await user.call('runTransaction', 'POST', '/v1/tx/run', pay);
    assert.equal(failed.status, 422, failed.text);
    assert.equal(failed.body.resultCode, 'op_underfunded');
    await topUp(wallet, '5');
    const ran = await user.call('runTransaction', 'POST', '/v1/tx/run', pay);
    assert.equal(ran.status, 200, ran.text);
    assert.equal(ran.body.content.status, 'success', ran.text);

    const sessions = await withSessions(svc.deps, setup.creds);
    const path = listPath(setup.app.id);
    const res = await call(svc.url, 'listAppTransactions', 'GET', path, {
      headers: await headersFor(['operatorSession', 'dpopProof'], sessions, { method: 'GET', url: svc.url + path }),
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.content.total, 3);
    const [paid, underfunded, activation] = res.body.content.transactions;
    const stored = await svc.deps
      .db('transactions')
      .where({ app_id: setup.app.id })
      .select('id', 'fee_stroops', 'fee_source');
    const fee = (id: string) => fromStroops(BigInt(stored.find((r) => r.id === id)!.fee_stroops));
    for (const r of stored) assert.equal(r.fee_source, setup.appWallet.publicKey, 'the global wallet paid every fee');

    const view = (t: any) => ({
      type: t.type,
      asset: t.asset,
      amount: t.amount,
      from: t.from,
      to: t.to,
      status: t.status,
      resultCode: t.resultCode,
    });
    const payment = { type: 'payment', asset: 'native', amount: '1.5', from: wallet, to: setup.appWallet.publicKey };
    assert.deepEqual(view(paid), { ...payment, status: 'SUCCESS', resultCode: 'tx_success' });
    assert.equal(paid.hash, ran.body.content.hash);
    assert.equal(paid.ledger, ran.body.content.ledger);
    assert.equal(paid.feeSponsoredXlm, ran.body.content.feeXlm);
    assert.deepEqual(view(underfunded), { ...payment, status: 'FAILED', resultCode: 'op_underfunded' });
    assert.ok(underfunded.ledger > 0, 'applied in a ledger');
    assert.equal(activation.type, 'createAccount');
    assert.equal(activation.to, wallet);
    assert.equal(activation.status, 'SUCCESS');
    for (const t of [paid, underfunded, activation]) {
      assert.equal(t.feeSponsoredXlm, fee(t.id));
      assert.notEqual(t.feeSponsoredXlm, '0');
    }
  });
});
