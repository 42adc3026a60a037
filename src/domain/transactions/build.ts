// Building a user's transaction (buildTransaction, runTransaction): one operation of the contract's TxOperation, with
// the session user's wallet as source, the sequence number read from Stellar RPC, the ledger's base fee per operation
// (the app's gas wallet pays it through a fee-bump at submission) and an upper time bound. Nothing is signed here.
//
// What can be told before the network would say it is refused here, with the contract's codes, in this order:
//   1. the request (400 VALIDATION_ERROR): amounts > 0 and within int64 stroops, checksummed addresses and issuers,
//      one memo only, text memo <= 28 bytes, id memo <= 2^64-1, changeTrust not for XLM
//   2. the wallet (409 WALLET_NOT_FUNDED): not funded in the service, or no account on the chain
//   3. the app (422 TX_UNSUPPORTED_OPERATION): payments and trustlines only in XLM or the app's configured assets
//   4. the chain (422 SDK_TX_BUILD_ERROR, 402, 409): the destination exists, is not the wallet, trusts the asset;
//      the wallet trusts what it sends; a trustline to add is new and the funding wallet can sponsor its reserve, a
//      trustline to remove exists and is empty.
// Balances are not checked: the network answers op_underfunded, and a balance read now could be stale by submission.
import {
  Account,
  Asset,
  Memo,
  Operation,
  StrKey,
  TransactionBuilder,
  type Transaction,
  type xdr,
} from '@stellar/stellar-sdk';
import type { Deps } from '../deps';
import { fromStroops, STROOPS_PER_XLM, toStroops } from '../money/amounts';
import {
  availableStroops,
  type AccountState,
  type LedgerFigures,
  type StellarGateway,
  type TrustlineState,
} from '../../infra/stellar/gateway';
import type { App } from '../apps/store';
import { AppError } from '../errors';
import { appWalletFor } from '../wallets/treasuryWallets';
import { gatewayFor } from '../chain/gateways';
import type { WalletRecord } from '../wallets/store';
import { describeTransaction, type TxDescription } from './describe';
import { feeBumpFeeOf } from './feeBump';

/** The contract's TxOperation (openapi/components/schemas/TxOperation.yaml); assets 'native' | 'CODE:ISSUER'. */
export type TxOperationInput =
  | { type: 'payment'; destination: string; asset: string; amount: string; memo?: string }
  | {
      type: 'pathPaymentStrictSend';
      sendAsset: string;
      sendAmount: string;
      destination: string;
      destAsset: string;
      destMin: string;
      path?: string[];
    }
  | {
      type: 'pathPaymentStrictReceive';
      sendAsset: string;
      sendMax: string;
      destination: string;
      destAsset: string;
      destAmount: string;
      path?: string[];
    }
  | { type: 'changeTrust'; asset: string; action: 'add' | 'remove' };

/** The contract's TxMemo. */
export interface TxMemoInput {
  type: 'text' | 'id' | 'hash';
  value: string;
}

export interface BuildRequest {
  operation: TxOperationInput;
  memo?: TxMemoInput;
  /** The transaction's validity from now (or the last ledger's close, if later), in seconds. */
  timeoutSeconds: number;
}

export interface BuiltTx {
  /**
   * Unsigned; source = the user's wallet; fee = base fee x operations; sequence = the chain's + 1, provisional: the
   * record takes the wallet's reserved number (sequences.ts) when it is written.
   */
  tx: Transaction;
  /** The wallet account's sequence number on the chain when it was read (the minSeqNum of the recorded transaction). */
  chainSequence: bigint;
  description: TxDescription;
  /** For a confirmation screen; the lines end with the network fee. */
  summary: { title: string; lines: string[] };
  /** App wallets that must sign too: 'funding' when it sponsors an added trustline's reserve. */
  cosigners: 'funding'[];
  /** The fee-bump fee the gas wallet will pay: feeBumpFeeOf(tx). */
  estimatedFeeStroops: bigint;
  /** The transaction's upper time bound. */
  validUntil: Date;
}

const INT64_MAX = 9_223_372_036_854_775_807n;
const UINT64_MAX = 18_446_744_073_709_551_615n;
const TEXT_MEMO_BYTES = 28;
const MAX_PATH = 5;

