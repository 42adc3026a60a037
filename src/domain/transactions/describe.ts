// What a transaction does, in words and in the fields the service stores and checks: the title and lines a user
// confirms before signing, the one-line summary each wallet's history shows, and the facts the fee-bump policy needs
// (every asset moved, every merge destination, every payment). Pure: it reads the transaction and nothing else.
//
// The "main" operation is the first one that is not part of a sponsorship sandwich (beginSponsoringFutureReserves /
// endSponsoringFutureReserves): in a sponsored trustline the changeTrust is what the user asked for. Muxed (M...)
// addresses are resolved to the G-address of their account: that account holds the funds and keeps the history.
import {
  MuxedAccount,
  StrKey,
  type Asset,
  type LiquidityPoolAsset,
  type OperationRecord,
  type Transaction,
} from '@stellar/stellar-sdk';
import { ASSETLESS_OPERATIONS, XLM_ONLY_OPERATIONS } from '../feePolicy/operationAssets';
import { fromStroops, toStroops } from '../money/amounts';
import { displayBytes } from '../text/safeText';

export interface TxPayment {
  from: string;
  to: string;
  /** 'native' | 'CODE:ISSUER' */
  asset: string;
  /** Canonical decimal string. */
  amount: string;
}

export interface TxDescription {
  /** The main operation's SDK type (the first that is not begin/endSponsoringFutureReserves). */
  operation: string;
  opsCount: number;
  /** Every operation's type, in order. */
  operationTypes: string[];
  /** The transaction's source account (G-address). */
  sourceAccount: string;
  /** The main operation's destination (payment, path payments, createAccount, accountMerge), else null. */
  destination: string | null;
  /** The main operation's asset: payment asset, path payment's send asset, changeTrust asset, 'native' for createAccount. */
  asset: string | null;
  /** Canonical decimal: payment amount, strict-send sendAmount, strict-receive destAmount, createAccount startingBalance. */
  amount: string | null;
  /**
   * The memo as display text: a text memo's bytes as UTF-8 (invalid sequences and control characters shown as U+FFFD:
   * src/domain/text/safeText.ts), an id memo's decimal, a hash/return memo's hex; null without memo.
   */
  memo: string | null;
  /** A text memo's exact bytes, base64 (up to 28 arbitrary bytes on the chain); null for other memos. */
  memoBase64: string | null;
  /**
   * Every asset the transaction can move: what payments and path payments send, receive or pass through, changeTrust
   * lines, offers' selling and buying assets, claimable balances, clawbacks, XLM of createAccount; deduped, in order.
   */
  movedAssets: string[];
  /** Assets to read from the ledger: claimable balances' and liquidity pools' (the policy check reads them). */
  ledgerAssetLookups: LedgerAssetLookup[];
  /** Operation types whose moved assets cannot be determined at all (Soroban calls, unknown types). */
  undeterminedAssetOperations: string[];
  accountMergeDestinations: string[];
  /** Every payment-like operation (path payments with their destination amount, createAccount as native). */
  payments: TxPayment[];
  /** "Send 10 USDC", "Add USDC trustline", "Remove USDC trustline", "Swap 10 USDC for EURC"... */
  title: string;
  /** ['To GA2U...W27N', 'Amount 10 USDC', 'Memo order 42'] (the fee line is the caller's). */
  lines: string[];
  /** One line for `publicKey`'s history: "Sent 10 USDC to GA2U...W27N", "Received 10 USDC from GBX4...H4KQ". */
  summaryFor(publicKey: string): { direction: 'sent' | 'received'; text: string };
}

/** What a transaction's record takes from its description (store.ts NewTx). */
export function recordFieldsOf(d: TxDescription) {
  return {
    operation: d.operation,
    opsCount: d.opsCount,
    sourceAccount: d.sourceAccount,
    destination: d.destination,
    asset: d.asset,
    amount: d.amount,
    memo: d.memo,
    memoBase64: d.memoBase64,
  };
}

/** 'GA2U...W27N': the first 4 and last 4 characters, as wallets show addresses. */
export function shortAddress(g: string): string {
  return g.length <= 12 ? g : `${g.slice(0, 4)}...${g.slice(-4)}`;
}

/** 'native' | 'CODE:ISSUER' */
export function assetName(a: Asset): string {
  return a.isNative() ? 'native' : `${a.getCode()}:${a.getIssuer()}`;
}

