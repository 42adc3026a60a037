// The service's one way to the chain: Stellar RPC (never Horizon) through @stellar/stellar-sdk's rpc.Server, for one
// network. It reads ledger state (accounts, trustlines, the header's reserve and fee) with getLedgerEntries and
// getLatestLedger, submits transactions riding out the RPC's transient answers, and confirms them by polling
// getTransaction. Submission semantics (stellar-rpc, stellar-core's queue):
//   PENDING          accepted into the queue: confirm it
//   DUPLICATE        already queued or applied: the same transaction, confirm it
//   TRY_AGAIN_LATER  the source account already has a queued transaction (one per ledger): back off, resend
//   ERROR            refused by validation (bad sequence, auth, fee, balance, time bounds): not applied, nothing
//                    charged; errorResultXdr says why
// A network failure during sendTransaction leaves the outcome unknown: the same envelope is resent (never a rebuilt
// one), which the RPC answers DUPLICATE if the first one got through.
import { Asset, Keypair, StrKey, rpc, xdr, type FeeBumpTransaction, type Transaction } from '@stellar/stellar-sdk';
import type { NetworkName } from '../../config';
import {
  FriendbotUnavailableError,
  StellarUnavailableError,
  TransactionRejectedError,
  TransactionUnconfirmedError,
} from './errors';
import { requiredFeeOf, resultCodes, type ResultCodes } from './resultCodes';
import { DEFAULT_RETRY, sleep, withRetry, type RetryPolicy } from './retry';
import { probeRpcHealth, type RpcHealth } from './rpcHealth';
import { transactionHashHex } from './transactionHash';

/** The parts of an account the service reasons about (AccountEntry plus the entry's own sponsor). */
export interface AccountState {
  address: string;
  /** The current sequence number; a transaction from this account uses sequence + 1. */
  sequence: string;
  balanceStroops: bigint;
  sellingLiabilitiesStroops: bigint;
  numSubEntries: number;
  numSponsoring: number;
  numSponsored: number;
  thresholds: { masterWeight: number; low: number; medium: number; high: number };
  /** Who sponsors the account entry's own reserve, when sponsored. */
  sponsor: string | undefined;
}

export interface TrustlineState {
  /** `CODE:ISSUER` */
  asset: string;
  balanceStroops: bigint;
  limitStroops: bigint;
  /** Locked by the account's open sell offers of the asset (TrustLineEntry.ext.v1.liabilities.selling). */
  sellingLiabilitiesStroops: bigint;
  /** What the account's open buy offers of the asset may still bring in (TrustLineEntry.ext.v1.liabilities.buying). */
  buyingLiabilitiesStroops: bigint;
  authorized: boolean;
  sponsor: string | undefined;
}

/** The latest ledger header's figures that reserves and fees are computed from. */
export interface LedgerFigures {
  sequence: number;
  /** Unix seconds. */
  closeTime: number;
  baseReserveStroops: bigint;
  baseFeeStroops: number;
}

/**
 * The figures of a getLatestLedger answer (chain data, checked: an answer without them throws, and the RPC read that
 * asked is retried and then reported as unavailable).
 */
export function ledgerFiguresOf(raw: rpc.Api.RawGetLatestLedgerResponse): LedgerFigures {
  const header = xdr.LedgerHeader.fromXdr(raw.headerXdr, 'base64');
  const closeTime = Number(raw.closeTime);
  if (header.ledgerSeq !== raw.sequence || !Number.isSafeInteger(closeTime) || closeTime < 0)
    throw new TypeError(
      `getLatestLedger answered sequence ${raw.sequence} with the header of ${header.ledgerSeq}, closeTime ${raw.closeTime}`,
    );
  return {
    sequence: raw.sequence,
    closeTime,
    baseReserveStroops: BigInt(header.baseReserve),
    baseFeeStroops: header.baseFee,
  };
}

export type TransactionStatus =
  | { status: 'SUCCESS'; hash: string; ledger: number }
  | { status: 'FAILED'; hash: string; ledger: number; codes: ResultCodes }
  /** Unknown to the RPC (not yet applied, never submitted, or older than its retention window). */
  | { status: 'NOT_FOUND'; hash: string; latestLedger: number; latestLedgerCloseTime: number };

