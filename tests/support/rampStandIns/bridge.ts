// A local stand-in of Bridge's API (apidocs.bridge.xyz) for the Bridge ramp adapter's tests: an Express 5 app on
// 127.0.0.1 with the endpoints the adapter calls, their documented paths, fields and states, and the Api-Key check.
// KYC links, external accounts, exchange rates and transfers live in memory; Idempotency-Key is required on POSTs and
// a repeated key answers the first result, as Bridge does. Webhooks are signed as Bridge signs them: X-Webhook-Signature
// `t=<ms>,v0=<base64>`, the signature (key pair made by the test) over the SHA-256 digest of `<t>.<raw body>`.
//
// Test controls: setKyc (a user's ToS/KYC status), addExternalAccount, setRate, setTransferState, failNext(n) (answer
// 500), answerNext (a given status and body, for hostile answers), `requests` (what the adapter sent), close().
import { createHash, randomBytes, sign, type KeyObject } from 'node:crypto';
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

export interface StandInKycLink {
  id: string;
  full_name: string | null;
  email: string;
  type: 'individual' | 'business';
  kyc_link: string;
  tos_link: string;
  kyc_status: string;
  rejection_reasons: unknown[];
  tos_status: 'pending' | 'approved';
  customer_id: string;
  created_at: string;
}

export interface StandInTransfer {
  id: string;
  state: string;
  on_behalf_of: string;
  amount: string;
  developer_fee_percent?: string;
  source: Record<string, string>;
  destination: Record<string, string>;
  source_deposit_instructions: Record<string, string>;
  receipt: Record<string, string | null>;
  created_at: string;
  updated_at: string;
}

export interface SignedWebhook {
  headers: Record<string, string>;
  rawBody: Buffer;
}

export interface BridgeStandIn {
  url: string;
  requests: RecordedRequest[];
  transfers: Map<string, StandInTransfer>;
  /** Bridge's Stellar deposit address for off-ramps. */
  readonly depositAddress: string;
  /** The deposit address of later off-ramp transfers: an account of the network the test runs on. */
  setDepositAddress(address: string): void;
  /** The user's link's ToS and KYC status (created with not_started/pending when the user has none yet). */
  setKyc(email: string, status: { kyc_status: string; tos_status?: 'pending' | 'approved' }): StandInKycLink;
  addExternalAccount(customerId: string, currency: 'usd' | 'eur', active?: boolean): string;
  setRate(to: string, rate: { midmarket_rate: string; buy_rate: string; sell_rate: string }): void;
  setTransferState(id: string, state: string, receipt?: Record<string, string | null>): void;
  failNext(n: number): void;
  /** The next request is answered with this status and body (a string is sent as is). */
  answerNext(status: number, body: unknown): void;
  /** A transfer event as Bridge sends it (event_category transfer). */
  transferEvent(id: string): Record<string, unknown>;
  /** The headers and raw body Bridge would deliver for `event`, signed at `timestampMs` (default now). */
  signWebhook(event: unknown, options?: { timestampMs?: number; privateKey?: KeyObject }): SignedWebhook;
  /** POSTs `event` to `url`, signed like Bridge. */
  sendWebhook(url: string, event: unknown, options?: { timestampMs?: number }): Promise<number>;
  close(): Promise<void>;
}

