// The shapes of Bridge's answers the adapter reads (apidocs.bridge.xyz: KYC links, exchange rates, external accounts,
// transfers, webhook events), as JSON schemas checked with Ajv. A provider's answer is hostile input: checking it
// whole at the boundary turns a wrong type, a missing id or an amount that is not a decimal string into one
// UpstreamFailure naming the field, instead of a TypeError (or a wrong amount) somewhere later. Ajv rather than hand
// checks because the schemas read like the documentation they follow and the validators narrow the types; only the
// fields the adapter uses are required, and unknown fields are allowed (Bridge adds fields over time).
import Ajv, { type ValidateFunction } from 'ajv';
import { UpstreamFailure } from './upstream';

const ajv = new Ajv({ allErrors: false, strict: true, strictRequired: false, allowUnionTypes: true });

const decimal = { type: 'string', pattern: '^\\d{1,20}(\\.\\d{1,30})?$' } as const;
const id = { type: 'string', minLength: 1, maxLength: 200 } as const;
const text = { type: 'string', maxLength: 500 } as const;
const url = { type: 'string', pattern: '^https?://', maxLength: 2048 } as const;
const optionalText = { type: ['string', 'null'], maxLength: 500 } as const;

export type BridgeKycStatus =
  | 'not_started'
  | 'incomplete'
  | 'awaiting_questionnaire'
  | 'awaiting_ubo'
  | 'under_review'
  | 'approved'
  | 'rejected'
  | 'paused'
  | 'offboarded';

export interface BridgeKycLink {
  id: string;
  email: string;
  kyc_link: string;
  tos_link: string;
  kyc_status: BridgeKycStatus;
  tos_status: 'pending' | 'approved';
  customer_id?: string | null;
}

const kycLinkSchema = {
  type: 'object',
  required: ['id', 'email', 'kyc_link', 'tos_link', 'kyc_status', 'tos_status'],
  properties: {
    id,
    email: text,
    kyc_link: url,
    tos_link: url,
    kyc_status: {
      enum: [
        'not_started',
        'incomplete',
        'awaiting_questionnaire',
        'awaiting_ubo',
        'under_review',
        'approved',
        'rejected',
        'paused',
        'offboarded',
      ],
    },
    tos_status: { enum: ['pending', 'approved'] },
    customer_id: { type: ['string', 'null'], maxLength: 200 },
  },
} as const;

export const isKycLink: ValidateFunction<BridgeKycLink> = ajv.compile<BridgeKycLink>(kycLinkSchema);
export const isKycLinks: ValidateFunction<{ data: BridgeKycLink[] }> = ajv.compile<{ data: BridgeKycLink[] }>({
  type: 'object',
  required: ['data'],
  properties: { data: { type: 'array', maxItems: 100, items: kycLinkSchema } },
});

export interface BridgeExchangeRate {
  midmarket_rate: string;
  buy_rate: string;
  sell_rate: string;
}

export const isExchangeRate: ValidateFunction<BridgeExchangeRate> = ajv.compile<BridgeExchangeRate>({
  type: 'object',
  required: ['midmarket_rate', 'buy_rate', 'sell_rate'],
  properties: { midmarket_rate: decimal, buy_rate: decimal, sell_rate: decimal },
});

export interface BridgeExternalAccount {
  id: string;
  currency: string;
  active?: boolean;
}

export const isExternalAccounts: ValidateFunction<{ data: BridgeExternalAccount[] }> = ajv.compile<{
  data: BridgeExternalAccount[];
}>({
  type: 'object',
  required: ['data'],
  properties: {
    data: {
      type: 'array',
      maxItems: 100,
      items: {
        type: 'object',
        required: ['id', 'currency'],
        properties: { id, currency: { type: 'string', maxLength: 10 }, active: { type: 'boolean' } },
      },
    },
  },
});