type NotFound = Extract<TransactionStatus, { status: 'NOT_FOUND' }>;

/**
 * An applied transaction of a raw getTransaction or getTransactions answer: the result decoded, the envelope and the
 * result kept base64 as the RPC sent them, the meta never decoded. Chain data, checked: an answer without its ledger
 * or a readable result throws (an envelope left out reads as empty, and fails where it is decoded).
 */
function appliedDetails(t: {
  status: rpc.Api.GetTransactionStatus;
  txHash: string;
  ledger?: number;
  createdAt?: number | string;
  feeBump?: boolean;
  envelopeXdr?: string;
  resultXdr?: string;
}): TransactionDetails {
  if (
    (t.status !== rpc.Api.GetTransactionStatus.SUCCESS && t.status !== rpc.Api.GetTransactionStatus.FAILED) ||
    !Number.isSafeInteger(t.ledger) ||
    typeof t.resultXdr !== 'string'
  )
    throw new TypeError(`transaction ${t.txHash}: the RPC answered ${t.status} without its ledger or result`);
  const result = xdr.TransactionResult.fromXdr(t.resultXdr, 'base64');
  return {
    status: t.status === rpc.Api.GetTransactionStatus.SUCCESS ? 'SUCCESS' : 'FAILED',
    hash: t.txHash,
    ledger: t.ledger!,
    createdAt: Number(t.createdAt),
    feeBump: t.feeBump === true,
    envelopeXdr: t.envelopeXdr ?? '',
    resultXdr: t.resultXdr,
    codes: resultCodes(result),
    feeChargedStroops: result.feeCharged,
  };
}

/** getTransaction's full answer for a transaction in a ledger (raw XDR kept base64, as the RPC gives it). */
export interface TransactionDetails {
  status: 'SUCCESS' | 'FAILED';
  hash: string;
  ledger: number;
  /** Unix seconds of the ledger's close. */
  createdAt: number;
  feeBump: boolean;
  envelopeXdr: string;
  resultXdr: string;
  codes: ResultCodes;
  /** What the fee source was charged (TransactionResult.feeCharged). */
  feeChargedStroops: bigint;
}

/** A page of getTransactions: the transactions of consecutive ledgers, in application order. */
export interface TransactionsPage {
  transactions: TransactionDetails[];
  /** Reads on right after the last transaction returned (or the last ledger walked). */
  cursor: string;
  /** The RPC's retention window when it answered. */
  latestLedger: number;
  oldestLedger: number;
}

/**
 * What runs a contract, as its instance entry names it: the WASM (read from its ContractCode entry), the built-in
 * Stellar Asset Contract, or an executable kind this service does not read.
 */
export type ContractExecutable = { kind: 'wasm'; wasm: Uint8Array } | { kind: 'stellar_asset' } | { kind: 'other' };

