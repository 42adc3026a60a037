// Drives a localnet only the way any client would: through @stellar/stellar-sdk (rpc.Server, TransactionBuilder,
// Keypair, Operation, Asset) over HTTP. Ledgers close on demand (closeLedger), so tests never sleep.
import assert from 'node:assert/strict';
import {
  Account,
  Asset,
  Keypair,
  Operation,
  StrKey,
  TransactionBuilder,
  rpc,
  xdr,
  type FeeBumpTransaction,
  type Transaction,
} from '@stellar/stellar-sdk';
import { startLocalnet, type Localnet, type LocalnetOptions } from '../../src/localnet';

export interface TestNet {
  localnet: Localnet;
  server: rpc.Server;
  /** The network's root account (Keypair.master(passphrase)), holding the total supply at genesis. */
  root: Keypair;
  passphrase: string;
  stop(): Promise<void>;
}

export async function startTestLocalnet(opts: LocalnetOptions = {}): Promise<TestNet> {
  const localnet = await startLocalnet({ ledgerCloseMs: 'manual', ...opts });
  return {
    localnet,
    server: new rpc.Server(localnet.rpcUrl, { allowHttp: true }),
    root: Keypair.master(localnet.networkPassphrase),
    passphrase: localnet.networkPassphrase,
    stop: () => localnet.stop(),
  };
}

export interface BuildOptions {
  /** Per-operation fee in stroops (TransactionBuilder's meaning); default 100. */
  fee?: number;
  /** Seconds of validity; 0 = no upper bound. Default 0 (tests pick explicit time bounds when they test them). */
  timeout?: number;
  timebounds?: { minTime: number; maxTime: number };
  /** Sequence to build from (the next tx uses sequence + 1); default the account's current one. */
  sequence?: string;
  /** Who signs; default the source. */
  signers?: Keypair[];
}

/** Builds and signs a transaction from `source`, reading its sequence number through getAccount. */
export async function build(
  net: TestNet,
  source: Keypair,
  ops: xdr.Operation[],
  opts: BuildOptions = {},
): Promise<Transaction> {
  const sequence = opts.sequence ?? (await net.server.getAccount(source.publicKey())).sequenceNumber();
  const builder = new TransactionBuilder(new Account(source.publicKey(), sequence), {
    fee: String(opts.fee ?? 100),
    networkPassphrase: net.passphrase,
    ...(opts.timebounds ? { timebounds: opts.timebounds } : {}),
  });
  for (const op of ops) builder.addOperation(op);
  if (!opts.timebounds) builder.setTimeout(opts.timeout ?? 0);
  const tx = builder.build();
  tx.sign(...(opts.signers ?? [source]));
  return tx;
}

/** Sends, expecting PENDING; closes a ledger; returns getTransaction's answer (SUCCESS or FAILED). */
export async function submit(
  net: TestNet,
  tx: Transaction | FeeBumpTransaction,
): Promise<rpc.Api.GetSuccessfulTransactionResponse | rpc.Api.GetFailedTransactionResponse> {
  const sent = await net.server.sendTransaction(tx);
  assert.equal(
    sent.status,
    'PENDING',
    `sendTransaction: ${sent.status} ${sent.errorResult ? txCode(sent.errorResult) : ''}`,
  );
  await net.localnet.closeLedger();
  const got = await net.server.getTransaction(sent.hash);
  assert.notEqual(got.status, rpc.Api.GetTransactionStatus.NOT_FOUND, `${sent.hash} not in the closed ledger`);
  return got as rpc.Api.GetSuccessfulTransactionResponse | rpc.Api.GetFailedTransactionResponse;
}

/** submit() and expect SUCCESS. */
export async function submitOk(
  net: TestNet,
  tx: Transaction | FeeBumpTransaction,
): Promise<rpc.Api.GetSuccessfulTransactionResponse> {
  const got = await submit(net, tx);
  assert.equal(
    got.status,
    rpc.Api.GetTransactionStatus.SUCCESS,
    `expected SUCCESS, got ${txCode(got.resultXdr)} ${opCodes(got.resultXdr).join(',')}`,
  );
  return got;
}

/** The transaction-level result code, e.g. 'txSuccess', 'txFailed', 'txBadSeq'. */
export function txCode(result: xdr.TransactionResult): string {
  return result.result.type;
}

/** Operation result codes, e.g. ['paymentNoDestination'] or ['opBadAuth']; for a fee-bump, the inner ones. */
export function opCodes(result: xdr.TransactionResult): string[] {
  const r = result.result;
  const results =
    r.type === 'txFeeBumpInnerFailed' || r.type === 'txFeeBumpInnerSuccess'
      ? innerResults(r.innerResultPair.result.result)
      : r.type === 'txSuccess' || r.type === 'txFailed'
        ? r.results
        : [];
  return results.map((op) => (op.type === 'opInner' ? (op.tr.value as { type: string }).type : op.type));
}

