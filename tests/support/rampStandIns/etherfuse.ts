// A local stand-in of Etherfuse's ramp API (docs.etherfuse.com API reference) for the Etherfuse adapter's tests: an
// Express 5 app on 127.0.0.1 with the endpoints the adapter calls (onboarding URL, KYC status, quote, order create and
// read), their documented paths, fields and statuses, and the Authorization check (the bare key; a Bearer prefix is
// refused, as documented). Quotes expire after 2 minutes and an order id can be used once (409), as documented.
// Webhooks are signed as Etherfuse signs them: X-Signature `sha256=<hex>`, HMAC-SHA256 under the base64-decoded
// secret of the RFC 8785-canonicalized body (the body itself is sent pretty-printed, keys in another order, to prove
// the receiver canonicalizes).
//
// Test controls: setKycStatus (by wallet), setRate, setOrderStatus, failNext(n) (answer 500), answerNext (a given
// status and body, for hostile answers), `requests` (what the adapter sent), `orders`, close().
import { createHmac, randomBytes, randomInt } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import { Keypair } from '@stellar/stellar-sdk';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

export type StandInOrder = Record<string, unknown> & { orderId: string; status: string; orderType: string };

export interface EtherfuseStandIn {
  url: string;
  requests: RecordedRequest[];
  orders: Map<string, StandInOrder>;
  /** Etherfuse's Stellar anchor account (where anchor-mode off-ramps are paid). */
  readonly anchorAccount: string;
  /**
   * Where later anchor-mode orders are paid: an account of the network the test runs on (e.g. the demo USDC issuer,
   * which burns what it receives), for off-ramps that really settle.
   */
  setAnchorAccount(address: string): void;
  setKycStatus(wallet: string, status: string): void;
  /** MXN per USDC before fees, and the fee in basis points (defaults 17.50 and 20). */
  setRate(mxnPerUsdc: string, feeBps?: number): void;
  setOrderStatus(orderId: string, status: string, extra?: Record<string, unknown>): void;
  failNext(n: number): void;
  answerNext(status: number, body: unknown): void;
  /** The order_updated event as Etherfuse sends it. */
  orderEvent(orderId: string): Record<string, unknown>;
  signWebhook(event: unknown, secret?: string): { headers: Record<string, string>; rawBody: Buffer };
  sendWebhook(url: string, event: unknown): Promise<number>;
  close(): Promise<void>;
}

const QUOTE_TTL_MS = 2 * 60_000;
const UNIT = 10_000_000n;
const CENT = 100_000n;