export interface StellarGateway {
  readonly network: NetworkName;
  readonly rpcUrl: string;
  readonly networkPassphrase: string;
  health(): Promise<RpcHealth>;
  /** Undefined when the account does not exist. */
  loadAccount(address: string, opts?: { maxAgeMs?: number }): Promise<AccountState | undefined>;
  /** The accounts that exist among `addresses` (at most 200), by address. */
  loadAccounts(addresses: string[]): Promise<Map<string, AccountState>>;
  /** The trustlines `address` holds among `assets` (`CODE:ISSUER`), in the order asked; missing ones are left out. */
  trustlines(address: string, assets: string[]): Promise<TrustlineState[]>;
  /** Which of `addresses` (at most 200) hold a trustline for `asset` (`CODE:ISSUER`): one getLedgerEntries call. */
  trustlineHolders(asset: string, addresses: string[]): Promise<Set<string>>;
  /**
   * The assets on the ledger behind claimable balances (by their hex id, as operations carry it) and liquidity pools
   * (by their hex id): `native` | `CODE:ISSUER`. Ids the ledger does not have (or that are malformed) are left out.
   */
  ledgerAssets(ids: {
    claimableBalances: string[];
    liquidityPools: string[];
  }): Promise<{ claimableBalances: Map<string, string>; liquidityPools: Map<string, [string, string]> }>;
  /**
   * The latest ledger's figures. Read now unless `maxAgeMs` allows figures read (or being read) at most that long ago:
   * builds share one read that way, where the fee and the reserve change only with a network upgrade.
   */
  ledgerFigures(opts?: { maxAgeMs?: number }): Promise<LedgerFigures>;
  /**
   * A contract's executable (instance -> code, two getLedgerEntries reads); undefined when the contract (or its code)
   * is not on the ledger. Throws StellarUnavailableError when the RPC cannot be reached.
   */
  contractExecutable(contractId: string): Promise<ContractExecutable | undefined>;
  /**
   * Sends a signed transaction until the RPC accepts it (PENDING or DUPLICATE) and returns its hash. Throws
   * TransactionRejectedError on ERROR, StellarUnavailableError when retries run out.
   */
  submit(tx: Transaction | FeeBumpTransaction): Promise<string>;
  /** One getTransaction call. */
  transactionStatus(hash: string): Promise<TransactionStatus>;
  /** One getTransaction call with the envelope and result; undefined when the RPC does not know the hash. */
  transactionDetails(hash: string): Promise<TransactionDetails | undefined>;
  /**
   * One getTransactions call: up to `limit` (RPC default 50, max 200) transactions from `startLedger` (which must be
   * in the retention window: -32600 otherwise, rethrown as is) or after `cursor`, walking up to the latest ledger.
   */
  transactionsFrom(opts: { startLedger?: number; cursor?: string; limit?: number }): Promise<TransactionsPage>;
  /**
   * Polls getTransaction until the transaction is in a ledger. Resolves on SUCCESS; throws TransactionRejectedError
   * on FAILED and TransactionUnconfirmedError after `timeoutMs` (default: the gateway's confirmTimeoutMs).
   */
  confirm(hash: string, opts?: { timeoutMs?: number }): Promise<{ ledger: number }>;
  /** submit + confirm. */
  submitAndConfirm(
    tx: Transaction | FeeBumpTransaction,
    opts?: { timeoutMs?: number },
  ): Promise<{ hash: string; ledger: number }>;
  /**
   * Funds `address` with friendbot (testnet and localnet only). 'already_funded' when the account already holds
   * friendbot's amount. Throws FriendbotUnavailableError when there is no friendbot or it cannot be reached.
   */
  fundWithFriendbot(address: string): Promise<'funded' | 'already_funded'>;
}

export interface GatewayOptions {
  network: NetworkName;
  rpcUrl: string;
  networkPassphrase: string;
  /** Friendbot's URL; default: the one the RPC advertises in getNetwork. Never used on mainnet. */
  friendbotUrl?: string;
  retry?: RetryPolicy;
  /** How long confirm() polls before giving up (default 60 s: a dozen 5 s ledgers). */
  confirmTimeoutMs?: number;
  /** Per-HTTP-request timeout (default 10 s). */
  requestTimeoutMs?: number;
}

/**
 * Polling starts fast (a local ledger closes in well under a second) and settles at 250 ms: an answer comes at most a
 * quarter of a second after the ledger that applied it closed. With the SDK's 1 s the backoff (50, 100, 200, 400, 800)
 * overshot a 1 s ledger by up to half a second, and half the sign-ins of the activation bench were answered 1.6 s
 * after they came instead of about 1 s. On 5 s ledgers that is about 20 getTransaction calls per transaction.
 */
const POLL_INITIAL_MS = 50;
const POLL_MAX_MS = 250;

/** JSON-RPC errors that mean the request itself is wrong: retrying cannot help. */
function isRequestError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === -32600 || code === -32601 || code === -32602;
}

class TryAgainLater extends Error {}

type RawEntry = rpc.Api.RawLedgerEntryResult & { extXdr?: string };

function accountKey(address: string): xdr.LedgerKey {
  return xdr.LedgerKey.account(new xdr.LedgerKeyAccount({ accountId: Keypair.fromPublicKey(address).xdrAccountId() }));
}