/** An operation with its assets parsed and its amounts checked (canonical decimal strings). */
type ParsedOperation =
  | { type: 'payment'; destination: string; asset: Asset; amount: string }
  | {
      type: 'pathPaymentStrictSend';
      destination: string;
      sendAsset: Asset;
      sendAmount: string;
      destAsset: Asset;
      destMin: string;
      path: Asset[];
    }
  | {
      type: 'pathPaymentStrictReceive';
      destination: string;
      sendAsset: Asset;
      sendMax: string;
      destAsset: Asset;
      destAmount: string;
      path: Asset[];
    }
  | { type: 'changeTrust'; asset: Asset; action: 'add' | 'remove' };

type FieldErrors = Record<string, string[]>;

function fail(errors: FieldErrors, field: string, message: string): void {
  (errors[field] ??= []).push(message);
}

function parseAmount(errors: FieldErrors, field: string, value: string): string {
  let stroops: bigint;
  try {
    stroops = toStroops(value);
  } catch {
    fail(errors, field, 'must be a decimal string with at most 7 decimals');
    return '0';
  }
  if (stroops <= 0n) fail(errors, field, 'must be greater than 0');
  else if (stroops > INT64_MAX) fail(errors, field, `must be at most ${fromStroops(INT64_MAX)}`);
  return fromStroops(stroops);
}

function parseAssetField(errors: FieldErrors, field: string, value: string): Asset {
  if (value === 'native') return Asset.native();
  const [code, issuer, ...rest] = value.split(':');
  if (!code || !issuer || rest.length || !/^[A-Za-z0-9]{1,12}$/.test(code) || !StrKey.isValidEd25519PublicKey(issuer)) {
    fail(
      errors,
      field,
      "must be 'native' or CODE:ISSUER (code 1-12 letters or digits, issuer a G-address with checksum)",
    );
    return Asset.native();
  }
  return new Asset(code, issuer);
}

function parseDestination(errors: FieldErrors, field: string, value: string): string {
  if (!StrKey.isValidEd25519PublicKey(value)) fail(errors, field, 'must be a Stellar G-address (checksum)');
  return value;
}

function parsePath(errors: FieldErrors, path: string[] | undefined): Asset[] {
  const assets = (path ?? []).map((a, i) => parseAssetField(errors, `operation.path.${i}`, a));
  if (assets.length > MAX_PATH) fail(errors, 'operation.path', `must have at most ${MAX_PATH} assets`);
  return assets;
}

function parseMemo(errors: FieldErrors, request: BuildRequest): Memo | undefined {
  const shorthand = request.operation.type === 'payment' ? request.operation.memo : undefined;
  if (shorthand !== undefined && request.memo !== undefined) {
    fail(errors, 'memo', 'give either memo or operation.memo, not both');
    fail(errors, 'operation.memo', 'give either memo or operation.memo, not both');
    return undefined;
  }
  const memo = request.memo ?? (shorthand !== undefined ? { type: 'text' as const, value: shorthand } : undefined);
  if (!memo) return undefined;
  const field = request.memo ? 'memo.value' : 'operation.memo';
  switch (memo.type) {
    case 'text':
      if (Buffer.byteLength(memo.value, 'utf8') > TEXT_MEMO_BYTES)
        return void fail(errors, field, `must be at most ${TEXT_MEMO_BYTES} bytes of UTF-8`);
      return Memo.text(memo.value);
    case 'id':
      if (!/^\d{1,20}$/.test(memo.value) || BigInt(memo.value) > UINT64_MAX)
        return void fail(errors, field, `must be an integer from 0 to ${UINT64_MAX}`);
      return Memo.id(BigInt(memo.value).toString());
    case 'hash':
      if (!/^[0-9a-f]{64}$/i.test(memo.value)) return void fail(errors, field, 'must be 64 hex characters (32 bytes)');
      return Memo.hash(memo.value.toLowerCase());
    default:
      return void fail(errors, 'memo.type', 'must be text, id or hash');
  }
}

