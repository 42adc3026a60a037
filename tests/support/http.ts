// Calls the live service and checks every answer against the contract; a violation fails the calling test.
import assert from 'node:assert/strict';
import type { OperationId } from '../../generated/server/catalogue.gen';
import { responseViolations, type ObservedResponse } from './spec';

export interface CallOptions {
  headers?: Record<string, string>;
  body?: unknown;
  /** Raw body (sent as is, e.g. broken JSON, or bytes that are not UTF-8). */
  rawBody?: string | Uint8Array<ArrayBuffer>;
}

export async function rawCall(
  baseUrl: string,
  method: string,
  path: string,
  opts: CallOptions = {},
): Promise<ObservedResponse> {
  const headers: Record<string, string> = { ...opts.headers };
  let body: string | Uint8Array<ArrayBuffer> | undefined = opts.rawBody;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(baseUrl + path, { method, headers, body });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

/** Throws unless `res` conforms to the operation's contract (for clients that send their own requests). */
export function conforming<T extends ObservedResponse>(
  operationId: OperationId,
  method: string,
  path: string,
  res: T,
): T {
  const violations = responseViolations(operationId, res);
  if (violations.length)
    throw new Error(
      `${method} ${path} answered ${res.status} against the contract: ${violations.join('; ')}\n${res.text.slice(0, 300)}`,
    );
  return res;
}

/** Calls an operation and asserts the answer conforms to the contract. */
export async function call(
  baseUrl: string,
  operationId: OperationId,
  method: string,
  path: string,
  opts: CallOptions = {},
): Promise<ObservedResponse & { body: any }> {
  const res = await rawCall(baseUrl, method, path, opts);
  assert.deepEqual(
    responseViolations(operationId, res),
    [],
    `${method} ${path} answered ${res.status}: ${res.text.slice(0, 300)}`,
  );
  return res;
}
