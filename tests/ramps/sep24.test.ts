// The SEP-24 ramp provider against a local anchor (tests/support/rampStandIns/anchor.ts), called directly with the
// few deps it uses: discovery and routes from the anchor's stellar.toml and /info, an indicative quote from its terms,
// a ramp started through SEP-10 (a real challenge, signed here with the user's key), SEP-12 and the interactive
// endpoint, and the anchor's statuses mapped as the anchor moves the transaction along. Then what must never crash:
// an anchor that fails, answers garbage or lies about its fields is an UpstreamFailure (the 502), a toml for another
// network or a missing anchor is a not_configured refusal, and an anchor on loopback is refused unless
// RAMPS_ALLOW_INSECURE.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Keypair, Networks, WebAuth } from '@stellar/stellar-sdk';
import { pino } from 'pino';
import type { App } from '../../src/domain/apps/store';
import type { WalletRecord } from '../../src/domain/wallets/store';
import {
  QUOTE_VALIDITY_MS,
  RampRefusal,
  type ProviderQuote,
  type RampCall,
  type RampDeps,
  type RampQuoteRequest,
  type RampRefusalKind,
  type StoredRamp,
} from '../../src/domain/ramps/providers';
import { sep24RampProvider as sep24 } from '../../src/domain/ramps/sep24';
import { UpstreamFailure } from '../../src/domain/ramps/upstream';
import { startLocalAnchor, type LocalAnchor } from '../support/rampStandIns/anchor';

const depsWith = (allowInsecure: boolean): RampDeps =>
  ({
    ramps: {
      allowInsecure,
      timeoutMs: 2000,
      sandbox: false,
      baseUrl: 'http://127.0.0.1',
      bridgeApiUrl: 'https://bridge.invalid',
      etherfuseApiUrl: 'https://etherfuse.invalid',
    },
    clock: { now: () => new Date() },
    log: pino({ level: 'silent' }),
  }) as unknown as RampDeps;
const deps = depsWith(true);

/** A user with a custodial wallet whose key signs here what the service's signChallenge would sign. */
function userCall(
  anchorDomain: string,
  keypair = Keypair.random(),
  email: string | null = 'ada@example.com',
): RampCall {
  return {
    app: { id: 'app_sep24test', network: 'testnet' } as App,
    network: 'testnet',
    credentials: { anchorDomain },
    now: new Date('2026-05-01T10:00:00Z'),
    user: {
      userId: 'usr_sep24test',
      email,
      wallet: { publicKey: keypair.publicKey(), custody: 'custodial' } as WalletRecord,
      kycStatus: 'none',
    },
    // What the service does: sign only a valid challenge of this anchor's key, for this home domain.
    signChallenge(xdr, passphrase, homeDomain, serverAccount) {
      const { tx, clientAccountID } = WebAuth.readChallengeTx(xdr, serverAccount, passphrase, homeDomain, homeDomain);
      assert.equal(clientAccountID, keypair.publicKey());
      tx.sign(keypair);
      return Promise.resolve(tx.toEnvelope().toXDR('base64'));
    },
  };
}

function storedRamp(request: RampQuoteRequest, quote: ProviderQuote, providerRef: string | null = null): StoredRamp {
  return {
    rampTxId: 'rmp_sep24test',
    quote: { ...request, ...quote, quoteId: 'rmq_sep24test', providerId: 'sep24' },
    status: 'pending_kyc',
    providerRef,
    stellarTxHash: null,
    createdAt: new Date(),
  };
}

const isUpstreamFailure = (err: unknown) => {
  assert.ok(err instanceof UpstreamFailure, `expected an UpstreamFailure, got ${String(err)}`);
  return true;
};
const refusal = (kind: RampRefusalKind['kind']) => (err: unknown) => {
  assert.ok(err instanceof RampRefusal, `expected a RampRefusal, got ${String(err)}`);
  assert.equal(err.refusal.kind, kind, err.message);
  return true;
};

