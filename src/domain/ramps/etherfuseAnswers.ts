// The shapes of Etherfuse's answers the adapter reads (docs.etherfuse.com API reference: KYC status, onboarding URL,
// quote, order, the order_updated webhook), as JSON schemas checked with Ajv: a provider's answer is hostile input,
// and checking it whole at the boundary turns a wrong type, a missing id or an amount that is not a decimal string
// into one UpstreamFailure naming the field instead of a TypeError later. Ajv rather than hand checks because the
// schemas read like the reference they follow and the validators narrow the types; only the fields the adapter uses
// are required, unknown ones are allowed. Amounts are decimal strings, as the current reference writes them (older
// pages of the reference showed numbers: a number is refused, since a float cannot carry an exact amount).
import Ajv, { type ValidateFunction } from 'ajv';
import { UpstreamFailure } from './upstream';

const ajv = new Ajv({ allErrors: false, strict: true, strictRequired: false, allowUnionTypes: true });

const decimal = { type: 'string', pattern: '^\\d{1,20}(\\.\\d{1,30})?$' } as const;
const uuid = {
  type: 'string',
  pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
} as const;

export type EtherfuseKycStatus = 'not_started' | 'proposed' | 'approved' | 'approved_chain_deploying' | 'rejected';

export const isKycStatus: ValidateFunction<{ status: EtherfuseKycStatus }> = ajv.compile<{
  status: EtherfuseKycStatus;
}>({
  type: 'object',
  required: ['status'],
  properties: { status: { enum: ['not_started', 'proposed', 'approved', 'approved_chain_deploying', 'rejected'] } },
});

/** The reference names the field `presigned_url` (older pages: `presignedUrl`); either is read. */
export const isOnboardingUrl: ValidateFunction<{ presigned_url?: string; presignedUrl?: string }> = ajv.compile<{
  presigned_url?: string;
  presignedUrl?: string;
}>({
  type: 'object',
  properties: {
    presigned_url: { type: 'string', pattern: '^https://', maxLength: 2048 },
    presignedUrl: { type: 'string', pattern: '^https://', maxLength: 2048 },
  },
  anyOf: [{ required: ['presigned_url'] }, { required: ['presignedUrl'] }],
});

export interface EtherfuseQuote {
  quoteId: string;
  sourceAmount: string;
  destinationAmount: string;
  expiresAt: string;
  exchangeRate?: string;
  feeAmount?: string;
}

export const isQuote: ValidateFunction<EtherfuseQuote> = ajv.compile<EtherfuseQuote>({
  type: 'object',
  required: ['quoteId', 'sourceAmount', 'destinationAmount', 'expiresAt'],
  properties: {
    quoteId: uuid,
    sourceAmount: decimal,
    destinationAmount: decimal,
    expiresAt: { type: 'string', maxLength: 40 },
    exchangeRate: decimal,
    feeAmount: decimal,
  },
});

/** POST /ramp/order answers `{ onramp: {...} }` or `{ offramp: {...} }`, by the quote's direction. */
export const isCreatedOrder: ValidateFunction<{ onramp?: { orderId: string }; offramp?: { orderId: string } }> =
  ajv.compile<{ onramp?: { orderId: string }; offramp?: { orderId: string } }>({
    type: 'object',
    properties: {
      onramp: { type: 'object', required: ['orderId'], properties: { orderId: uuid } },
      offramp: { type: 'object', required: ['orderId'], properties: { orderId: uuid } },
    },
    anyOf: [{ required: ['onramp'] }, { required: ['offramp'] }],
  });

export type EtherfuseOrderStatus =
  'created' | 'funded' | 'completed' | 'failed' | 'refunded' | 'canceled' | 'finalized';

export interface EtherfuseOrder {
  orderId: string;
  orderType: 'onramp' | 'offramp';
  status: EtherfuseOrderStatus;
  amountInFiat?: string | null;
  amountInTokens?: string | null;
  depositClabe?: string | null;
  depositBankName?: string | null;
  depositAccountHolder?: string | null;
  confirmedTxSignature?: string | null;
  withdrawAnchorAccount?: string | null;
  withdrawMemo?: string | null;
  withdrawMemoType?: 'text' | 'id' | 'hash' | null;
}

const optionalDecimal = { anyOf: [decimal, { type: 'null' }] } as const;
const optionalText = (maxLength: number) => ({ type: ['string', 'null'], maxLength }) as const;

const orderSchema = {
  type: 'object',
  required: ['orderId', 'orderType', 'status'],
  properties: {
    orderId: uuid,
    orderType: { enum: ['onramp', 'offramp'] },
    status: { enum: ['created', 'funded', 'completed', 'failed', 'refunded', 'canceled', 'finalized'] },
    amountInFiat: optionalDecimal,
    amountInTokens: optionalDecimal,
    // A CLABE is 18 digits.
    depositClabe: { anyOf: [{ type: 'string', pattern: '^\\d{18}$' }, { type: 'null' }] },
    depositBankName: optionalText(100),
    depositAccountHolder: optionalText(100),
    confirmedTxSignature: optionalText(200),
    withdrawAnchorAccount: { anyOf: [{ type: 'string', pattern: '^G[A-Z2-7]{55}$' }, { type: 'null' }] },
    withdrawMemo: optionalText(100),
    withdrawMemoType: { enum: ['text', 'id', 'hash', null] },
  },
} as const;

export const isOrder: ValidateFunction<EtherfuseOrder> = ajv.compile<EtherfuseOrder>(orderSchema);

/** The order_updated webhook: the order keyed by the event's name (other events carry other keys). */
export const isWebhookBody: ValidateFunction<Record<string, unknown>> = ajv.compile<Record<string, unknown>>({
  type: 'object',
  minProperties: 1,
});

/** The answer as `T`, or an UpstreamFailure naming the first field that is not what Etherfuse documents. */
export function readAnswer<T>(validate: ValidateFunction<T>, body: unknown, what: string): T {
  if (validate(body)) return body;
  throw new UpstreamFailure(`Etherfuse ${what}: ${ajv.errorsText(validate.errors, { dataVar: what })}`);
}