/** Step 1: the request alone. Throws 400 VALIDATION_ERROR with every field's problems at once. */
function parseRequest(request: BuildRequest): { op: ParsedOperation; memo: Memo | undefined } {
  const errors: FieldErrors = {};
  const o = request.operation;
  let op: ParsedOperation;
  switch (o.type) {
    case 'payment':
      op = {
        type: 'payment',
        destination: parseDestination(errors, 'operation.destination', o.destination),
        asset: parseAssetField(errors, 'operation.asset', o.asset),
        amount: parseAmount(errors, 'operation.amount', o.amount),
      };
      break;
    case 'pathPaymentStrictSend':
      op = {
        type: o.type,
        destination: parseDestination(errors, 'operation.destination', o.destination),
        sendAsset: parseAssetField(errors, 'operation.sendAsset', o.sendAsset),
        sendAmount: parseAmount(errors, 'operation.sendAmount', o.sendAmount),
        destAsset: parseAssetField(errors, 'operation.destAsset', o.destAsset),
        destMin: parseAmount(errors, 'operation.destMin', o.destMin),
        path: parsePath(errors, o.path),
      };
      break;
    case 'pathPaymentStrictReceive':
      op = {
        type: o.type,
        destination: parseDestination(errors, 'operation.destination', o.destination),
        sendAsset: parseAssetField(errors, 'operation.sendAsset', o.sendAsset),
        sendMax: parseAmount(errors, 'operation.sendMax', o.sendMax),
        destAsset: parseAssetField(errors, 'operation.destAsset', o.destAsset),
        destAmount: parseAmount(errors, 'operation.destAmount', o.destAmount),
        path: parsePath(errors, o.path),
      };
      break;
    case 'changeTrust': {
      const asset = parseAssetField(errors, 'operation.asset', o.asset);
      if (o.asset === 'native')
        fail(errors, 'operation.asset', 'XLM (native) needs no trustline; give an issued asset CODE:ISSUER');
      if (o.action !== 'add' && o.action !== 'remove') fail(errors, 'operation.action', 'must be one of: add, remove');
      op = { type: 'changeTrust', asset, action: o.action };
      break;
    }
    default:
      fail(
        errors,
        'operation.type',
        'must be one of: payment, pathPaymentStrictSend, pathPaymentStrictReceive, changeTrust',
      );
      throw validationError(errors);
  }
  const memo = parseMemo(errors, request);
  if (Object.keys(errors).length) throw validationError(errors);
  return { op, memo };
}

function validationError(fieldErrors: FieldErrors): AppError {
  return new AppError('VALIDATION_ERROR', { message: 'Request validation failed', details: { fieldErrors } });
}

function nameOf(asset: Asset): string {
  return asset.isNative() ? 'native' : `${asset.getCode()}:${asset.getIssuer()}`;
}

function codeOf(asset: Asset): string {
  return asset.isNative() ? 'XLM' : asset.getCode();
}

function buildError(message: string): AppError {
  return new AppError('SDK_TX_BUILD_ERROR', { message });
}

/** Step 3: payments move XLM or the app's assets only; trustlines are added for the app's assets only. */
function checkAppAssets(app: App, op: ParsedOperation): void {
  const configured = new Set(app.assets);
  const refuse = (asset: Asset, why: string) => {
    throw new AppError('TX_UNSUPPORTED_OPERATION', { message: `${nameOf(asset)} is not an asset of this app: ${why}` });
  };
  switch (op.type) {
    case 'payment':
      if (!op.asset.isNative() && !configured.has(nameOf(op.asset)))
        refuse(op.asset, 'payments move XLM or the assets configured for the app');
      return;
    case 'pathPaymentStrictSend':
    case 'pathPaymentStrictReceive':
      for (const asset of [op.sendAsset, op.destAsset]) {
        if (!asset.isNative() && !configured.has(nameOf(asset)))
          refuse(asset, 'payments move XLM or the assets configured for the app');
      }
      return;
    case 'changeTrust':
      // Removing stays possible after an operator drops an asset from the app: only the wallet's owner can remove it.
      if (op.action === 'add' && !configured.has(nameOf(op.asset)))
        refuse(op.asset, 'trustlines are added for the assets configured for the app');
      return;
  }
}

/** Whether `holder` can hold `asset` (XLM, its own asset, or an authorized trustline); the problem otherwise. */
function holdingProblem(who: string, asset: Asset, holder: string, lines: TrustlineState[]): string | undefined {
  if (asset.isNative() || asset.getIssuer() === holder) return undefined;
  const line = lines.find((l) => l.asset === nameOf(asset));
  if (!line) return `${who} has no ${codeOf(asset)} trustline`;
  if (!line.authorized) return `${who}'s ${codeOf(asset)} trustline is not authorized by its issuer`;
  return undefined;
}

/**
 * How old the ledger figures of a build may be: it takes the base fee and reserve (they change only with a network
 * upgrade) and a close time that only matters when the ledger's clock runs ahead of ours. So concurrent builds share
 * one getLatestLedger per second instead of one each.
 */
const BUILD_FIGURES_MAX_AGE_MS = 1_000;

interface ChainReads {
  figures: LedgerFigures;
  accounts: Map<string, AccountState>;
  walletLines: TrustlineState[];
  destinationLines: TrustlineState[];
  funding: WalletRecord | undefined;
}