describe('SEP-24 ramp provider against a local anchor', () => {
  let anchor: LocalAnchor;
  let usdc: string;
  before(async () => {
    anchor = await startLocalAnchor({
      assets: [
        {
          code: 'USDC',
          deposit: { enabled: true, fee_fixed: 1, fee_percent: 1.5, min_amount: 10, max_amount: 1000 },
          withdraw: { enabled: true, fee_fixed: '0.5', min_amount: '5', max_amount: '500' },
        },
        { code: 'EURC', fiat: 'EUR', deposit: { enabled: true }, withdraw: { enabled: false } },
        { code: 'SRT', withdraw: { enabled: true } },
      ],
    });
    usdc = anchor.asset('USDC');
  });
  after(async () => {
    await anchor?.close();
  });

  const quote = (call: RampCall, request: RampQuoteRequest) => sep24.quote(deps, call, request);
  const usdcRequest = (direction: 'on' | 'off', amount: string, amountIn: 'fiat' | 'crypto'): RampQuoteRequest => ({
    direction,
    fiatCurrency: 'USD',
    asset: usdc,
    amount,
    amountIn,
  });

  test('routes: each app asset the anchor lists in its toml (with that issuer) and enables in /info', async () => {
    const otherUsdc = `USDC:${Keypair.random().publicKey()}`;
    const routes = await sep24.routes(deps, userCall(anchor.domain), [
      usdc,
      anchor.asset('EURC'),
      anchor.asset('SRT'),
      otherUsdc,
      'native',
    ]);
    assert.deepEqual(routes, [
      { direction: 'on', fiatCurrency: 'USD', asset: usdc },
      { direction: 'off', fiatCurrency: 'USD', asset: usdc },
      { direction: 'on', fiatCurrency: 'EUR', asset: anchor.asset('EURC') },
      { direction: 'off', fiatCurrency: 'USD', asset: anchor.asset('SRT') },
    ]);
  });

  test('quote: /info fees and bounds, exact in both directions and from either leg', async () => {
    const call = userCall(anchor.domain);
    // deposit: 1 + 1.5 % of 100 = 2.5
    const on = await quote(call, usdcRequest('on', '100', 'fiat'));
    assert.deepEqual(on, {
      fiatAmount: '100',
      cryptoAmount: '97.5',
      fee: '2.5',
      minAmount: '10',
      maxAmount: '1000',
      expiresAt: new Date(call.now.getTime() + QUOTE_VALIDITY_MS),
    });
    const onFromCrypto = await quote(call, usdcRequest('on', '97.5', 'crypto'));
    assert.deepEqual([onFromCrypto.fiatAmount, onFromCrypto.cryptoAmount, onFromCrypto.fee], ['100', '97.5', '2.5']);
    // 1.5 % of 33.33 is 0.49995: the fee is rounded up to the cent (1.5), never a float's 1.4999...
    const odd = await quote(call, usdcRequest('on', '33.33', 'fiat'));
    assert.deepEqual([odd.fiatAmount, odd.cryptoAmount, odd.fee], ['33.33', '31.83', '1.5']);
    // withdrawal: a fixed 0.5 (a decimal string in /info)
    const off = await quote(call, usdcRequest('off', '50', 'crypto'));
    assert.deepEqual(
      [off.fiatAmount, off.cryptoAmount, off.fee, off.minAmount, off.maxAmount],
      ['49.5', '50', '0.5', '5', '500'],
    );
    const offFromFiat = await quote(call, usdcRequest('off', '49.5', 'fiat'));
    assert.deepEqual([offFromFiat.fiatAmount, offFromFiat.cryptoAmount], ['49.5', '50']);
    // a 7-decimal asset amount pays out whole cents
    const dust = await quote(call, usdcRequest('off', '50.1234567', 'crypto'));
    assert.deepEqual([dust.fiatAmount, dust.cryptoAmount, dust.fee], ['49.62', '50.1234567', '0.5']);
  });

  test('quote: no fees in /info is a fee of 0; no bounds are the smallest payable and the largest asset amount', async () => {
    const eurc = await quote(userCall(anchor.domain), {
      direction: 'on',
      fiatCurrency: 'EUR',
      asset: anchor.asset('EURC'),
      amount: '20',
      amountIn: 'fiat',
    });
    assert.deepEqual(
      [eurc.fiatAmount, eurc.cryptoAmount, eurc.fee, eurc.minAmount, eurc.maxAmount],
      ['20', '20', '0', '0.01', '922337203685.47'],
    );
  });

  test('quote: out of range below the minimum and above the maximum, with the limit in the fiat currency', async () => {
    const call = userCall(anchor.domain);
    await assert.rejects(quote(call, usdcRequest('on', '9.99', 'fiat')), (err) => {
      assert.ok(err instanceof RampRefusal);
      assert.deepEqual(err.refusal, {
        kind: 'out_of_range',
        limit: 'min',
        limitAmount: '10',
        limitCurrency: 'USD',
        message: 'The amount is below the minimum of 10 USD',
      });
      return true;
    });
    await assert.rejects(quote(call, usdcRequest('on', '1000.01', 'fiat')), (err) => {
      assert.ok(err instanceof RampRefusal);
      assert.deepEqual(err.refusal, {
        kind: 'out_of_range',
        limit: 'max',
        limitAmount: '1000',
        limitCurrency: 'USD',
        message: 'The amount is above the maximum of 1000 USD',
      });
      return true;
    });
    // the bound is on what the anchor receives: 499.5 USD out takes 500 USDC in (the maximum), 499.51 takes more
    await quote(call, usdcRequest('off', '499.5', 'fiat'));
    await assert.rejects(quote(call, usdcRequest('off', '499.51', 'fiat')), (err) => {
      assert.ok(err instanceof RampRefusal && err.refusal.kind === 'out_of_range');
      assert.equal(err.refusal.limit, 'max');
      assert.equal(err.refusal.limitAmount, '500');
      return true;
    });
  });

  test('quote: a route the anchor does not offer is route_not_offered', async () => {
    const call = userCall(anchor.domain);
    await assert.rejects(
      quote(call, { ...usdcRequest('on', '100', 'fiat'), fiatCurrency: 'EUR' }),
      refusal('route_not_offered'),
    );
    await assert.rejects(
      quote(call, { ...usdcRequest('off', '10', 'crypto'), asset: anchor.asset('EURC'), fiatCurrency: 'EUR' }),
      refusal('route_not_offered'),
    );
    await assert.rejects(
      quote(call, { ...usdcRequest('on', '100', 'fiat'), asset: `USDC:${Keypair.random().publicKey()}` }),
      refusal('route_not_offered'),
    );
  });

  test('deposit: start is pending_kyc at the interactive url; the statuses follow the anchor to completed', async () => {
    const call = userCall(anchor.domain);
    const request = usdcRequest('on', '100', 'fiat');
    const ramp = storedRamp(request, await quote(call, request));
    const started = await sep24.start(deps, call, ramp);
    assert.equal(started.status, 'pending_kyc');
    assert.ok(started.kycUrl?.startsWith(`${anchor.url}/sep24/interactive?token=`), started.kycUrl);
    const tx = anchor.transactions.get(started.providerRef!);
    assert.ok(tx, 'the anchor has the transaction');
    assert.equal(tx.kind, 'deposit');
    assert.equal(tx.owner, call.user.wallet.publicKey);
    assert.equal(tx.fields.amount_in, '100', 'SEP-24 amount is amount_in: the fiat paid in');
    assert.equal(tx.fields.to, call.user.wallet.publicKey);
    assert.deepEqual(anchor.customers.get(call.user.wallet.publicKey), { email_address: 'ada@example.com' });

    const live = { ...ramp, providerRef: started.providerRef! };
    assert.deepEqual(await sep24.status(deps, call, live), {
      providerRef: live.providerRef,
      status: 'pending_kyc',
      kycUrl: `${anchor.url}/sep24/more_info?id=${live.providerRef}`,
    });
    anchor.setStatus(live.providerRef, 'pending_user_transfer_start');
    assert.deepEqual(await sep24.status(deps, call, live), {
      providerRef: live.providerRef,
      status: 'awaiting_deposit',
      depositInstructions: {
        method: 'other',
        amount: '100',
        currency: 'USD',
        reference: live.providerRef,
        details: {
          'organization.bank_number': '121122676',
          'organization.bank_account_number': '13719713158835300',
          moreInfoUrl: `${anchor.url}/sep24/more_info?id=${live.providerRef}`,
        },
      },
    });
    anchor.setStatus(live.providerRef, 'pending_external');
    assert.equal((await sep24.status(deps, call, live)).status, 'processing');
    anchor.setStatus(live.providerRef, 'pending_stellar');
    assert.equal((await sep24.status(deps, call, live)).status, 'processing');
    anchor.setStatus(live.providerRef, 'completed');
    const done = await sep24.status(deps, call, live);
    assert.deepEqual(done, {
      providerRef: live.providerRef,
      status: 'completed',
      stellarTxHash: anchor.transactions.get(live.providerRef)!.fields.stellar_transaction_id,
    });
    assert.match(done.stellarTxHash!, /^[0-9a-f]{64}$/);
  });

  test('withdrawal: the payment to send once the anchor is ready (destination, amount, memo), then completed', async () => {
    const call = userCall(anchor.domain);
    const request = usdcRequest('off', '50', 'crypto');
    const ramp = storedRamp(request, await quote(call, request));
    const started = await sep24.start(deps, call, ramp);
    assert.equal(started.status, 'pending_kyc');
    const tx = anchor.transactions.get(started.providerRef!)!;
    assert.equal(tx.kind, 'withdrawal');
    assert.equal(tx.fields.amount_in, '50');
    const live = { ...ramp, providerRef: started.providerRef! };

    assert.equal((await sep24.status(deps, call, live)).status, 'pending_kyc');
    anchor.setStatus(live.providerRef, 'pending_user_transfer_start');
    assert.deepEqual(await sep24.status(deps, call, live), {
      providerRef: live.providerRef,
      status: 'processing',
      payment: {
        destination: anchor.distributionAccount,
        asset: usdc,
        amount: '50',
        memo: { type: 'id', value: tx.fields.withdraw_memo },
        action: `Send 50 USDC to ${anchor.domain}`,
      },
    });
    anchor.setStatus(live.providerRef, 'pending_anchor');
    const processing = await sep24.status(deps, call, live);
    assert.deepEqual(processing, { providerRef: live.providerRef, status: 'processing' });
    anchor.setStatus(live.providerRef, 'pending_user_transfer_complete');
    assert.equal((await sep24.status(deps, call, live)).status, 'processing');
    anchor.setStatus(live.providerRef, 'completed', { stellar_transaction_id: 'ab'.repeat(32) });
    // the on-chain leg of an off-ramp is the service's own payment: not taken from the anchor
    assert.deepEqual(await sep24.status(deps, call, live), { providerRef: live.providerRef, status: 'completed' });
  });

  test('withdrawal: a base64 hash memo becomes hex; a lower amount_in is paid; a higher one fails the ramp', async () => {
    const call = userCall(anchor.domain);
    const request = usdcRequest('off', '50', 'crypto');
    const quoted = await quote(call, request);
    const started = async () => {
      const ramp = storedRamp(request, quoted);
      return { ...ramp, providerRef: (await sep24.start(deps, call, ramp)).providerRef! };
    };
    const hash = Buffer.alloc(32, 7);
    const a = await started();
    anchor.setStatus(a.providerRef, 'pending_user_transfer_start', {
      withdraw_memo: hash.toString('base64'),
      withdraw_memo_type: 'hash',
      amount_in: '40.00',
    });
    const stateA = await sep24.status(deps, call, a);
    assert.deepEqual(stateA.payment?.memo, { type: 'hash', value: hash.toString('hex') });
    assert.equal(stateA.payment?.amount, '40');
    assert.equal(stateA.payment?.action, `Send 40 USDC to ${anchor.domain}`);

    const b = await started();
    anchor.setStatus(b.providerRef, 'pending_user_transfer_start', { amount_in: '50.0000001' });
    const stateB = await sep24.status(deps, call, b);
    assert.equal(stateB.status, 'failed');
    assert.equal(stateB.payment, undefined);
    assert.match(stateB.failureReason!, /more than the 50 quoted/);
  });

  test('final statuses: error, refunded, too_small are failed with the reason; expired is expired', async () => {
    const call = userCall(anchor.domain);
    const request = usdcRequest('on', '100', 'fiat');
    const quoted = await quote(call, request);
    for (const [status, expected] of [
      ['error', { status: 'failed', failureReason: 'error: the bank refused the transfer' }],
      ['refunded', { status: 'failed', failureReason: 'refunded: the bank refused the transfer' }],
      ['too_small', { status: 'failed', failureReason: 'too_small: the bank refused the transfer' }],
      ['expired', { status: 'expired' }],
    ] as const) {
      const ramp = storedRamp(request, quoted);
      const live = { ...ramp, providerRef: (await sep24.start(deps, call, ramp)).providerRef! };
      anchor.setStatus(
        live.providerRef,
        status,
        status === 'expired' ? {} : { message: 'the bank refused the transfer' },
      );
      assert.deepEqual(await sep24.status(deps, call, live), { providerRef: live.providerRef, ...expected }, status);
    }
  });

  test('an anchor that fails (500) is an UpstreamFailure, at discovery and at each later step', async () => {
    const call = userCall(anchor.domain);
    anchor.failNext(1);
    await assert.rejects(sep24.routes(deps, call, [usdc]), isUpstreamFailure);
    const request = usdcRequest('on', '100', 'fiat');
    const ramp = storedRamp(request, await quote(call, request));
    const live = { ...ramp, providerRef: (await sep24.start(deps, call, ramp)).providerRef! };
    for (const path of ['/auth', '/sep24/transaction']) {
      anchor.answerNext({ path, status: 500, body: { error: 'down' } });
      await assert.rejects(sep24.status(deps, call, live), isUpstreamFailure, path);
    }
    anchor.answerNext({ path: '/sep24/info', status: 503, body: 'maintenance', contentType: 'text/html' });
    await assert.rejects(quote(call, request), isUpstreamFailure);
    // and it recovers
    assert.equal((await sep24.status(deps, call, live)).status, 'pending_kyc');
  });

  test('hostile answers are UpstreamFailure, never a TypeError', async () => {
    const call = userCall(anchor.domain);
    const request = usdcRequest('off', '50', 'crypto');
    const ramp = storedRamp(request, await quote(call, request));
    const live = { ...ramp, providerRef: (await sep24.start(deps, call, ramp)).providerRef! };
    const tx = anchor.transactions.get(live.providerRef)!;
    const statusWith = async (overrides: Record<string, unknown>) => {
      tx.overrides = overrides;
      await assert.rejects(sep24.status(deps, call, live), isUpstreamFailure, JSON.stringify(overrides));
    };
    await statusWith({ id: 123 });
    await statusWith({ id: 'another-transaction' });
    await statusWith({ status: null });
    await statusWith({ status: 7 });
    await statusWith({ kind: 'deposit' });
    tx.status = 'pending_user_transfer_start';
    await statusWith({ withdraw_anchor_account: null });
    await statusWith({ withdraw_anchor_account: 'not-an-account', withdraw_memo: '1', withdraw_memo_type: 'id' });
    await statusWith({ withdraw_anchor_account: anchor.distributionAccount, withdraw_memo: '1' });
    await statusWith({
      withdraw_anchor_account: anchor.distributionAccount,
      withdraw_memo: 'x'.repeat(29),
      withdraw_memo_type: 'text',
    });
    await statusWith({ withdraw_anchor_account: anchor.distributionAccount, amount_in: 50 });
    await statusWith({ withdraw_anchor_account: anchor.distributionAccount, amount_in: '1e3' });
    tx.status = 'completed';
    await statusWith({ stellar_transaction_id: 'not-a-hash' });
    tx.overrides = {};

    const hostile = [
      { path: '/sep24/transaction', body: { transaction: 'completed' } },
      { path: '/sep24/transaction', body: [] },
      { path: '/sep24/transaction', body: '{"transaction":', contentType: 'application/json' },
      { path: '/sep24/transaction', body: '<html>not json</html>', contentType: 'text/html' },
      { path: '/auth', body: { transaction: 42 } },
      { path: '/auth', body: { transaction: 'AAAA', network_passphrase: Networks.PUBLIC } },
    ];
    for (const answer of hostile) {
      anchor.answerNext(answer);
      await assert.rejects(sep24.status(deps, call, live), (err) =>
        err instanceof UpstreamFailure ? true : assert.fail(`${JSON.stringify(answer)}: ${String(err)}`),
      );
    }
    for (const body of [
      { type: 'interactive_customer_info_needed', id: 'abc' },
      { type: 'interactive_customer_info_needed', url: 'javascript:alert(1)', id: 'abc' },
      { type: 'interactive_customer_info_needed', url: `${anchor.url}/x`, id: { nested: true } },
      { type: 'interactive_customer_info_needed', url: `${anchor.url}/x`, id: 'with space' },
    ]) {
      anchor.answerNext({ path: '/sep24/transactions/withdraw/interactive', body });
      await assert.rejects(sep24.start(deps, call, ramp), isUpstreamFailure, JSON.stringify(body));
    }
    for (const body of [
      { deposit: [], withdraw: [] },
      { withdraw: { USDC: { enabled: 'yes' } } },
      { withdraw: { USDC: { enabled: true, fee_fixed: -1 } } },
      { withdraw: { USDC: { enabled: true, min_amount: '1,5' } } },
      { withdraw: { USDC: { enabled: true, fee_percent: 100 } } },
    ]) {
      anchor.answerNext({ path: '/sep24/info', body });
      await assert.rejects(quote(call, request), isUpstreamFailure, JSON.stringify(body));
    }
    anchor.answerNext({
      path: '/.well-known/stellar.toml',
      body: 'SIGNING_KEY = [unterminated',
      contentType: 'text/plain',
    });
    await assert.rejects(quote(call, request), isUpstreamFailure);
  });

  test('SEP-10: the anchor checks the signature; a wallet the service cannot sign for refuses as the service says', async () => {
    const call = userCall(anchor.domain);
    const request = usdcRequest('on', '100', 'fiat');
    const ramp = storedRamp(request, await quote(call, request));
    // signed by another key than the account's: the anchor refuses the challenge (400) -> upstream failure
    const stranger = Keypair.random();
    const wrongKey: RampCall = {
      ...call,
      signChallenge(xdr, passphrase, homeDomain, serverAccount) {
        const { tx } = WebAuth.readChallengeTx(xdr, serverAccount, passphrase, homeDomain, homeDomain);
        tx.sign(stranger);
        return Promise.resolve(tx.toEnvelope().toXDR('base64'));
      },
    };
    await assert.rejects(sep24.start(deps, wrongKey, ramp), isUpstreamFailure);
    const external = new RampRefusal({ kind: 'wallet_unsupported', message: 'an external wallet' });
    const externalCall = { ...call, signChallenge: () => Promise.reject(external) };
    await assert.rejects(sep24.start(deps, externalCall, ramp), (err) => err === external);
  });

  test('no email, no KYC_SERVER: SEP-12 is skipped and the ramp still starts', async () => {
    const noKyc = await startLocalAnchor({ kycServer: false });
    try {
      const call = userCall(noKyc.domain, Keypair.random(), null);
      const request = { ...usdcRequest('on', '100', 'fiat'), asset: noKyc.asset('USDC') };
      const ramp = storedRamp(request, await sep24.quote(deps, call, request));
      assert.equal((await sep24.start(deps, call, ramp)).status, 'pending_kyc');
      assert.equal(noKyc.customers.size, 0);
      assert.ok(!noKyc.requests.some((r) => r.path.startsWith('/kyc')));
    } finally {
      await noKyc.close();
    }
  });

  test('a SEP-12 refusal does not stop the ramp (the interactive flow collects the details)', async () => {
    const call = userCall(anchor.domain);
    const request = usdcRequest('on', '100', 'fiat');
    const ramp = storedRamp(request, await quote(call, request));
    anchor.answerNext({ path: '/kyc/customer', status: 400, body: { error: 'email_address is not accepted' } });
    assert.equal((await sep24.start(deps, call, ramp)).status, 'pending_kyc');
  });
});

