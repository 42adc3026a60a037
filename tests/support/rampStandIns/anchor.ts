// A local SEP-24 anchor for the ramp tests, on a free port of 127.0.0.1 (its domain is `127.0.0.1:PORT`). It speaks
// the protocols as a real anchor does, so the adapter is tested against behaviour rather than canned answers:
// - SEP-1: /.well-known/stellar.toml naming its servers, SIGNING_KEY, NETWORK_PASSPHRASE and [[CURRENCIES]];
// - SEP-10: real challenges (WebAuth.buildChallengeTx on testnet, home and web-auth domain its own domain), a signed
//   answer checked with readChallengeTx and verifyChallengeTxSigners against the client account's master key (what
//   SEP-10 asks of an account that may not exist), and a JWT (HS256, a random secret) for the other endpoints;
// - SEP-12: PUT and GET /kyc/customer, per authenticated account;
// - SEP-24: /sep24/info from the configured terms, the interactive deposit and withdrawal (a transaction `incomplete`
//   and a page url), GET /sep24/transaction(s) for the authenticated account only.
// Transactions move through SEP-24's states: the interactive page's form (or a test's `setStatus`) takes one on; a
// final status never changes again, nothing goes back to `incomplete`, and withdrawal-only or deposit-only statuses
// stay with their kind. Moving a withdrawal to `pending_user_transfer_start` assigns the account and id memo to pay.
//
// Test controls: `setStatus(id, status, fields?)` (fields override what the anchor answers, hostile values included),
// `failNext(n)` (500 for the next n requests), `answerNext(...)` (one raw answer), and `transactions`, `customers`
// and `requests` to inspect.
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import { jwtVerify, SignJWT } from 'jose';
import { Keypair, Networks, StrKey, WebAuth } from '@stellar/stellar-sdk';

/** One direction of one asset in /info, as SEP-24 writes it (numbers or decimal strings, as the test chooses). */
export interface AnchorTerms {
  enabled: boolean;
  min_amount?: number | string;
  max_amount?: number | string;
  fee_fixed?: number | string;
  fee_percent?: number | string;
  fee_minimum?: number | string;
}

export interface AnchorAssetConfig {
  code: string;
  deposit?: AnchorTerms;
  withdraw?: AnchorTerms;
  /** The toml's `anchor_asset` (fiat) for it; none when absent. */
  fiat?: string;
  /** Issued by another account than the anchor's issuer (the toml lists that one). */
  issuer?: string;
}

export interface AnchorOptions {
  assets?: AnchorAssetConfig[];
  /** The toml's NETWORK_PASSPHRASE (default testnet); challenges are always testnet's. */
  networkPassphrase?: string;
  /** Publish KYC_SERVER (default true). */
  kycServer?: boolean;
  /** The issuer of the configured assets (default a random account): a real one for ramps that settle on localnet. */
  issuer?: string;
  /** Where withdrawals are paid (default a random account): the issuer burns what it receives. */
  distributionAccount?: string;
}

export type AnchorStatus =
  | 'incomplete'
  | 'pending_user_transfer_start'
  | 'pending_user_transfer_complete'
  | 'pending_external'
  | 'pending_anchor'
  | 'on_hold'
  | 'pending_stellar'
  | 'pending_trust'
  | 'pending_user'
  | 'completed'
  | 'refunded'
  | 'expired'
  | 'no_market'
  | 'too_small'
  | 'too_large'
  | 'error';

const FINAL: readonly AnchorStatus[] = [
  'completed',
  'refunded',
  'expired',
  'no_market',
  'too_small',
  'too_large',
  'error',
];

/** A transaction as the anchor keeps it: its SEP-24 fields, whose it is, and what a test forced into the answer. */
export interface AnchorTransaction {
  id: string;
  kind: 'deposit' | 'withdrawal';
  status: AnchorStatus;
  /** The authenticated account (JWT sub) it belongs to. */
  owner: string;
  fields: Record<string, unknown>;
  /** Merged over `fields` in every answer (setStatus's `fields`). */
  overrides: Record<string, unknown>;
}

export interface RawAnswer {
  /** Only a request to this path (e.g. `/sep24/transaction`); any request when absent. */
  path?: string;
  status?: number;
  /** A string is sent as is (with `contentType`), anything else as JSON. */
  body: unknown;
  contentType?: string;
}

