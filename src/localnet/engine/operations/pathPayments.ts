// pathPaymentStrictReceive / pathPaymentStrictSend. Order books are not modelled (see pathPaymentCore.ts): only
// same-asset payments succeed; any path needing a conversion fails with TOO_FEW_OFFERS (-10).

import { OP_TYPE, PATH_PAYMENT } from '../codes';
import { isAssetWireValid } from '../encode';
import { opInner } from '../results';
import type { xdr } from '@stellar/stellar-sdk';
import { strictReceive, strictSend } from './pathPaymentCore';
import { defineOperation } from './types';

const allValid = (assets: xdr.AssetWire[]) => assets.every((a) => isAssetWireValid(a));

const RECEIVE = OP_TYPE.PATH_PAYMENT_STRICT_RECEIVE;
const SEND = OP_TYPE.PATH_PAYMENT_STRICT_SEND;

export const pathPaymentStrictReceive = defineOperation({
  type: RECEIVE,
  checkValid({ pathPaymentStrictReceiveOp: op }) {
    if (op.destAmount <= 0n || op.sendMax <= 0n) return opInner(RECEIVE, PATH_PAYMENT.MALFORMED);
    if (!allValid([op.sendAsset, op.destAsset, ...op.path])) return opInner(RECEIVE, PATH_PAYMENT.MALFORMED);
    return undefined;
  },
  apply({ pathPaymentStrictReceiveOp: op }, ctx) {
    const outcome = strictReceive(ctx, op);
    if (outcome.code !== PATH_PAYMENT.SUCCESS) return opInner(RECEIVE, outcome.code);
    return opInner(RECEIVE, outcome.code, { success: { offers: [], last: outcome.last } });
  },
});

export const pathPaymentStrictSend = defineOperation({
  type: SEND,
  checkValid({ pathPaymentStrictSendOp: op }) {
    if (op.sendAmount <= 0n || op.destMin <= 0n) return opInner(SEND, PATH_PAYMENT.MALFORMED);
    if (!allValid([op.sendAsset, op.destAsset, ...op.path])) return opInner(SEND, PATH_PAYMENT.MALFORMED);
    return undefined;
  },
  apply({ pathPaymentStrictSendOp: op }, ctx) {
    const outcome = strictSend(ctx, op);
    if (outcome.code !== PATH_PAYMENT.SUCCESS) return opInner(SEND, outcome.code);
    return opInner(SEND, outcome.code, { success: { offers: [], last: outcome.last } });
  },
});
