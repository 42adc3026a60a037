// Every failure the dashboard shows goes through here: what the Dashboard API answered (its error envelope, thrown by
// the generated client), or a request that never got an answer. Each error code has one message for operators, in
// MESSAGES; a code without one shows the service's own message, which is written for people too.
import { errorCatalogue } from '../../../generated/server/catalogue.gen';
import type { ErrorCode } from '../../../generated/dashboard/types.gen';

export interface Failure {
  /** A catalogue code, or NETWORK_ERROR when no answer arrived. */
  code: ErrorCode | 'NETWORK_ERROR' | 'UNKNOWN';
  /** HTTP status; 0 without an answer. */
  status: number;
  message: string;
  /** VALIDATION_ERROR: field (dotted path: body.name, query.limit) -> messages. */
  fieldErrors: Record<string, string[]>;
  requestId?: string;
}

/** Operator-facing messages, where the service's message would say less than the dashboard can. */
const MESSAGES: Partial<Record<Failure['code'], string>> = {
  NETWORK_ERROR: 'The service did not answer. Check your connection; the action was not confirmed.',
  INVALID_CREDENTIALS: 'You are signed out. Sign in again.',
  SDK_AUTH_TOKEN_EXPIRED: 'Your session expired. Sign in again.',
  SDK_AUTH_INVALID_TOKEN: 'Your session is no longer valid. Sign in again.',
  FORBIDDEN: 'Your role in this app does not allow this (members and archiving are for its owner).',
  APPLICATION_NOT_FOUND: 'This app does not exist, or you are not one of its members.',
  RATE_LIMITED: 'Too many requests. Wait a moment and try again.',
  SERVICE_UNAVAILABLE: 'A service Onboard depends on is unavailable. Try again shortly.',
  STELLAR_UNAVAILABLE: 'The Stellar network cannot be reached right now. Try again shortly.',
  INTERNAL_SERVER_ERROR: 'Something went wrong on our side. Try again; quote the request id if it persists.',
  NOT_IMPLEMENTED: 'This feature is not available on this service yet.',
  EMAIL_CODE_INVALID: 'That code is wrong, expired or used up. Check the email, or send a new code.',
  WALLET_AUTH_FAILED: 'The wallet’s signature was not accepted. Try signing in again.',
  OAUTH_PROVIDER_NOT_CONFIGURED: 'This sign-in method is not set up on this service.',
  OAUTH_STATE_INVALID: 'The sign-in took too long or was already used. Start again.',
  OAUTH_EXCHANGE_FAILED: 'The provider did not confirm the sign-in. Start again.',
  TX_IDEMPOTENCY_CONFLICT: 'The same request is still being processed. Wait a moment and check before trying again.',
  API_KEY_ID_NOT_FOUND: 'This key no longer exists in the app. Refresh the list.',
  MEMBER_NOT_FOUND: 'This person is no longer a member of the app. Refresh the list.',
  WEBHOOK_NOT_CONFIGURED: 'Set an endpoint URL and turn deliveries on first (Endpoint, on the Webhooks page).',
  WEBHOOK_EVENT_NOT_FOUND: 'This event is no longer in the app’s event log. Refresh the log.',
  DISTRIBUTION_RULE_NOT_FOUND:
    'This distribution rule no longer exists (another member may have deleted it). Refresh the list.',
  DISTRIBUTION_ASSET_NOT_ENABLED:
    'This asset is not among the app’s assets. Add it under Settings first, or choose XLM or another of its assets.',
  DISTRIBUTION_NO_DISTRIBUTION_WALLET:
    'The app has no distribution wallet on its network to pay claims from. Set one up on the Treasury page.',
  DISTRIBUTION_PUSH_NOT_FOUND:
    'This push does not exist in the app (check the address, or open it again from the list of pushes).',
  DISTRIBUTION_PUSH_RECIPIENTS_INVALID:
    'A push pays 1 to 10,000 recipients: name at least one, or split a longer list into several pushes.',
  INVALID_CURSOR: 'This page of the list is out of date (its link came from elsewhere). Go back to the first page.',
  KYC_SETTINGS_INVALID:
    'Some KYC providers need a change before they can be saved: see the message under each one. Nothing was saved.',
  RAMP_SETTINGS_INVALID:
    'Some ramp providers need a change before they can be saved: see the message under each one. Nothing was saved.',
  SDK_RAMPS_PROVIDER_NOT_CONFIGURED:
    'A ramp provider cannot be turned on without its credentials: see the message under it. Nothing was saved.',
  SDK_RAMPS_PROVIDER_NOT_FOUND:
    'This service does not support one of the ramp providers in the list. Nothing was saved.',
  SDK_RAMPS_ASSET_NOT_ENABLED:
    'A ramp provider names an asset the app does not have: add it in the app settings first. Nothing was saved.',
  SDK_KYC_PROVIDER_NOT_FOUND:
    'This service does not support one of the KYC providers in the list. Remove it, then save again. Nothing was saved.',
};

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The failure a query or mutation threw (an error envelope from the generated client, or a fetch failure). */
export function failureOf(error: unknown): Failure {
  if (isRecord(error) && error.success === false && typeof error.code === 'string') {
    const details = isRecord(error.details) ? error.details : {};
    const fieldErrors = isRecord(details.fieldErrors) ? (details.fieldErrors as Record<string, string[]>) : {};
    const code = error.code as ErrorCode;
    return {
      code,
      status: statusOf(error),
      message: MESSAGES[code] ?? (typeof error.message === 'string' ? error.message : code),
      fieldErrors,
      ...(typeof error.requestId === 'string' ? { requestId: error.requestId } : {}),
    };
  }
  if (error instanceof TypeError || (error instanceof Error && error.name === 'RequestTimeoutError')) {
    return { code: 'NETWORK_ERROR', status: 0, message: MESSAGES.NETWORK_ERROR!, fieldErrors: {} };
  }
  return {
    code: 'UNKNOWN',
    status: 0,
    message: error instanceof Error ? error.message : 'Something unexpected happened.',
    fieldErrors: {},
  };
}