/** A changeTrust line: an asset, or a liquidity pool's shares ('liquidity_pool:<assetA>/<assetB>'). */
function lineName(line: Asset | LiquidityPoolAsset): string {
  if ('assetA' in line) return `liquidity_pool:${assetName(line.assetA)}/${assetName(line.assetB)}`;
  return assetName(line);
}

/** What a person reads: 'XLM', 'USDC'. */
function assetCode(a: Asset | LiquidityPoolAsset): string {
  if ('assetA' in a) return `${assetCode(a.assetA)}/${assetCode(a.assetB)} pool shares`;
  return a.isNative() ? 'XLM' : a.getCode();
}

/** An SDK amount ('10.0000000') in stroops; a client's XDR may carry a negative one, which the network refuses. */
function stroopsOf(amount: string): bigint {
  return amount.startsWith('-') ? -toStroops(amount.slice(1)) : toStroops(amount);
}

/** The SDK's '10.0000000' as '10'. */
function canonical(amount: string): string {
  return fromStroops(stroopsOf(amount));
}

/** The account behind an address: a muxed M-address's G-address, a G-address itself. */
export function accountOf(address: string): string {
  return StrKey.isValidMed25519PublicKey(address)
    ? MuxedAccount.fromAddress(address, '0').baseAccount().accountId()
    : address;
}

/** A text memo's bytes: the chain's memo text is up to 28 arbitrary bytes, not necessarily UTF-8. */
function textMemoBytes(tx: Transaction): Buffer | null {
  const { type, value } = tx.memo;
  if (type !== 'text' || value === null || value === undefined) return null;
  return typeof value === 'string' ? Buffer.from(value, 'utf8') : Buffer.from(value);
}

function memoText(tx: Transaction): string | null {
  const { type, value } = tx.memo;
  if (type === 'none' || value === null || value === undefined) return null;
  if (type === 'text') return displayBytes(textMemoBytes(tx)!);
  if (type === 'id') return String(value);
  return Buffer.from(value as Uint8Array).toString('hex');
}

function memoLine(tx: Transaction, text: string | null): string | null {
  if (text === null) return null;
  const type = tx.memo.type;
  return type === 'text' || type === 'id' ? `Memo ${text}` : `Memo (${type}) ${text}`;
}

/** The default trustline limit (js: INT64_MAX stroops), i.e. no limit worth showing. */
const INT64_MAX = 9_223_372_036_854_775_807n;

const SANDWICH = new Set(['beginSponsoringFutureReserves', 'endSponsoringFutureReserves']);

type Op = OperationRecord;

function payment(op: Op, txSource: string): TxPayment | null {
  const from = accountOf(op.source ?? txSource);
  switch (op.type) {
    case 'payment':
      return { from, to: accountOf(op.destination), asset: assetName(op.asset), amount: canonical(op.amount) };
    case 'pathPaymentStrictSend':
      return { from, to: accountOf(op.destination), asset: assetName(op.destAsset), amount: canonical(op.destMin) };
    case 'pathPaymentStrictReceive':
      return { from, to: accountOf(op.destination), asset: assetName(op.destAsset), amount: canonical(op.destAmount) };
    case 'createAccount':
      return { from, to: accountOf(op.destination), asset: 'native', amount: canonical(op.startingBalance) };
    default:
      return null;
  }
}

/** An asset the transaction names only by a ledger entry's id: a claimable balance's, or a liquidity pool's two. */
export interface LedgerAssetLookup {
  operation: string;
  kind: 'claimableBalance' | 'liquidityPool';
  /** Hex, as the operation carries it. */
  id: string;
}

function ledgerLookupOf(op: Op): LedgerAssetLookup | undefined {
  switch (op.type) {
    case 'claimClaimableBalance':
    case 'clawbackClaimableBalance':
      return { operation: op.type, kind: 'claimableBalance', id: op.balanceId };
    case 'liquidityPoolDeposit':
    case 'liquidityPoolWithdraw':
      return { operation: op.type, kind: 'liquidityPool', id: op.liquidityPoolId };
    default:
      return undefined;
  }
}

/**
 * The assets an operation can move, for the fee-bump policy: every operation type has its case (those that move XLM
 * only or nothing are listed in feePolicy/operationAssets.ts, shared with the Dashboard's dry run). Undefined when the
 * transaction alone does not say: a claimable balance's or a liquidity pool's assets live on the ledger (read by the
 * policy check: ledgerLookupOf), and a Soroban call can move anything; the policy denies what it cannot determine
 * (fail closed) rather than count it as moving nothing.
 */