async function readChain(
  deps: Pick<Deps, 'db'>,
  gw: StellarGateway,
  app: App,
  wallet: WalletRecord,
  op: ParsedOperation,
): Promise<ChainReads> {
  const funding =
    op.type === 'changeTrust' && op.action === 'add'
      ? await appWalletFor(deps.db, app.id, wallet.network, 'funding')
      : undefined;
  const issued = (assets: Asset[]) => [...new Set(assets.filter((a) => !a.isNative()).map(nameOf))];
  const addresses = [wallet.publicKey];
  let walletAssets: string[];
  let destinationAssets: string[] = [];
  if (op.type === 'changeTrust') {
    walletAssets = [nameOf(op.asset)];
    addresses.push(op.asset.getIssuer()!); // an issued asset: native was refused in step 1
    if (funding) addresses.push(funding.publicKey);
  } else {
    addresses.push(op.destination);
    const send = op.type === 'payment' ? op.asset : op.sendAsset;
    const receive = op.type === 'payment' ? op.asset : op.destAsset;
    walletAssets = issued(op.destination === wallet.publicKey ? [send, receive] : [send]);
    if (op.destination !== wallet.publicKey) destinationAssets = issued([receive]);
  }
  const [figures, accounts, walletLines, destinationLines] = await Promise.all([
    gw.ledgerFigures({ maxAgeMs: BUILD_FIGURES_MAX_AGE_MS }),
    gw.loadAccounts([...new Set(addresses)]),
    walletAssets.length ? gw.trustlines(wallet.publicKey, walletAssets) : Promise.resolve([]),
    destinationAssets.length && op.type !== 'changeTrust'
      ? gw.trustlines(op.destination, destinationAssets)
      : Promise.resolve([]),
  ]);
  return { figures, accounts, walletLines, destinationLines, funding };
}

/** Step 4: what the chain says about the operation; the operations to build when it can be built. */
function operationsFor(
  op: ParsedOperation,
  wallet: WalletRecord,
  reads: ChainReads,
  network: string,
): { ops: xdr.Operation[]; cosigners: 'funding'[] } {
  const { accounts, walletLines, destinationLines, figures } = reads;
  if (op.type === 'changeTrust') {
    const code = codeOf(op.asset);
    const line = walletLines.find((l) => l.asset === nameOf(op.asset));
    if (op.action === 'remove') {
      if (!line) throw buildError(`The wallet has no ${code} trustline`);
      if (line.balanceStroops > 0n) {
        throw new AppError('TRUSTLINE_HAS_BALANCE', {
          message: `The ${code} trustline still holds ${fromStroops(line.balanceStroops)} ${code}`,
        });
      }
      // A line's limit may not fall below balance + buying liabilities (stellar-core: CHANGE_TRUST_INVALID_LIMIT).
      if (line.buyingLiabilitiesStroops > 0n) {
        throw buildError(
          `Open offers of the wallet may still buy ${fromStroops(line.buyingLiabilitiesStroops)} ${code}; cancel them before removing the ${code} trustline`,
        );
      }
      return { ops: [Operation.changeTrust({ asset: op.asset, limit: '0' })], cosigners: [] };
    }
    if (line) throw buildError(`The wallet already has a ${code} trustline`);
    if (!accounts.has(op.asset.getIssuer()!)) throw buildError(`The issuer of ${code} does not exist on ${network}`);
    const reserve = fromStroops(figures.baseReserveStroops);
    if (!reads.funding)
      throw new AppError('INSUFFICIENT_FUNDS_FOR_TRUSTLINE', {
        message: `The app has no funding wallet to sponsor the ${reserve} XLM trustline reserve`,
      });
    const sponsor = accounts.get(reads.funding.publicKey);
    if (!sponsor || availableStroops(sponsor, figures.baseReserveStroops) < figures.baseReserveStroops) {
      throw new AppError('INSUFFICIENT_FUNDS_FOR_TRUSTLINE', {
        message: `The funding wallet cannot cover the ${reserve} XLM trustline reserve`,
      });
    }
    return {
      ops: [
        Operation.beginSponsoringFutureReserves({ sponsoredId: wallet.publicKey, source: reads.funding.publicKey }),
        Operation.changeTrust({ asset: op.asset }),
        Operation.endSponsoringFutureReserves({}),
      ],
      cosigners: ['funding'],
    };
  }

  if (!accounts.has(op.destination)) throw buildError(`The destination account does not exist on ${network}`);
  const send = op.type === 'payment' ? op.asset : op.sendAsset;
  const receive = op.type === 'payment' ? op.asset : op.destAsset;
  const toSelf = op.destination === wallet.publicKey;
  const problem =
    holdingProblem('The wallet', send, wallet.publicKey, walletLines) ??
    holdingProblem(
      toSelf ? 'The wallet' : 'The destination account',
      receive,
      op.destination,
      toSelf ? walletLines : destinationLines,
    );
  if (problem) throw buildError(problem);
  switch (op.type) {
    case 'payment':
      return {
        ops: [Operation.payment({ destination: op.destination, asset: op.asset, amount: op.amount })],
        cosigners: [],
      };
    case 'pathPaymentStrictSend':
      return {
        ops: [
          Operation.pathPaymentStrictSend({
            sendAsset: op.sendAsset,
            sendAmount: op.sendAmount,
            destination: op.destination,
            destAsset: op.destAsset,
            destMin: op.destMin,
            path: op.path,
          }),
        ],
        cosigners: [],
      };
    case 'pathPaymentStrictReceive':
      return {
        ops: [
          Operation.pathPaymentStrictReceive({
            sendAsset: op.sendAsset,
            sendMax: op.sendMax,
            destination: op.destination,
            destAsset: op.destAsset,
            destAmount: op.destAmount,
            path: op.path,
          }),
        ],
        cosigners: [],
      };
  }
}