export interface LocalAnchor {
  /** `127.0.0.1:PORT`: the app's anchorDomain. */
  domain: string;
  /** `http://127.0.0.1:PORT`. */
  url: string;
  signingKey: string;
  /** The account that issues the configured assets. */
  issuer: string;
  /** Where withdrawals are paid (withdraw_anchor_account). */
  distributionAccount: string;
  /** `CODE:ISSUER` of a configured asset. */
  asset(code: string): string;
  transactions: Map<string, AnchorTransaction>;
  /** SEP-12 fields by account. */
  customers: Map<string, Record<string, string>>;
  requests: { method: string; path: string }[];
  setStatus(id: string, status: AnchorStatus, fields?: Record<string, unknown>): void;
  failNext(n: number): void;
  answerNext(answer: RawAnswer): void;
  close(): Promise<void>;
}

export const DEFAULT_ANCHOR_ASSETS: AnchorAssetConfig[] = [
  {
    code: 'USDC',
    deposit: { enabled: true, fee_fixed: 1, fee_percent: 1.5, min_amount: 10, max_amount: 1000 },
    withdraw: { enabled: true, fee_fixed: '0.5', min_amount: '5', max_amount: '500' },
  },
];

export async function startLocalAnchor(options: AnchorOptions = {}): Promise<LocalAnchor> {
  const assets = options.assets ?? DEFAULT_ANCHOR_ASSETS;
  const signing = Keypair.random();
  const issuer = options.issuer ?? Keypair.random().publicKey();
  const distributionAccount = options.distributionAccount ?? Keypair.random().publicKey();
  const jwtSecret = randomBytes(32);
  const transactions = new Map<string, AnchorTransaction>();
  const customers = new Map<string, Record<string, string>>();
  const requests: { method: string; path: string }[] = [];
  const rawAnswers: RawAnswer[] = [];
  let failures = 0;
  let memoCounter = 1000n;
  let domain = '';
  let base = '';
  const issuerOf = (a: AnchorAssetConfig) => a.issuer ?? issuer;

  const app = express();
  app.disable('x-powered-by');
  app.use((req: Request, res: Response, next: NextFunction) => {
    requests.push({ method: req.method, path: req.path });
    res.set('access-control-allow-origin', '*');
    if (failures > 0) {
      failures--;
      res.status(500).json({ error: 'the anchor failed (failNext)' });
      return;
    }
    const raw = rawAnswers.findIndex((a) => a.path === undefined || a.path === req.path);
    if (raw >= 0) {
      const [answer] = rawAnswers.splice(raw, 1);
      res.status(answer!.status ?? 200);
      if (typeof answer!.body === 'string') res.type(answer!.contentType ?? 'text/plain').send(answer!.body);
      else res.json(answer!.body);
      return;
    }
    next();
  });
  app.use(express.json());
  app.use(express.urlencoded({ extended: false }));

  // SEP-1
  app.get('/.well-known/stellar.toml', (_req, res) => {
    const currencies = assets.map(
      (a) =>
        `[[CURRENCIES]]\ncode = "${a.code}"\nissuer = "${issuerOf(a)}"\nis_asset_anchored = true\n` +
        (a.fiat ? `anchor_asset_type = "fiat"\nanchor_asset = "${a.fiat}"\n` : ''),
    );
    res
      .type('text/plain')
      .send(
        [
          `NETWORK_PASSPHRASE = "${options.networkPassphrase ?? Networks.TESTNET}"`,
          `SIGNING_KEY = "${signing.publicKey()}"`,
          `WEB_AUTH_ENDPOINT = "${base}/auth"`,
          `TRANSFER_SERVER_SEP0024 = "${base}/sep24"`,
          ...(options.kycServer === false ? [] : [`KYC_SERVER = "${base}/kyc"`]),
          '',
          ...currencies,
        ].join('\n'),
      );
  });

  // SEP-10
  app.get('/auth', (req, res) => {
    const account = typeof req.query.account === 'string' ? req.query.account : '';
    if (!StrKey.isValidEd25519PublicKey(account))
      return void res.status(400).json({ error: 'account is not a G-address' });
    if (req.query.home_domain !== undefined && req.query.home_domain !== domain)
      return void res.status(400).json({ error: `home_domain must be ${domain}` });
    const transaction = WebAuth.buildChallengeTx(signing, account, domain, 300, Networks.TESTNET, domain);
    res.json({ transaction, network_passphrase: Networks.TESTNET });
  });
  app.post('/auth', async (req, res) => {
    const body = req.body as Record<string, unknown> | undefined;
    const transaction = typeof body?.transaction === 'string' ? body.transaction : '';
    let account: string;
    try {
      const { clientAccountID } = WebAuth.readChallengeTx(
        transaction,
        signing.publicKey(),
        Networks.TESTNET,
        domain,
        domain,
      );
      // An account this anchor does not look up on the ledger: its master key is its only signer (SEP-10).
      WebAuth.verifyChallengeTxSigners(
        transaction,
        signing.publicKey(),
        Networks.TESTNET,
        [clientAccountID],
        domain,
        domain,
      );
      account = clientAccountID;
    } catch (err) {
      return void res.status(400).json({ error: `challenge refused: ${(err as Error).message}` });
    }
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(`${base}/auth`)
      .setSubject(account)
      .setIssuedAt()
      .setExpirationTime('1h')
      .setJti(randomUUID())
      .sign(jwtSecret);
    res.json({ token });
  });

  /** The JWT's account, or a 403 answered (SEP-24's authentication_required). */
  async function authenticated(req: Request, res: Response): Promise<string | undefined> {
    const header = req.get('authorization') ?? '';
    const token = header.startsWith('Bearer ') ? header.slice('Bearer '.length) : '';
    try {
      const { payload } = await jwtVerify(token, jwtSecret, { issuer: `${base}/auth`, algorithms: ['HS256'] });
      if (typeof payload.sub === 'string') return payload.sub;
    } catch {
      // answered below
    }
    res.status(403).json({ type: 'authentication_required' });
    return undefined;
  }

  // SEP-12
  app.put('/kyc/customer', async (req, res) => {
    const account = await authenticated(req, res);
    if (!account) return;
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (body.account !== undefined && body.account !== account)
      return void res.status(403).json({ error: 'account is not the authenticated one' });
    const stored = customers.get(account) ?? {};
    for (const [key, value] of Object.entries(body))
      if (typeof value === 'string' && key !== 'account') stored[key] = value;
    customers.set(account, stored);
    res.status(202).json({ id: account });
  });
  app.get('/kyc/customer', async (req, res) => {
    const account = await authenticated(req, res);
    if (!account) return;
    const stored = customers.get(account);
    res.json(stored ? { id: account, status: 'ACCEPTED' } : { status: 'NEEDS_INFO', fields: {} });
  });

  // SEP-24
  const entries = (side: 'deposit' | 'withdraw') =>
    Object.fromEntries(assets.flatMap((a) => (a[side] ? [[a.code, a[side]]] : [])));
  app.get('/sep24/info', (_req, res) => {
    res.json({
      deposit: entries('deposit'),
      withdraw: entries('withdraw'),
      fee: { enabled: false },
      features: { account_creation: true, claimable_balances: false },
    });
  });

  const interactive = (kind: AnchorTransaction['kind']) => async (req: Request, res: Response) => {
    const account = await authenticated(req, res);
    if (!account) return;
    const body = (req.body ?? {}) as Record<string, unknown>;
    const config = assets.find((a) => a.code === body.asset_code);
    const terms = config?.[kind === 'deposit' ? 'deposit' : 'withdraw'];
    if (!config || !terms?.enabled)
      return void res.status(400).json({ error: `${String(body.asset_code)} is not enabled for ${kind}` });
    if (body.asset_issuer !== undefined && body.asset_issuer !== issuerOf(config))
      return void res.status(400).json({ error: 'asset_issuer is not the issuer of this asset' });
    const id = randomUUID();
    const now = new Date().toISOString();
    const target = typeof body.account === 'string' ? body.account : account;
    const tx: AnchorTransaction = {
      id,
      kind,
      status: 'incomplete',
      owner: account,
      fields: {
        started_at: now,
        updated_at: now,
        more_info_url: `${base}/sep24/more_info?id=${id}`,
        ...(typeof body.amount === 'string' || typeof body.amount === 'number'
          ? { amount_in: String(body.amount) }
          : {}),
        ...(kind === 'deposit' ? { to: target } : { from: target }),
        ...(typeof body.email_address === 'string' ? { email_address: body.email_address } : {}),
      },
      overrides: {},
    };
    transactions.set(id, tx);
    const token = await new SignJWT({ txid: id })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(account)
      .setExpirationTime('10m')
      .sign(jwtSecret);
    res.json({ type: 'interactive_customer_info_needed', url: `${base}/sep24/interactive?token=${token}`, id });
  };
  app.post('/sep24/transactions/deposit/interactive', interactive('deposit'));
  app.post('/sep24/transactions/withdraw/interactive', interactive('withdrawal'));

  // The interactive page: one button that says the user gave what the anchor needs (KYC, bank details).
  app.get('/sep24/interactive', (req, res) => {
    const token = typeof req.query.token === 'string' ? req.query.token : '';
    res
      .type('html')
      .send(
        `<!doctype html><title>Local anchor</title><form method="post"><input type="hidden" name="token" value="${token.replace(/[^A-Za-z0-9._-]/g, '')}"><button>I have given my details</button></form>`,
      );
  });
  app.post('/sep24/interactive', async (req, res) => {
    const token =
      typeof (req.body as Record<string, unknown>)?.token === 'string' ? (req.body as { token: string }).token : '';
    try {
      const { payload } = await jwtVerify(token, jwtSecret, { algorithms: ['HS256'] });
      const tx = transactions.get(String(payload.txid));
      if (!tx || tx.status !== 'incomplete') return void res.status(409).type('text').send('nothing to complete');
      setStatus(tx.id, 'pending_user_transfer_start');
      res.type('text').send('Done: you can close this page');
    } catch {
      res.status(403).type('text').send('this page has expired');
    }
  });
  app.get('/sep24/more_info', (req, res) => {
    const tx = typeof req.query.id === 'string' ? transactions.get(req.query.id) : undefined;
    if (!tx) return void res.status(404).type('text').send('no such transaction');
    res.type('text').send(`Transaction ${tx.id}: ${tx.status}`);
  });

  const view = (tx: AnchorTransaction) => ({
    id: tx.id,
    kind: tx.kind,
    status: tx.status,
    ...tx.fields,
    ...tx.overrides,
  });
  app.get('/sep24/transaction', async (req, res) => {
    const account = await authenticated(req, res);
    if (!account) return;
    const tx = typeof req.query.id === 'string' ? transactions.get(req.query.id) : undefined;
    if (!tx || tx.owner !== account) return void res.status(404).json({ error: 'transaction not found' });
    res.json({ transaction: view(tx) });
  });
  app.get('/sep24/transactions', async (req, res) => {
    const account = await authenticated(req, res);
    if (!account) return;
    res.json({
      transactions: [...transactions.values()]
        .filter((t) => t.owner === account)
        .map(view)
        .reverse(),
    });
  });

  function setStatus(id: string, status: AnchorStatus, fields: Record<string, unknown> = {}): void {
    const tx = transactions.get(id);
    if (!tx) throw new Error(`no anchor transaction ${id}`);
    if (FINAL.includes(tx.status)) throw new Error(`transaction ${id} is ${tx.status}: a final status`);
    if (status === 'incomplete' && tx.status !== 'incomplete') throw new Error('nothing goes back to incomplete');
    if (status === 'pending_user_transfer_complete' && tx.kind !== 'withdrawal')
      throw new Error('pending_user_transfer_complete is for withdrawals');
    if (status === 'pending_trust' && tx.kind !== 'deposit') throw new Error('pending_trust is for deposits');
    const now = new Date().toISOString();
    tx.status = status;
    tx.fields.updated_at = now;
    if (status === 'pending_user_transfer_start' && tx.kind === 'withdrawal' && !tx.fields.withdraw_anchor_account) {
      tx.fields.withdraw_anchor_account = distributionAccount;
      tx.fields.withdraw_memo = String(memoCounter++);
      tx.fields.withdraw_memo_type = 'id';
    }
    if (status === 'pending_user_transfer_start' && tx.kind === 'deposit')
      tx.fields.instructions = {
        'organization.bank_number': { value: '121122676', description: 'US bank routing number' },
        'organization.bank_account_number': { value: '13719713158835300', description: 'US bank account number' },
      };
    if (status === 'completed' || status === 'refunded') tx.fields.completed_at = now;
    if (status === 'completed' && tx.kind === 'deposit' && !tx.fields.stellar_transaction_id)
      tx.fields.stellar_transaction_id = randomBytes(32).toString('hex');
    Object.assign(tx.overrides, fields);
  }

  const server: Server = createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  domain = `127.0.0.1:${port}`;
  base = `http://${domain}`;

  return {
    domain,
    url: base,
    signingKey: signing.publicKey(),
    issuer,
    distributionAccount,
    asset(code) {
      const config = assets.find((a) => a.code === code);
      if (!config) throw new Error(`the anchor has no asset ${code}`);
      return `${code}:${issuerOf(config)}`;
    },
    transactions,
    customers,
    requests,
    setStatus,
    failNext(n) {
      failures += n;
    },
    answerNext(answer) {
      rawAnswers.push(answer);
    },
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