export async function startBridgeStandIn(options: {
  apiKey: string;
  webhookPrivateKey: KeyObject;
  /** Bridge's Stellar deposit address (default a random account, which exists on no network). */
  depositAddress?: string;
}): Promise<BridgeStandIn> {
  const requests: RecordedRequest[] = [];
  const links = new Map<string, StandInKycLink>();
  const accounts = new Map<string, { id: string; currency: string; active: boolean }[]>();
  const rates = new Map<string, { midmarket_rate: string; buy_rate: string; sell_rate: string }>();
  const transfers = new Map<string, StandInTransfer>();
  const idempotent = new Map<string, unknown>();
  let depositAddress = options.depositAddress ?? Keypair.random().publicKey();
  const overrides: { status: number; body: unknown }[] = [];
  let failures = 0;
  let counter = 0;
  const nextId = (prefix: string) =>
    `${prefix}_${(++counter).toString().padStart(4, '0')}${randomBytes(3).toString('hex')}`;
  const now = () => new Date().toISOString();

  const linkFor = (email: string): StandInKycLink => {
    const existing = links.get(email.toLowerCase());
    if (existing) return existing;
    const id = nextId('kyc_link');
    const link: StandInKycLink = {
      id,
      full_name: null,
      email,
      type: 'individual',
      kyc_link: `https://kyc.bridge-stand-in.test/verify?reference-id=${id}`,
      tos_link: `https://tos.bridge-stand-in.test/accept-terms-of-service?session_token=${id}`,
      kyc_status: 'not_started',
      rejection_reasons: [],
      tos_status: 'pending',
      customer_id: nextId('cust'),
      created_at: now(),
    };
    links.set(email.toLowerCase(), link);
    return link;
  };

  const app = express();
  app.use(express.json());
  app.use((req: Request, res: Response, next: NextFunction) => {
    requests.push({ method: req.method, path: req.originalUrl, headers: req.headers, body: req.body as unknown });
    if (failures > 0) {
      failures -= 1;
      res.status(500).json({ code: 'internal_error', message: 'stand-in failure' });
      return;
    }
    const override = overrides.shift();
    if (override) {
      res.status(override.status);
      if (typeof override.body === 'string') res.type('application/json').send(override.body);
      else res.json(override.body);
      return;
    }
    if (req.headers['api-key'] !== options.apiKey) {
      res.status(401).json({ code: 'unauthorized', message: 'Invalid API key' });
      return;
    }
    // Bridge requires an Idempotency-Key on POSTs and answers a repeated key with the first result.
    if (req.method === 'POST') {
      const key = req.headers['idempotency-key'];
      if (typeof key !== 'string' || key === '') {
        res.status(400).json({ code: 'missing_idempotency_key', message: 'Idempotency-Key is required' });
        return;
      }
      const seen = idempotent.get(`${req.path}:${key}`);
      if (seen) {
        res.status(201).json(seen);
        return;
      }
    }
    next();
  });
  const remember = (req: Request, body: unknown) =>
    idempotent.set(`${req.path}:${String(req.headers['idempotency-key'])}`, body);

  app.get('/v0/kyc_links', (req, res) => {
    const email = typeof req.query.email === 'string' ? req.query.email.toLowerCase() : undefined;
    const data = [...links.values()].filter((l) => !email || l.email.toLowerCase() === email);
    res.json({ count: data.length, data });
  });
  app.post('/v0/kyc_links', (req, res) => {
    const body = req.body as { email?: unknown; type?: unknown };
    if (typeof body.email !== 'string' || (body.type !== 'individual' && body.type !== 'business')) {
      res.status(400).json({ code: 'invalid_parameters', message: 'email and type are required' });
      return;
    }
    const link = linkFor(body.email);
    remember(req, link);
    res.status(201).json(link);
  });
  app.get('/v0/kyc_links/:id', (req, res) => {
    const link = [...links.values()].find((l) => l.id === req.params.id);
    if (!link) res.status(404).json({ code: 'not_found', message: 'KYC link not found' });
    else res.json(link);
  });
  app.get('/v0/exchange_rates', (req, res) => {
    const { from, to } = req.query;
    const rate = typeof from === 'string' && typeof to === 'string' ? rates.get(`${from}:${to}`) : undefined;
    if (!rate) res.status(400).json({ code: 'invalid_currency_pair', message: 'Unsupported currency pair' });
    else res.json({ ...rate, updated_at: now() });
  });
  app.get('/v0/customers/:customerId/external_accounts', (req, res) => {
    const data = (accounts.get(req.params.customerId) ?? []).map((a) => ({
      ...a,
      customer_id: req.params.customerId,
      account_type: a.currency === 'eur' ? 'iban' : 'us',
      account_owner_name: 'Stand-in Customer',
      last_4: '0000',
    }));
    res.json({ count: data.length, data });
  });
  app.post('/v0/transfers', (req, res) => {
    const refusal = transferRefusal(req.body as TransferRequest, links);
    if (refusal) {
      res.status(400).json({ code: 'invalid_parameters', message: refusal });
      return;
    }
    const body = req.body as TransferRequest;
    const transfer: StandInTransfer = {
      id: nextId('transfer'),
      state: 'awaiting_funds',
      on_behalf_of: body.on_behalf_of!,
      amount: body.amount!,
      ...(body.developer_fee_percent ? { developer_fee_percent: body.developer_fee_percent } : {}),
      source: body.source!,
      destination: body.destination!,
      source_deposit_instructions: depositInstructionsFor(body, depositAddress, nextId('BRG').replace('_', '')),
      receipt: { initial_amount: body.amount!, developer_fee: '0.0', exchange_fee: '0.0', destination_tx_hash: null },
      created_at: now(),
      updated_at: now(),
    };
    transfers.set(transfer.id, transfer);
    remember(req, transfer);
    res.status(201).json(transfer);
  });
  app.get('/v0/transfers/:id', (req, res) => {
    const transfer = transfers.get(req.params.id);
    if (!transfer) res.status(404).json({ code: 'not_found', message: 'Transfer not found' });
    else res.json(transfer);
  });

  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;

  const signWebhook = (event: unknown, opts: { timestampMs?: number; privateKey?: KeyObject } = {}): SignedWebhook => {
    const rawBody = Buffer.from(JSON.stringify(event));
    const timestamp = String(opts.timestampMs ?? Date.now());
    const digest = createHash('sha256').update(`${timestamp}.`).update(rawBody).digest();
    const signature = sign('sha256', digest, opts.privateKey ?? options.webhookPrivateKey).toString('base64');
    return {
      headers: { 'content-type': 'application/json', 'x-webhook-signature': `t=${timestamp},v0=${signature}` },
      rawBody,
    };
  };

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    transfers,
    get depositAddress() {
      return depositAddress;
    },
    setDepositAddress(address) {
      depositAddress = address;
    },
    setKyc(email, status) {
      const link = linkFor(email);
      link.kyc_status = status.kyc_status;
      if (status.tos_status) link.tos_status = status.tos_status;
      return link;
    },
    addExternalAccount(customerId, currency, active = true) {
      const id = nextId('external_account');
      accounts.set(customerId, [...(accounts.get(customerId) ?? []), { id, currency, active }]);
      return id;
    },
    setRate(to, rate) {
      rates.set(`usd:${to}`, rate);
    },
    setTransferState(id, state, receipt) {
      const transfer = transfers.get(id);
      if (!transfer) throw new Error(`no stand-in transfer ${id}`);
      transfer.state = state;
      transfer.updated_at = now();
      if (receipt) transfer.receipt = { ...transfer.receipt, ...receipt };
    },
    failNext(n) {
      failures = n;
    },
    answerNext(status, body) {
      overrides.push({ status, body });
    },
    transferEvent(id) {
      const transfer = transfers.get(id);
      if (!transfer) throw new Error(`no stand-in transfer ${id}`);
      return {
        api_version: 'v0',
        event_id: `wh_${randomBytes(8).toString('hex')}`,
        event_developer_id: 'dev_stand_in',
        event_category: 'transfer',
        event_type: 'transfer.updated.status_transitioned',
        event_object_id: transfer.id,
        event_object_status: transfer.state,
        event_object: transfer,
        event_object_changes: {},
        event_created_at: now(),
      };
    },
    signWebhook,
    async sendWebhook(url, event, opts = {}) {
      const signed = signWebhook(event, opts);
      const answer = await fetch(url, {
        method: 'POST',
        headers: signed.headers,
        body: new Uint8Array(signed.rawBody),
      });
      return answer.status;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

interface TransferRequest {
  amount?: string;
  on_behalf_of?: string;
  developer_fee_percent?: string;
  source?: Record<string, string>;
  destination?: Record<string, string>;
}

/** Bridge's validations the adapter depends on: an approved customer, a decimal amount, known rails. */
function transferRefusal(body: TransferRequest, links: Map<string, StandInKycLink>): string | undefined {
  const customer = [...links.values()].find((l) => l.customer_id === body.on_behalf_of);
  if (!customer || customer.kyc_status !== 'approved' || customer.tos_status !== 'approved')
    return 'on_behalf_of is not an approved customer';
  if (typeof body.amount !== 'string' || !/^\d+(\.\d+)?$/.test(body.amount)) return 'amount must be a decimal string';
  if (!body.source?.payment_rail || !body.destination?.payment_rail) return 'source and destination are required';
  if (body.destination.payment_rail === 'stellar' && !/^G[A-Z2-7]{55}$/.test(body.destination.to_address ?? ''))
    return 'destination.to_address is not a Stellar address';
  if (body.source.payment_rail === 'stellar' && !body.destination.external_account_id)
    return 'destination.external_account_id is required';
  return undefined;
}

/** Bank details for a fiat source (ACH push, SEPA), an address and blockchain_memo for Stellar, as documented. */
function depositInstructionsFor(
  body: TransferRequest,
  depositAddress: string,
  message: string,
): Record<string, string> {
  const source = body.source!;
  const common = { payment_rail: source.payment_rail!, amount: body.amount!, currency: source.currency! };
  if (source.payment_rail === 'stellar')
    return { ...common, from_address: source.from_address ?? '', to_address: depositAddress, blockchain_memo: message };
  if (source.payment_rail === 'sepa')
    return {
      ...common,
      deposit_message: message,
      iban: 'DE89370400440532013000',
      bic: 'COBADEFFXXX',
      account_holder_name: 'Bridge Stand-in Holder',
      bank_name: 'Stand-in Bank EU',
      bank_address: '1 Example Strasse, Berlin',
    };
  return {
    ...common,
    deposit_message: message,
    bank_name: 'Stand-in Bank',
    bank_address: '1 Example St., Kansas City, MO',
    bank_routing_number: '101019644',
    bank_account_number: '900000000001',
    bank_beneficiary_name: 'Bridge Stand-in Beneficiary',
    bank_beneficiary_address: '1 Example Ave, San Francisco, CA',
  };
}