/** The envelope carries no status: the catalogue fixes each code's. */
function statusOf(error: Record<string, unknown>): number {
  const entry = (errorCatalogue as Record<string, { status: number } | undefined>)[String(error.code)];
  return entry?.status ?? 500;
}

/** The message for people. */
export function messageOf(error: unknown): string {
  return failureOf(error).message;
}

/**
 * One field's messages from a VALIDATION_ERROR (`name`, `origins.2`), joined for display beside the field; undefined
 * when it has none. The service keys body fields by their plain dotted path (src/http/fieldErrors.ts); a
 * `body.`-prefixed key is read too. `withNested` adds the messages of the field's parts (`policy` -> `policy.x`), for
 * a control that edits a whole object or list.
 */
export function fieldErrorOf(error: unknown, field: string, opts: { withNested?: boolean } = {}): string | undefined {
  const messages: string[] = [];
  for (const [path, list] of Object.entries(failureOf(error).fieldErrors)) {
    const name = path.startsWith('body.') ? path.slice('body.'.length) : path;
    if (name === field || (opts.withNested && name.startsWith(`${field}.`))) messages.push(...list);
  }
  return messages.length ? messages.join('; ') : undefined;
}

/** The messages of fields no control shows (`shown(field)` false), as "field: message" lines for a form's summary. */
export function otherFieldErrors(error: unknown, shown: (field: string) => boolean): string[] {
  return Object.entries(failureOf(error).fieldErrors)
    .map(([path, list]) => [path.startsWith('body.') ? path.slice('body.'.length) : path, list] as const)
    .filter(([field]) => !shown(field))
    .map(([field, list]) => `${field}: ${list.join('; ')}`);
}