export async function startEtherfuseStandIn(options: {
  apiKey: string;
  webhookSecret: string;
  /** Etherfuse's Stellar anchor account (default a random account, which exists on no network). */
  anchorAccount?: string;
}): Promise<EtherfuseStandIn> {
  const requests: RecordedRequest[] = [];
  const kycByWallet = new Map<string, string>();
  const onboarded = new Map<string, { wallet: string; bankAccountId: string }>();
  const quotes = new Map<
    string,
    { body: Record<string, unknown>; expiresAt: number; source: string; destination: string }
  >();
  const orders = new Map<string, StandInOrder>();
  const overrides: { status: number; body: unknown }[] = [];
  let anchorAccount = options.anchorAccount ?? Keypair.random().publicKey();
  let failures = 0;
  let rate = { mxnPerUsdc: '17.50', feeBps: 20n };

  const app = express();
  app.use(express.json());
  app.use((req: Request, res: Response, next: NextFunction) => {
    requests.push({ method: req.method, path: req.originalUrl, headers: req.headers, body: req.body as unknown });
    if (failures > 0) {
      failures -= 1;
      res.status(500).json({ error: 'stand-in failure' });
      return;
    }
    const override = overrides.shift();
    if (override) {
      res.status(override.status);
      if (typeof override.body === 'string') res.type('application/json').send(override.body);
      else res.json(override.body);
      return;
    }
    if (req.headers.authorization !== options.apiKey) {
      res.status(401).json({ error: 'Unauthorized' });
      return;
    }
    next();
  });

  app.post('/ramp/onboarding-url', (req, res) => {
    const body = req.body as { customerId?: string; bankAccountId?: string; publicKey?: string; blockchain?: string };
    if (!body.customerId || !body.bankAccountId || !body.publicKey || !body.blockchain) {
      res.status(400).json({ error: 'customerId, bankAccountId, publicKey and blockchain are required' });
      return;
    }
    onboarded.set(body.customerId, { wallet: body.publicKey, bankAccountId: body.bankAccountId });
    if (!kycByWallet.has(body.publicKey)) kycByWallet.set(body.publicKey, 'not_started');
    res.json({
      presigned_url: `https://onboarding.etherfuse-stand-in.test/onboarding?token=${randomBytes(12).toString('hex')}`,
    });
  });

  app.get('/ramp/customer/:customerId/kyc/:pubkey', (req, res) => {
    const status = kycByWallet.get(req.params.pubkey);
    if (!status) {
      res.status(404).json({ error: 'Proxy account not found' });
      return;
    }
    const record = onboarded.get(req.params.customerId);
    if (!record) onboarded.set(req.params.customerId, { wallet: req.params.pubkey, bankAccountId: '' });
    res.json({
      customerId: req.params.customerId,
      walletPublicKey: req.params.pubkey,
      status,
      needsWork: false,
      selfies: [],
      documents: [],
      currentKycInfo: {},
      currentRejectionReason: null,
      approvedAt: status === 'approved' ? new Date().toISOString() : null,
    });
  });

  app.post('/ramp/quote', (req, res) => {
    const body = req.body as {
      quoteId?: string;
      customerId?: string;
      blockchain?: string;
      quoteAssets?: { type?: string; sourceAsset?: string; targetAsset?: string };
      sourceAmount?: string;
    };
    const customer = body.customerId ? onboarded.get(body.customerId) : undefined;
    if (!customer || kycByWallet.get(customer.wallet) !== 'approved') {
      res.status(404).json({ error: 'Proxy account not found' });
      return;
    }
    const type = body.quoteAssets?.type;
    if (!body.quoteId || body.blockchain !== 'stellar' || (type !== 'onramp' && type !== 'offramp')) {
      res.status(400).json({ error: 'Invalid quote request' });
      return;
    }
    const source = parseUnits(body.sourceAmount ?? '');
    if (source === undefined || source <= 0n) {
      res.status(400).json({ error: 'sourceAmount must be a positive decimal string' });
      return;
    }
    const perUsdc = parseUnits(rate.mxnPerUsdc)!;
    const fee = (source * rate.feeBps) / 10_000n;
    const destination =
      type === 'onramp' ? ((source - fee) * UNIT) / perUsdc : (((source - fee) * perUsdc) / UNIT / CENT) * CENT;
    const now = Date.now();
    const answer = {
      quoteId: body.quoteId,
      blockchain: 'stellar',
      customerId: body.customerId,
      quoteAssets: body.quoteAssets,
      sourceAmount: body.sourceAmount,
      destinationAmount: formatUnits(destination),
      exchangeRate: rate.mxnPerUsdc,
      feeBps: rate.feeBps.toString(),
      feeAmount: formatUnits(fee),
      createdAt: new Date(now).toISOString(),
      updatedAt: new Date(now).toISOString(),
      expiresAt: new Date(now + QUOTE_TTL_MS).toISOString(),
    };
    quotes.set(body.quoteId, {
      body: answer,
      expiresAt: now + QUOTE_TTL_MS,
      source: answer.sourceAmount!,
      destination: answer.destinationAmount,
    });
    res.json(answer);
  });

  app.post('/ramp/order', (req, res) => {
    const body = req.body as {
      orderId?: string;
      bankAccountId?: string;
      publicKey?: string;
      quoteId?: string;
      useAnchor?: boolean;
    };
    const quote = body.quoteId ? quotes.get(body.quoteId) : undefined;
    if (!quote || quote.expiresAt < Date.now()) {
      res.status(400).json({ error: 'Quote not found or expired' });
      return;
    }
    if (!body.orderId || !body.bankAccountId || !body.publicKey) {
      res.status(400).json({ error: 'orderId, bankAccountId and publicKey are required' });
      return;
    }
    if (orders.has(body.orderId)) {
      res.status(409).json({ error: 'An order with this transaction ID already exists' });
      return;
    }
    const assets = quote.body.quoteAssets as { type: string; sourceAsset: string; targetAsset: string };
    const onramp = assets.type === 'onramp';
    const order: StandInOrder = {
      orderId: body.orderId,
      customerId: quote.body.customerId,
      bankAccountId: body.bankAccountId,
      walletId: randomUuid(),
      blockchain: 'stellar',
      orderType: onramp ? 'onramp' : 'offramp',
      status: 'created',
      amountInFiat: onramp ? quote.source : quote.destination,
      amountInTokens: onramp ? quote.destination : quote.source,
      sourceAsset: assets.sourceAsset,
      targetAsset: assets.targetAsset,
      exchangeRate: rate.mxnPerUsdc,
      feeBps: Number(rate.feeBps),
      statusPage: `https://pay.etherfuse-stand-in.test/order/${body.orderId}`,
      createdAt: new Date().toISOString(),
      updatedAt: new Date().toISOString(),
      ...(onramp
        ? {
            depositClabe: `646180${randomInt(0, 1_000_000).toString().padStart(6, '0')}${randomInt(0, 1_000_000).toString().padStart(6, '0')}`,
            depositBankName: 'STP',
            depositAccountHolder: 'Etherfuse MX',
          }
        : body.useAnchor
          ? {
              isAnchorOrder: true,
              withdrawAnchorAccount: anchorAccount,
              withdrawMemo: randomBytes(32).toString('hex'),
              withdrawMemoType: 'hash',
            }
          : { burnTransaction: 'AAAA-stand-in-unsigned-xdr' }),
    };
    orders.set(body.orderId, order);
    // The created order, keyed by its direction; depositAmount is a number, as the reference shows it.
    res.json(
      onramp
        ? { onramp: { orderId: order.orderId, depositClabe: order.depositClabe, depositAmount: Number(quote.source) } }
        : {
            offramp: {
              orderId: order.orderId,
              withdrawAnchorAccount: order.withdrawAnchorAccount,
              withdrawMemo: order.withdrawMemo,
              withdrawMemoType: order.withdrawMemoType,
            },
          },
    );
  });

  app.get('/ramp/order/:orderId', (req, res) => {
    const order = orders.get(req.params.orderId);
    if (!order) res.status(404).json({ error: 'Order not found' });
    else res.json(order);
  });

  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;

  const signWebhook = (event: unknown, secret = options.webhookSecret) => {
    const signature = createHmac('sha256', Buffer.from(secret, 'base64')).update(jcs(event)).digest('hex');
    // Sent with its keys reversed and indented: the signature covers the canonical form, not these bytes.
    const rawBody = Buffer.from(JSON.stringify(reverseKeys(event), null, 2));
    return { headers: { 'content-type': 'application/json', 'x-signature': `sha256=${signature}` }, rawBody };
  };

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    orders,
    get anchorAccount() {
      return anchorAccount;
    },
    setAnchorAccount(address) {
      anchorAccount = address;
    },
    setKycStatus(wallet, status) {
      kycByWallet.set(wallet, status);
    },
    setRate(mxnPerUsdc, feeBps = 20) {
      rate = { mxnPerUsdc, feeBps: BigInt(feeBps) };
    },
    setOrderStatus(orderId, status, extra = {}) {
      const order = orders.get(orderId);
      if (!order) throw new Error(`no stand-in order ${orderId}`);
      Object.assign(order, extra, { status, updatedAt: new Date().toISOString() });
    },
    failNext(n) {
      failures = n;
    },
    answerNext(status, body) {
      overrides.push({ status, body });
    },
    orderEvent(orderId) {
      const order = orders.get(orderId);
      if (!order) throw new Error(`no stand-in order ${orderId}`);
      return { order_updated: { ...order } };
    },
    signWebhook,
    async sendWebhook(url, event) {
      const signed = signWebhook(event);
      return (await fetch(url, { method: 'POST', headers: signed.headers, body: new Uint8Array(signed.rawBody) }))
        .status;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** RFC 8785 canonical JSON, written here from the RFC (not shared with the adapter: the two check each other). */
function jcs(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(jcs).join(',')}]`;
  const record = value as Record<string, unknown>;
  return `{${Object.keys(record)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${jcs(record[k])}`)
    .join(',')}}`;
}

function reverseKeys(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(reverseKeys);
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>)
      .reverse()
      .map(([k, v]) => [k, reverseKeys(v)]),
  );
}

function parseUnits(value: string): bigint | undefined {
  const match = /^(\d+)(?:\.(\d{1,7}))?$/.exec(value);
  if (!match) return undefined;
  return BigInt(match[1]!) * UNIT + BigInt((match[2] ?? '').padEnd(7, '0'));
}

function formatUnits(units: bigint): string {
  const fraction = (units % UNIT).toString().padStart(7, '0').replace(/0+$/, '');
  return `${units / UNIT}${fraction ? `.${fraction}` : ''}`;
}

function randomUuid(): string {
  const hex = randomBytes(16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20)}`;
}