/** `CODE:ISSUER` -> Asset. */
export function parseAsset(asset: string): Asset {
  const [code, issuer] = asset.split(':');
  if (!code || !issuer) throw new Error(`not CODE:ISSUER: ${asset}`);
  return new Asset(code, issuer);
}

function sponsorOf(extXdr: string | undefined): string | undefined {
  if (!extXdr) return undefined;
  const ext = xdr.LedgerEntryExt.fromXdr(extXdr, 'base64');
  if (ext.type !== 'v1' || !ext.v1.sponsoringId) return undefined;
  return StrKey.encodeEd25519PublicKey(Buffer.from(ext.v1.sponsoringId.ed25519.value));
}

function toAccountState(entry: xdr.AccountEntry, extXdr: string | undefined): AccountState {
  const v1 = entry.ext.type === 'v1' ? entry.ext.v1 : undefined;
  const v2 = v1?.ext.type === 'v2' ? v1.ext.v2 : undefined;
  const t = entry.thresholds.value;
  return {
    address: StrKey.encodeEd25519PublicKey(Buffer.from(entry.accountId.ed25519.value)),
    sequence: entry.seqNum.toString(),
    balanceStroops: entry.balance,
    sellingLiabilitiesStroops: v1?.liabilities.selling ?? 0n,
    numSubEntries: entry.numSubEntries,
    numSponsoring: v2?.numSponsoring ?? 0,
    numSponsored: v2?.numSponsored ?? 0,
    thresholds: { masterWeight: t[0]!, low: t[1]!, medium: t[2]!, high: t[3]! },
    sponsor: sponsorOf(extXdr),
  };
}

/** (2 + subentries + sponsoring - sponsored) x base reserve: what an account must keep (stellar-core's formula). */
export function minimumBalanceStroops(account: AccountState, baseReserveStroops: bigint): bigint {
  return BigInt(2 + account.numSubEntries + account.numSponsoring - account.numSponsored) * baseReserveStroops;
}

/** What an account can spend or lock: balance - minimum balance - selling liabilities. */
export function availableStroops(account: AccountState, baseReserveStroops: bigint): bigint {
  return (
    account.balanceStroops - minimumBalanceStroops(account, baseReserveStroops) - account.sellingLiabilitiesStroops
  );
}

type AssetWire = ReturnType<xdr.Asset['toXdrObject']>;

/** An asset of the ledger as the service names it: `native` | `CODE:ISSUER` (the code without its zero padding). */
function assetNameOf(asset: AssetWire): string {
  if (asset.type === 0) return 'native';
  const { assetCode, issuer } = asset.type === 1 ? asset.alphaNum4 : asset.alphaNum12;
  const code = Buffer.from(assetCode).toString('latin1').replace(/\0+$/, '');
  return `${code}:${StrKey.encodeEd25519PublicKey(Buffer.from(issuer.ed25519))}`;
}

/** How many accounts' recent reads a gateway keeps (the app wallets whose balance policies check). */
const RECENT_ACCOUNTS_KEPT = 1_000;

/**
 * Reads shared by the callers that accept a result of a given age, by key: a read of age 0 always reads (and is then
 * shared), a read within the age answers the last one (or the one in flight), a failed read is never shared. At most
 * `kept` keys, the least recently read dropped first.
 */
function recentReads<T>(kept: number): (key: string, maxAgeMs: number, read: () => Promise<T>) => Promise<T> {
  const recent = new Map<string, { at: number; value: Promise<T> }>();
  return (key, maxAgeMs, read) => {
    const last = recent.get(key);
    if (maxAgeMs > 0 && last && Date.now() - last.at <= maxAgeMs) return last.value;
    const value = read();
    recent.delete(key);
    recent.set(key, { at: Date.now(), value });
    if (recent.size > kept) recent.delete(recent.keys().next().value!);
    value.catch(() => {
      if (recent.get(key)?.value === value) recent.delete(key);
    });
    return value;
  };
}

