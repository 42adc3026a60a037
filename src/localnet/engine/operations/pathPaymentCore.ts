// The payment engine shared by payment and both path payments (core's PathPaymentOpFrameBase).
//
// Order books and liquidity pools are NOT modelled: a payment whose path needs any conversion between two different
// assets fails with TOO_FEW_OFFERS (-10), which is what stellar-core answers when the books are empty. Same-asset
// payments (including a path that only repeats the asset) work exactly as on the network. A successful one emits the
// CAP-67 event core emits last: source -> destination in the destination asset (mint / burn when the issuer is a
// party); with no offers crossed there are no per-trade events before it.

import { PATH_PAYMENT } from '../codes';
import { accountIdFromMuxed, assetWire, creditAssetFromWire, publicKeyWire, sameAsset } from '../encode';
import { addAccountBalance, addTrustlineBalance, availableBalance, isAuthorized } from '../reserves';
import type { CreditAsset } from '../state';
import type { xdr } from '@stellar/stellar-sdk';
import { getAccount, loadAccount, loadLine } from './common';
import type { OpContext } from './types';

type Asset = CreditAsset | undefined; // undefined = native

export interface PathPaymentOutcome {
  code: number;
  /** For success: the SimplePaymentResult `last`. */
  last?: xdr.SimplePaymentResultWire;
}

const assetOf = (a: xdr.AssetWire): Asset => creditAssetFromWire(a);

/** Whether the payment goes back to the issuer without a path: then the destination need not even exist. */
function bypassesIssuerCheck(send: Asset, dest: Asset, path: Asset[], destination: string): boolean {
  return dest !== undefined && path.length === 0 && sameAsset(send, dest) && dest.issuer === destination;
}

function credit(ctx: OpContext, destination: string, asset: Asset, amount: bigint): number {
  if (!asset) {
    const acc = loadAccount(ctx.ltx, destination);
    if (!acc || !addAccountBalance(ctx.header, acc, amount)) return PATH_PAYMENT.LINE_FULL;
    return PATH_PAYMENT.SUCCESS;
  }
  const line = loadLine(ctx.ltx, destination, asset);
  if (line === 'issuer') return PATH_PAYMENT.SUCCESS;
  if (!line) return PATH_PAYMENT.NO_TRUST;
  if (!isAuthorized(line)) return PATH_PAYMENT.NOT_AUTHORIZED;
  if (!addTrustlineBalance(line, amount)) return PATH_PAYMENT.LINE_FULL;
  return PATH_PAYMENT.SUCCESS;
}

function debit(ctx: OpContext, asset: Asset, amount: bigint): number {
  if (!asset) {
    const acc = loadAccount(ctx.ltx, ctx.source);
    if (!acc) return PATH_PAYMENT.MALFORMED;
    if (amount > availableBalance(ctx.header, acc)) return PATH_PAYMENT.UNDERFUNDED;
    if (!addAccountBalance(ctx.header, acc, -amount)) throw new Error('payment: debit refused after check');
    return PATH_PAYMENT.SUCCESS;
  }
  const line = loadLine(ctx.ltx, ctx.source, asset);
  if (line === 'issuer') return PATH_PAYMENT.SUCCESS;
  if (!line) return PATH_PAYMENT.SRC_NO_TRUST;
  if (!isAuthorized(line)) return PATH_PAYMENT.SRC_NOT_AUTHORIZED;
  if (!addTrustlineBalance(line, -amount)) return PATH_PAYMENT.UNDERFUNDED;
  return PATH_PAYMENT.SUCCESS;
}

/** True when walking `hops` (in order) needs no conversion, i.e. every hop is the same asset as the previous one. */
function needsConversion(start: Asset, hops: Asset[]): boolean {
  let current = start;
  for (const next of hops) {
    if (!sameAsset(current, next)) return true;
    current = next;
  }
  return false;
}

function success(destination: string, asset: Asset, amount: bigint): PathPaymentOutcome {
  return {
    code: PATH_PAYMENT.SUCCESS,
    last: { destination: publicKeyWire(destination), asset: assetWire(asset), amount },
  };
}

/** Exact destination amount, at most sendMax sent (PathPaymentStrictReceiveOpFrame::doApply). */
export function strictReceive(
  ctx: OpContext,
  op: {
    sendAsset: xdr.AssetWire;
    sendMax: bigint;
    destination: xdr.MuxedAccountWire;
    destAsset: xdr.AssetWire;
    destAmount: bigint;
    path: xdr.AssetWire[];
  },
): PathPaymentOutcome {
  const destination = accountIdFromMuxed(op.destination);
  const send = assetOf(op.sendAsset);
  const dest = assetOf(op.destAsset);
  const path = op.path.map(assetOf);
  if (!bypassesIssuerCheck(send, dest, path, destination) && !getAccount(ctx.ltx, destination)) {
    return { code: PATH_PAYMENT.NO_DESTINATION };
  }
  const credited = credit(ctx, destination, dest, op.destAmount);
  if (credited !== PATH_PAYMENT.SUCCESS) return { code: credited };

  // Walk from the destination back to the source asset; any real conversion would need the order books.
  if (needsConversion(dest, [...path].reverse().concat([send]))) return { code: PATH_PAYMENT.TOO_FEW_OFFERS };
  const amountSent = op.destAmount;
  if (amountSent > op.sendMax) return { code: PATH_PAYMENT.CONSTRAINT_NOT_MET };

  const debited = debit(ctx, send, amountSent);
  if (debited !== PATH_PAYMENT.SUCCESS) return { code: debited };
  ctx.events.transfer(dest, ctx.sourceMuxed, op.destination, op.destAmount);
  return success(destination, dest, op.destAmount);
}

/** Exact amount sent, at least destMin received (PathPaymentStrictSendOpFrame::doApply). */
export function strictSend(
  ctx: OpContext,
  op: {
    sendAsset: xdr.AssetWire;
    sendAmount: bigint;
    destination: xdr.MuxedAccountWire;
    destAsset: xdr.AssetWire;
    destMin: bigint;
    path: xdr.AssetWire[];
  },
): PathPaymentOutcome {
  const destination = accountIdFromMuxed(op.destination);
  const send = assetOf(op.sendAsset);
  const dest = assetOf(op.destAsset);
  const path = op.path.map(assetOf);
  if (!bypassesIssuerCheck(send, dest, path, destination) && !getAccount(ctx.ltx, destination)) {
    return { code: PATH_PAYMENT.NO_DESTINATION };
  }
  const debited = debit(ctx, send, op.sendAmount);
  if (debited !== PATH_PAYMENT.SUCCESS) return { code: debited };

  if (needsConversion(send, path.concat([dest]))) return { code: PATH_PAYMENT.TOO_FEW_OFFERS };
  const amountReceived = op.sendAmount;
  if (amountReceived < op.destMin) return { code: PATH_PAYMENT.CONSTRAINT_NOT_MET };

  const credited = credit(ctx, destination, dest, amountReceived);
  if (credited !== PATH_PAYMENT.SUCCESS) return { code: credited };
  ctx.events.transfer(dest, ctx.sourceMuxed, op.destination, amountReceived);
  return success(destination, dest, amountReceived);
}
