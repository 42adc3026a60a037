// payment (PaymentOpFrame): a strict-receive path payment with no path, whose codes map one to one onto
// PaymentResultCode. Paying yourself native XLM is an immediate success. Its CAP-67 event is the path payment's.

import { OP_TYPE, PAYMENT } from '../codes';
import { accountIdFromMuxed, isAssetWireValid } from '../encode';
import { opInner } from '../results';
import { strictReceive } from './pathPaymentCore';
import { defineOperation } from './types';

const T = OP_TYPE.PAYMENT;

export const payment = defineOperation({
  type: T,
  checkValid({ paymentOp: op }) {
    if (op.amount <= 0n || !isAssetWireValid(op.asset)) return opInner(T, PAYMENT.MALFORMED);
    return undefined;
  },
  apply({ paymentOp: op }, ctx) {
    if (op.asset.type === 0 && accountIdFromMuxed(op.destination) === ctx.source) {
      // Core reports even this no-op as a transfer (PaymentOpFrame's instant success).
      ctx.events.transfer(undefined, ctx.sourceMuxed, op.destination, op.amount);
      return opInner(T, PAYMENT.SUCCESS);
    }
    const outcome = strictReceive(ctx, {
      sendAsset: op.asset,
      sendMax: op.amount,
      destination: op.destination,
      destAsset: op.asset,
      destAmount: op.amount,
      path: [],
    });
    return opInner(T, outcome.code);
  },
});