describe('SEP-24 provider configuration', () => {
  test('a stellar.toml for another network is a not_configured refusal', async () => {
    const mainnetAnchor = await startLocalAnchor({ networkPassphrase: Networks.PUBLIC });
    try {
      await assert.rejects(
        sep24.routes(deps, userCall(mainnetAnchor.domain), [mainnetAnchor.asset('USDC')]),
        refusal('not_configured'),
      );
    } finally {
      await mainnetAnchor.close();
    }
  });

  test('no anchorDomain, a malformed one, or a domain without a stellar.toml: not_configured', async () => {
    const anchor = await startLocalAnchor();
    try {
      const withCredentials = (credentials: Record<string, string>) => ({ ...userCall(anchor.domain), credentials });
      await assert.rejects(sep24.routes(deps, withCredentials({}), []), refusal('not_configured'));
      for (const anchorDomain of ['https://testanchor.stellar.org', 'anchor.example/path', 'user@anchor.example'])
        await assert.rejects(sep24.routes(deps, withCredentials({ anchorDomain }), []), refusal('not_configured'));
      anchor.answerNext({ path: '/.well-known/stellar.toml', status: 404, body: 'not found' });
      await assert.rejects(sep24.routes(deps, userCall(anchor.domain), []), refusal('not_configured'));
    } finally {
      await anchor.close();
    }
  });

  test('an anchor on loopback is refused (UpstreamFailure) unless RAMPS_ALLOW_INSECURE; never fetched', async () => {
    const anchor = await startLocalAnchor();
    try {
      const strict = depsWith(false);
      const port = anchor.domain.split(':')[1]!;
      for (const anchorDomain of [anchor.domain, `localhost:${port}`])
        await assert.rejects(sep24.routes(strict, userCall(anchorDomain), [anchor.asset('USDC')]), (err) => {
          assert.ok(err instanceof UpstreamFailure, String(err));
          assert.match(err.reason, /loopback|127\.0\.0\.1|::1/);
          return true;
        });
      assert.equal(anchor.requests.length, 0);
      // the same domain with the development setting is the local anchor, over http
      assert.equal((await sep24.routes(deps, userCall(`localhost:${port}`), [anchor.asset('USDC')])).length, 2);
    } finally {
      await anchor.close();
    }
  });
});