export function createStellarGateway(options: GatewayOptions): StellarGateway {
  const server = new rpc.Server(options.rpcUrl, {
    allowHttp: options.rpcUrl.startsWith('http://'),
    timeout: options.requestTimeoutMs ?? 10_000,
  });
  const policy = options.retry ?? DEFAULT_RETRY;
  const confirmTimeoutMs = options.confirmTimeoutMs ?? 60_000;

  /** An RPC read, retried on transport failures and RPC-side faults. */
  function read<T>(what: string, call: () => Promise<T>): Promise<T> {
    return withRetry(policy, (err) => !isRequestError(err), call).catch((err: unknown) => {
      if (isRequestError(err)) throw err;
      throw new StellarUnavailableError(
        `Stellar RPC ${what} failed: ${err instanceof Error ? err.message : JSON.stringify(err)}`,
        { cause: err },
      );
    });
  }

  /** Raw entries: the SDK's parsed form drops `extXdr` (LedgerEntry.ext), where the sponsor is named. */
  async function rawEntries(keys: xdr.LedgerKey[]): Promise<RawEntry[]> {
    if (keys.length === 0) return [];
    return (await read('getLedgerEntries', () => server._getLedgerEntries(...keys))).entries ?? [];
  }

  /**
   * The raw answer with only its header decoded: the SDK's getLatestLedger also decodes metadataXdr, the ledger's
   * whole LedgerCloseMeta (every transaction's meta and events), which nothing here reads. For a localnet ledger of
   * 200 transactions that is 10 ms on the thread that answers requests; a public network's ledgers are larger.
   */
  async function latestFigures(): Promise<LedgerFigures> {
    return read('getLatestLedger', async () => ledgerFiguresOf(await server._getLatestLedger()));
  }
  const recentFigures = recentReads<LedgerFigures>(1);
  const recentAccounts = recentReads<AccountState | undefined>(RECENT_ACCOUNTS_KEPT);

  async function loadAccounts(addresses: string[]): Promise<Map<string, AccountState>> {
    const out = new Map<string, AccountState>();
    for (const e of await rawEntries(addresses.map(accountKey))) {
      const data = xdr.LedgerEntryData.fromXdr(e.xdr, 'base64');
      if (data.type !== 'account') continue;
      const state = toAccountState(data.account, e.extXdr);
      out.set(state.address, state);
    }
    return out;
  }

  /**
   * getTransaction's raw answer with only the result decoded: the SDK's getTransaction also decodes the envelope (to
   * have it re-encoded here), the meta (every ledger entry the transaction changed: its largest part) and the events,
   * none of which a lookup reads.
   */
  async function lookUp(hash: string): Promise<TransactionDetails | NotFound> {
    return read('getTransaction', async () => {
      const got = await server._getTransaction(hash);
      if (got.status === rpc.Api.GetTransactionStatus.NOT_FOUND)
        return {
          status: 'NOT_FOUND',
          hash,
          latestLedger: got.latestLedger,
          latestLedgerCloseTime: Number(got.latestLedgerCloseTime),
        };
      return appliedDetails({ ...got, txHash: hash });
    });
  }

  async function transactionStatus(hash: string): Promise<TransactionStatus> {
    const got = await lookUp(hash);
    if (got.status === 'NOT_FOUND') return got;
    if (got.status === 'SUCCESS') return { status: 'SUCCESS', hash, ledger: got.ledger };
    return { status: 'FAILED', hash, ledger: got.ledger, codes: got.codes };
  }

  async function transactionDetails(hash: string): Promise<TransactionDetails | undefined> {
    const got = await lookUp(hash);
    return got.status === 'NOT_FOUND' ? undefined : got;
  }

  async function transactionsFrom(opts: {
    startLedger?: number;
    cursor?: string;
    limit?: number;
  }): Promise<TransactionsPage> {
    const pagination = {
      ...(opts.cursor !== undefined ? { cursor: opts.cursor } : {}),
      ...(opts.limit !== undefined ? { limit: opts.limit } : {}),
    };
    const request = (
      opts.cursor !== undefined ? { pagination } : { startLedger: opts.startLedger ?? 0, pagination }
    ) as rpc.Api.GetTransactionsRequest;
    // The raw answer: envelopes and results stay base64 as the RPC sends them; the (large) metas are never decoded.
    const got = await read('getTransactions', () => server._getTransactions(request));
    return {
      transactions: (got.transactions ?? []).map(appliedDetails),
      cursor: got.cursor,
      latestLedger: got.latestLedger,
      oldestLedger: got.oldestLedger,
    };
  }

  async function submit(tx: Transaction | FeeBumpTransaction): Promise<string> {
    const hash = transactionHashHex(tx);
    try {
      return await withRetry(
        policy,
        (err) => err instanceof TryAgainLater || !(err instanceof TransactionRejectedError || isRequestError(err)),
        async () => {
          const sent = await server.sendTransaction(tx);
          if (sent.status === 'PENDING' || sent.status === 'DUPLICATE') return sent.hash;
          if (sent.status === 'TRY_AGAIN_LATER') throw new TryAgainLater(`transaction ${hash}: TRY_AGAIN_LATER`);
          const codes = sent.errorResult ? resultCodes(sent.errorResult) : { transaction: 'tx_error', operations: [] };
          throw new TransactionRejectedError(sent.hash, 'submission', codes, requiredFeeOf(sent.errorResult, codes));
        },
      );
    } catch (err) {
      if (err instanceof TransactionRejectedError || isRequestError(err)) throw err;
      throw new StellarUnavailableError(
        `Stellar RPC sendTransaction failed: ${err instanceof Error ? err.message : JSON.stringify(err)}`,
        { cause: err },
      );
    }
  }

  async function confirm(hash: string, opts: { timeoutMs?: number } = {}): Promise<{ ledger: number }> {
    const deadline = Date.now() + (opts.timeoutMs ?? confirmTimeoutMs);
    for (let delay = POLL_INITIAL_MS; ; delay = Math.min(POLL_MAX_MS, delay * 2)) {
      const status = await transactionStatus(hash);
      if (status.status === 'SUCCESS') return { ledger: status.ledger };
      if (status.status === 'FAILED') throw new TransactionRejectedError(hash, 'ledger', status.codes);
      if (Date.now() + delay > deadline) throw new TransactionUnconfirmedError(hash);
      await sleep(delay);
    }
  }

  return {
    network: options.network,
    rpcUrl: options.rpcUrl,
    networkPassphrase: options.networkPassphrase,
    health: () => probeRpcHealth(options.rpcUrl),
    loadAccount: (address, opts) =>
      recentAccounts(address, opts?.maxAgeMs ?? 0, async () => (await loadAccounts([address])).get(address)),
    loadAccounts,
    trustlineHolders: async (asset, addresses) => {
      const line = parseAsset(asset).toTrustLineXdrObject();
      const keys = addresses.map((address) =>
        xdr.LedgerKey.trustline(
          new xdr.LedgerKeyTrustLine({ accountId: Keypair.fromPublicKey(address).xdrAccountId(), asset: line }),
        ),
      );
      const present = new Set((await rawEntries(keys)).map((e) => e.key));
      return new Set(addresses.filter((_, i) => present.has(keys[i]!.toXdr('base64'))));
    },
    trustlines: async (address, assets) => {
      const accountId = Keypair.fromPublicKey(address).xdrAccountId();
      const keys = assets.map((a) =>
        xdr.LedgerKey.trustline(new xdr.LedgerKeyTrustLine({ accountId, asset: parseAsset(a).toTrustLineXdrObject() })),
      );
      const byKey = new Map((await rawEntries(keys)).map((e) => [e.key, e]));
      const out: TrustlineState[] = [];
      assets.forEach((asset, i) => {
        const e = byKey.get(keys[i]!.toXdr('base64'));
        if (!e) return;
        const data = xdr.LedgerEntryData.fromXdr(e.xdr, 'base64');
        if (data.type !== 'trustline') return;
        const line = data.trustLine;
        out.push({
          asset,
          balanceStroops: line.balance,
          limitStroops: line.limit,
          sellingLiabilitiesStroops: line.ext.type === 'v1' ? line.ext.v1.liabilities.selling : 0n,
          buyingLiabilitiesStroops: line.ext.type === 'v1' ? line.ext.v1.liabilities.buying : 0n,
          authorized: (line.flags & 1) === 1, // AUTHORIZED_FLAG
          sponsor: sponsorOf(e.extXdr),
        });
      });
      return out;
    },
    ledgerAssets: async (ids) => {
      const balanceKeys = ids.claimableBalances.flatMap((id) => {
        const bytes = /^00000000[0-9a-f]{64}$/i.test(id) ? Buffer.from(id.slice(8), 'hex') : undefined;
        return bytes
          ? [
              {
                id,
                key: xdr.LedgerKey.fromXdrObject({ type: 4, claimableBalance: { balanceId: { type: 0, v0: bytes } } }),
              },
            ]
          : [];
      });
      const poolKeys = ids.liquidityPools.flatMap((id) =>
        /^[0-9a-f]{64}$/i.test(id)
          ? [
              {
                id,
                key: xdr.LedgerKey.fromXdrObject({
                  type: 5,
                  liquidityPool: { liquidityPoolId: Buffer.from(id, 'hex') },
                }),
              },
            ]
          : [],
      );
      const wanted = [...balanceKeys, ...poolKeys];
      const byKey = new Map(wanted.map((w) => [w.key.toXdr('base64'), w.id]));
      const claimableBalances = new Map<string, string>();
      const liquidityPools = new Map<string, [string, string]>();
      for (const e of await rawEntries(wanted.map((w) => w.key))) {
        const id = byKey.get(e.key);
        if (id === undefined) continue;
        const data = xdr.LedgerEntryData.fromXdr(e.xdr, 'base64').toXdrObject();
        if (data.type === 4) claimableBalances.set(id, assetNameOf(data.claimableBalance.asset));
        if (data.type === 5)
          liquidityPools.set(id, [
            assetNameOf(data.liquidityPool.body.constantProduct.params.assetA),
            assetNameOf(data.liquidityPool.body.constantProduct.params.assetB),
          ]);
      }
      return { claimableBalances, liquidityPools };
    },
    ledgerFigures: (opts) => recentFigures('latest', opts?.maxAgeMs ?? 0, latestFigures),
    contractExecutable: async (contractId) => {
      const contract = { type: 1 as const, contractId: StrKey.decodeContract(contractId) };
      const instanceKey = xdr.LedgerKey.fromXdrObject({
        type: 6,
        contractData: { contract, key: { type: 20 }, durability: 1 }, // scvLedgerKeyContractInstance, persistent
      });
      const [instance] = await rawEntries([instanceKey]);
      if (!instance) return undefined;
      const data = xdr.LedgerEntryData.fromXdr(instance.xdr, 'base64').toXdrObject();
      if (data.type !== 6 || data.contractData.val.type !== 19) return undefined;
      const executable = data.contractData.val.instance.executable;
      if (executable.type === 1) return { kind: 'stellar_asset' };
      if (executable.type !== 0) return { kind: 'other' };
      const codeKey = xdr.LedgerKey.fromXdrObject({ type: 7, contractCode: { hash: executable.wasmHash } });
      const [code] = await rawEntries([codeKey]);
      if (!code) return undefined;
      const codeData = xdr.LedgerEntryData.fromXdr(code.xdr, 'base64').toXdrObject();
      return codeData.type === 7 ? { kind: 'wasm', wasm: codeData.contractCode.code } : undefined;
    },
    submit,
    transactionStatus,
    transactionDetails,
    transactionsFrom,
    confirm,
    submitAndConfirm: async (tx, opts) => {
      const hash = await submit(tx);
      return { hash, ...(await confirm(hash, opts)) };
    },
    fundWithFriendbot: async (address) => {
      if (options.network === 'mainnet') throw new FriendbotUnavailableError('there is no friendbot on mainnet');
      try {
        await server.fundAddress(address, options.friendbotUrl);
        return 'funded';
      } catch (err) {
        // The SDK turns friendbot's 400 into an Error carrying the problem's detail.
        const message = err instanceof Error ? err.message : String(err);
        if (/already funded|createAccountAlreadyExist/.test(message)) return 'already_funded';
        throw new FriendbotUnavailableError(`friendbot could not fund ${address}: ${message}`, { cause: err });
      }
    },
  };
}