/** source_deposit_instructions: bank details for a fiat source, an address and memo for a crypto one. */
export interface BridgeDepositInstructions {
  payment_rail: string;
  currency: string;
  amount?: string;
  deposit_message?: string;
  to_address?: string;
  blockchain_memo?: string;
  bank_name?: string;
  bank_address?: string;
  bank_routing_number?: string;
  bank_account_number?: string;
  bank_beneficiary_name?: string;
  bank_beneficiary_address?: string;
  iban?: string;
  bic?: string;
  account_holder_name?: string;
}

export type BridgeTransferState =
  | 'awaiting_funds'
  | 'in_review'
  | 'funds_received'
  | 'payment_submitted'
  | 'payment_processed'
  | 'canceled'
  | 'error'
  | 'undeliverable'
  | 'returned'
  | 'missing_return_policy'
  | 'refunded';

export interface BridgeTransfer {
  id: string;
  state: BridgeTransferState;
  amount?: string | null;
  source: { payment_rail: string; currency: string };
  destination: { payment_rail: string; currency: string };
  source_deposit_instructions?: BridgeDepositInstructions | null;
  receipt?: { destination_tx_hash?: string | null } | null;
}

const rail = {
  type: 'object',
  required: ['payment_rail', 'currency'],
  properties: { payment_rail: { type: 'string', maxLength: 50 }, currency: { type: 'string', maxLength: 10 } },
} as const;

const detail = { type: 'string', maxLength: 200 } as const;

export const isTransfer: ValidateFunction<BridgeTransfer> = ajv.compile<BridgeTransfer>({
  type: 'object',
  required: ['id', 'state', 'source', 'destination'],
  properties: {
    id,
    state: {
      enum: [
        'awaiting_funds',
        'in_review',
        'funds_received',
        'payment_submitted',
        'payment_processed',
        'canceled',
        'error',
        'undeliverable',
        'returned',
        'missing_return_policy',
        'refunded',
      ],
    },
    amount: { anyOf: [decimal, { type: 'null' }] },
    source: rail,
    destination: rail,
    source_deposit_instructions: {
      type: ['object', 'null'],
      required: ['payment_rail', 'currency'],
      properties: {
        payment_rail: { type: 'string', maxLength: 50 },
        currency: { type: 'string', maxLength: 10 },
        amount: decimal,
        deposit_message: { type: 'string', minLength: 1, maxLength: 100 },
        to_address: { type: 'string', maxLength: 100 },
        blockchain_memo: { type: 'string', maxLength: 100 },
        bank_name: detail,
        bank_address: detail,
        bank_routing_number: detail,
        bank_account_number: detail,
        bank_beneficiary_name: detail,
        bank_beneficiary_address: detail,
        iban: detail,
        bic: detail,
        account_holder_name: detail,
      },
    },
    receipt: {
      type: ['object', 'null'],
      properties: {
        // The on-ramp's Stellar payment, once Bridge has sent it.
        destination_tx_hash: { anyOf: [{ type: 'string', pattern: '^[0-9a-fA-F]{64}$' }, { type: 'null' }] },
      },
    },
  },
});

export interface BridgeWebhookEvent {
  event_id: string;
  event_category: string;
  event_type: string;
  event_object: unknown;
}

export const isWebhookEvent: ValidateFunction<BridgeWebhookEvent> = ajv.compile<BridgeWebhookEvent>({
  type: 'object',
  required: ['event_id', 'event_category', 'event_type', 'event_object'],
  properties: {
    event_id: id,
    event_category: optionalText,
    event_type: optionalText,
    event_object: { type: 'object' },
  },
});

/** The answer as `T`, or an UpstreamFailure naming the first field that is not what Bridge documents. */
export function readAnswer<T>(validate: ValidateFunction<T>, body: unknown, what: string): T {
  if (validate(body)) return body;
  throw new UpstreamFailure(`Bridge ${what}: ${ajv.errorsText(validate.errors, { dataVar: what })}`);
}