function innerResults(r: xdr.InnerTransactionResultResult): xdr.OperationResult[] {
  return r.type === 'txSuccess' || r.type === 'txFailed' ? r.results : [];
}

/** The inner transaction's code of a fee-bump result. */
export function innerTxCode(result: xdr.TransactionResult): string | undefined {
  const r = result.result;
  return r.type === 'txFeeBumpInnerFailed' || r.type === 'txFeeBumpInnerSuccess'
    ? r.innerResultPair.result.result.type
    : undefined;
}

type Tuple<N extends number, T, R extends T[] = []> = number extends N
  ? T[]
  : R['length'] extends N
    ? R
    : Tuple<N, T, [...R, T]>;

/** Creates accounts funded from root (one transaction, up to 100 createAccount operations), closing a ledger. */
export async function newAccounts<N extends number>(
  net: TestNet,
  count: N,
  startingBalance = '100',
): Promise<Tuple<N, Keypair>> {
  const kps = Array.from({ length: count }, () => Keypair.random()) as Tuple<N, Keypair> & Keypair[];
  for (let i = 0; i < kps.length; i += 100) {
    const batch = kps.slice(i, i + 100);
    await submitOk(
      net,
      await build(
        net,
        net.root,
        batch.map((k) => Operation.createAccount({ destination: k.publicKey(), startingBalance })),
      ),
    );
  }
  return kps;
}

/** Native balance in stroops. */
export async function balanceOf(net: TestNet, address: string): Promise<bigint> {
  return (await net.server.getAccountEntry(address)).balance;
}

/** POSTs a raw JSON-RPC body and returns the parsed answer (for shapes the SDK hides: errors, strings vs numbers). */
export async function rawRpc(net: TestNet, body: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(net.localnet.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

/** One JSON-RPC call by name, raw. */
export async function call(net: TestNet, method: string, params?: unknown): Promise<any> {
  return (await rawRpc(net, { jsonrpc: '2.0', id: 1, method, params: params ?? null })).json;
}

/** numSponsoring / numSponsored of an account entry (0 when the extension is absent). */
export function sponsorCounts(entry: xdr.AccountEntry): { numSponsoring: number; numSponsored: number } {
  const v2 = entry.ext.type === 'v1' && entry.ext.v1.ext.type === 'v2' ? entry.ext.v1.ext.v2 : undefined;
  return { numSponsoring: v2?.numSponsoring ?? 0, numSponsored: v2?.numSponsored ?? 0 };
}

/** Stroops an account must keep: (2 + numSubEntries + numSponsoring - numSponsored) x base reserve (0.5 XLM). */
export function minBalance(entry: xdr.AccountEntry, baseReserve = 5_000_000n): bigint {
  const { numSponsoring, numSponsored } = sponsorCounts(entry);
  return BigInt(2 + entry.numSubEntries + numSponsoring - numSponsored) * baseReserve;
}

/** The sponsor named in a getLedgerEntries `extXdr` (LedgerEntry.ext), if any. */
export function sponsorInExt(extXdr: string): string | undefined {
  const ext = xdr.LedgerEntryExt.fromXdr(extXdr, 'base64');
  if (ext.type !== 'v1' || !ext.v1.sponsoringId) return undefined;
  return StrKey.encodeEd25519PublicKey(Buffer.from(ext.v1.sponsoringId.ed25519.value));
}

/** The raw getLedgerEntries answer for keys (to see extXdr, which the SDK's parser drops). */
export async function rawEntries(
  net: TestNet,
  keys: xdr.LedgerKey[],
): Promise<{ key: string; xdr: string; extXdr: string; lastModifiedLedgerSeq: number }[]> {
  const r = await call(net, 'getLedgerEntries', { keys: keys.map((k) => k.toXdr('base64')) });
  assert.ok(r.result, JSON.stringify(r.error));
  return r.result.entries;
}

export function accountLedgerKey(address: string): xdr.LedgerKey {
  return xdr.LedgerKey.account(new xdr.LedgerKeyAccount({ accountId: Keypair.fromPublicKey(address).xdrAccountId() }));
}

export function trustlineLedgerKey(address: string, asset: Asset): xdr.LedgerKey {
  return xdr.LedgerKey.trustline(
    new xdr.LedgerKeyTrustLine({
      accountId: Keypair.fromPublicKey(address).xdrAccountId(),
      asset: asset.toTrustLineXdrObject(),
    }),
  );
}

/** A transaction's hash as RPC writes it (hex). */
export function txHash(tx: Transaction | FeeBumpTransaction): string {
  return Buffer.from(tx.hash()).toString('hex');
}