function assetsMovedBy(op: Op): string[] | undefined {
  if (XLM_ONLY_OPERATIONS.has(op.type)) return ['native'];
  if (ASSETLESS_OPERATIONS.has(op.type)) return [];
  switch (op.type) {
    case 'payment':
      return [assetName(op.asset)];
    case 'pathPaymentStrictSend':
    case 'pathPaymentStrictReceive':
      return [assetName(op.sendAsset), ...op.path.map(assetName), assetName(op.destAsset)];
    case 'changeTrust':
      return 'assetA' in op.line ? [assetName(op.line.assetA), assetName(op.line.assetB)] : [assetName(op.line)];
    case 'manageSellOffer':
    case 'manageBuyOffer':
    case 'createPassiveSellOffer':
      return [assetName(op.selling), assetName(op.buying)];
    case 'createClaimableBalance':
    case 'clawback':
    case 'setTrustLineFlags':
      return [assetName(op.asset)];
    case 'allowTrust':
      return [`${op.assetCode}:${accountOf(op.source ?? op.trustor)}`];
    default:
      // claimClaimableBalance, clawbackClaimableBalance, liquidityPoolDeposit, liquidityPoolWithdraw,
      // invokeHostFunction, and any operation type added after this was written.
      return undefined;
  }
}

interface MainView {
  destination: string | null;
  asset: string | null;
  amount: string | null;
  title: string;
  lines: string[];
  /** The history line of the transaction's source. */
  sent: string;
}

/** The main operation in words, from the point of view of the account it is for (`self`). */
function viewOf(op: Op | undefined, self: string, tx: Transaction): MainView {
  const none = { destination: null, asset: null, amount: null };
  if (!op) return { ...none, title: 'Empty transaction', lines: [], sent: 'Empty transaction' };
  switch (op.type) {
    case 'payment': {
      const to = accountOf(op.destination);
      const amount = canonical(op.amount);
      const what = `${amount} ${assetCode(op.asset)}`;
      return {
        destination: to,
        asset: assetName(op.asset),
        amount,
        title: `Send ${what}`,
        lines: [`To ${shortAddress(to)}`, `Amount ${what}`],
        sent: `Sent ${what} to ${shortAddress(to)}`,
      };
    }
    case 'pathPaymentStrictSend':
    case 'pathPaymentStrictReceive': {
      const to = accountOf(op.destination);
      const strictSend = op.type === 'pathPaymentStrictSend';
      const send = assetCode(op.sendAsset);
      const receive = assetCode(op.destAsset);
      const sendLine = strictSend
        ? `Send ${canonical(op.sendAmount)} ${send}`
        : `Send at most ${canonical(op.sendMax)} ${send}`;
      const receiveLine = strictSend
        ? `Receive at least ${canonical(op.destMin)} ${receive}`
        : `Receive ${canonical(op.destAmount)} ${receive}`;
      const amount = strictSend ? canonical(op.sendAmount) : canonical(op.destAmount);
      const toSelf = to === self;
      const title = strictSend
        ? toSelf || send !== receive
          ? `Swap ${amount} ${send} for ${receive}`
          : `Send ${amount} ${send}`
        : toSelf || send !== receive
          ? `Swap ${send} for ${amount} ${receive}`
          : `Send ${amount} ${receive}`;
      const lines = [
        ...(toSelf ? [] : [`To ${shortAddress(to)}`]),
        sendLine,
        receiveLine,
        ...(op.path.length ? [`Via ${op.path.map(assetCode).join(', ')}`] : []),
      ];
      const sent = toSelf
        ? `Swapped ${strictSend ? `${amount} ${send} for ${receive}` : `${send} for ${amount} ${receive}`}`
        : `Sent ${amount} ${strictSend ? send : receive} to ${shortAddress(to)}`;
      return { destination: to, asset: assetName(op.sendAsset), amount, title, lines, sent };
    }
    case 'changeTrust': {
      const code = assetCode(op.line);
      const remove = stroopsOf(op.limit) === 0n;
      const sponsor = tx.operations.find(
        (o) => o.type === 'beginSponsoringFutureReserves' && accountOf(o.sponsoredId) === self,
      );
      const lines = [
        'assetA' in op.line
          ? `Pool ${lineName(op.line)}`
          : `Asset ${code} issued by ${shortAddress(op.line.getIssuer() ?? '')}`,
      ];
      if (!remove && sponsor)
        lines.push(`Reserve sponsored by ${shortAddress(accountOf(sponsor.source ?? tx.source))}`);
      if (!remove && stroopsOf(op.limit) !== INT64_MAX) lines.push(`Limit ${canonical(op.limit)} ${code}`);
      return {
        ...none,
        asset: lineName(op.line),
        title: remove ? `Remove ${code} trustline` : `Add ${code} trustline`,
        lines,
        sent: remove ? `Removed ${code} trustline` : `Added ${code} trustline`,
      };
    }
    case 'createAccount': {
      const to = accountOf(op.destination);
      const amount = canonical(op.startingBalance);
      return {
        destination: to,
        asset: 'native',
        amount,
        title: `Create account with ${amount} XLM`,
        lines: [`Account ${shortAddress(to)}`, `Starting balance ${amount} XLM`],
        sent: `Created account ${shortAddress(to)} with ${amount} XLM`,
      };
    }
    case 'accountMerge': {
      const to = accountOf(op.destination);
      return {
        ...none,
        destination: to,
        title: 'Merge account',
        lines: [`Into ${shortAddress(to)}`, 'Sends the whole XLM balance and closes this account'],
        sent: `Merged account into ${shortAddress(to)}`,
      };
    }
    default:
      return { ...none, title: op.type, lines: [], sent: op.type };
  }
}