/** Stroops as XLM with all 7 decimals, as fees are shown ('0.0000200'). */
function feeXlm(stroops: bigint): string {
  return `${stroops / STROOPS_PER_XLM}.${(stroops % STROOPS_PER_XLM).toString().padStart(7, '0')}`;
}

/**
 * Builds the transaction `input.operation` describes for the user's wallet, unsigned (see the header for every
 * refusal). 503 STELLAR_UNAVAILABLE when the network's RPC cannot be reached.
 */
export async function buildUserTransaction(
  deps: Pick<Deps, 'db' | 'stellar' | 'clock'>,
  input: { app: App; wallet: WalletRecord } & BuildRequest,
): Promise<BuiltTx> {
  const { app, wallet } = input;
  // 1. the request
  const { op, memo } = parseRequest(input);
  // 2. the wallet
  if (wallet.fundingState !== 'funded')
    throw new AppError('WALLET_NOT_FUNDED', { message: 'The wallet is not funded yet; it cannot transact' });
  const toSelf = op.type !== 'changeTrust' && op.destination === wallet.publicKey;
  if (toSelf && (op.type === 'payment' || nameOf(op.sendAsset) === nameOf(op.destAsset))) {
    throw buildError('The destination is the wallet itself');
  }
  // 3. the app
  checkAppAssets(app, op);
  // 4. the chain
  const gw = gatewayFor(deps, wallet.network);
  const reads = await readChain(deps, gw, app, wallet, op);
  const account = reads.accounts.get(wallet.publicKey);
  if (!account)
    throw new AppError('WALLET_NOT_FUNDED', {
      message: `The wallet's account does not exist on ${wallet.network} yet; it cannot transact`,
    });
  const { ops, cosigners } = operationsFor(op, wallet, reads, wallet.network);

  // 5. the transaction: valid from now until the bound (from the ledger's clock when it runs ahead of ours)
  const nowSeconds = Math.floor(deps.clock.now().getTime() / 1000);
  const maxTime = Math.max(nowSeconds, reads.figures.closeTime) + input.timeoutSeconds;
  const builder = new TransactionBuilder(new Account(wallet.publicKey, account.sequence), {
    fee: String(reads.figures.baseFeeStroops),
    networkPassphrase: gw.networkPassphrase,
    timebounds: { minTime: 0, maxTime },
    ...(memo ? { memo } : {}),
  });
  for (const o of ops) builder.addOperation(o);
  const tx = builder.build();

  // 6. the words
  const description = describeTransaction(tx);
  const estimatedFeeStroops = feeBumpFeeOf(tx);
  const reserveLine = `Reserve ${fromStroops(reads.figures.baseReserveStroops)} XLM, sponsored by the app`;
  const lines = description.lines.map((l) => (l.startsWith('Reserve sponsored by ') ? reserveLine : l));
  lines.push(`Network fee ${feeXlm(estimatedFeeStroops)} XLM, paid by the app`);
  return {
    tx,
    chainSequence: BigInt(account.sequence),
    description,
    summary: { title: description.title, lines },
    cosigners,
    estimatedFeeStroops,
    validUntil: new Date(maxTime * 1000),
  };
}