/** Describes an inner transaction (never a fee-bump: pass `feeBump.innerTransaction`). */
export function describeTransaction(tx: Transaction): TxDescription {
  const ops = tx.operations;
  const source = accountOf(tx.source);
  const main = ops.find((op) => !SANDWICH.has(op.type)) ?? ops[0];
  const mainSelf = accountOf(main?.source ?? tx.source);
  const view = viewOf(main, mainSelf, tx);
  const memo = memoText(tx);
  const paid = ops.flatMap((op) => {
    const p = payment(op, source);
    return p ? [{ op, payment: p }] : [];
  });
  const others = ops.filter((op) => op !== main && !SANDWICH.has(op.type));

  const lines = [...view.lines];
  const memoL = memoLine(tx, memo);
  if (memoL) lines.push(memoL);
  if (others.length) lines.push(`${ops.length} operations: ${ops.map((o) => o.type).join(', ')}`);
  const more = others.length ? ` and ${others.length} more operation${others.length > 1 ? 's' : ''}` : '';

  return {
    operation: main?.type ?? 'none',
    opsCount: ops.length,
    operationTypes: ops.map((op) => op.type),
    sourceAccount: source,
    destination: view.destination,
    asset: view.asset,
    amount: view.amount,
    memo,
    memoBase64: textMemoBytes(tx)?.toString('base64') ?? null,
    movedAssets: [...new Set(ops.flatMap((op) => assetsMovedBy(op) ?? []))],
    ledgerAssetLookups: ops.flatMap((op) => ledgerLookupOf(op) ?? []),
    undeterminedAssetOperations: [
      ...new Set(ops.filter((op) => assetsMovedBy(op) === undefined && !ledgerLookupOf(op)).map((op) => op.type)),
    ],
    accountMergeDestinations: ops.flatMap((op) => (op.type === 'accountMerge' ? [accountOf(op.destination)] : [])),
    payments: paid.map((p) => p.payment),
    title: view.title + more,
    lines,
    summaryFor(publicKey: string) {
      const self = accountOf(publicKey);
      // Received: the account is paid and is not the one paying (a swap to oneself is the payer's own line).
      const incoming = paid.find((p) => p.payment.to === self && p.payment.from !== self);
      if (incoming) {
        const { from, asset, amount } = incoming.payment;
        const atLeast = incoming.op.type === 'pathPaymentStrictSend' ? 'at least ' : '';
        return {
          direction: 'received',
          text: `Received ${atLeast}${amount} ${codeOf(asset)} from ${shortAddress(from)}`,
        };
      }
      // Sent (or anything else the account did): the main operation's line, from the main operation's source's view.
      return { direction: 'sent', text: view.sent + more };
    },
  };
}

function codeOf(asset: string): string {
  return asset === 'native' ? 'XLM' : asset.split(':')[0]!;
}
