// Requests from the service to a ramp provider's API (Bridge, Etherfuse, a SEP-24 anchor). One place decides what
// counts as the provider failing: no answer within RAMPS_TIMEOUT_MS, a connection error, a 5xx, or a body that is not
// the JSON it promised. Those are UpstreamFailure, which the service answers with the provider's 502 code (retryable);
// a 4xx is the provider's refusal and goes back to the adapter, which knows what it means.
//
// The destination is checked as webhook URLs are (infra/egress): https only and public addresses only, unless
// RAMPS_ALLOW_INSECURE (a local anchor in development and tests). An anchor's domain is an operator's input, so an
// anchor pointing inside the network is refused, not fetched. Redirects are not followed.
import { resolveDestination } from '../../infra/egress/post';
import type { Deps } from '../deps';
import { DEFAULT_RAMPS_SETTINGS } from '../../config';

/** The provider did not give a usable answer (the 502 of its upstreamCode). `reason` is for logs, never for users. */
export class UpstreamFailure extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'UpstreamFailure';
  }
}

export interface UpstreamAnswer {
  status: number;
  /** The parsed JSON body (undefined when the answer had none). */
  body: unknown;
  headers: Headers;
}

/** The most of an answer read: a provider's answers are small; a larger one is a failure, not a memory problem. */
const MAX_ANSWER_BYTES = 1_000_000;

export interface UpstreamRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  headers?: Record<string, string>;
  /** JSON-encoded when an object; sent as is when a string or URLSearchParams. */
  body?: unknown;
}

/** Sends `request`; throws UpstreamFailure for a transport failure, a 5xx or an unreadable body; answers 2xx-4xx. */
export async function upstreamRequest(deps: Pick<Deps, 'ramps'>, request: UpstreamRequest): Promise<UpstreamAnswer> {
  const { status, text, headers } = await upstreamText(deps, request, MAX_ANSWER_BYTES);
  if (text.trim() === '') return { status, body: undefined, headers };
  try {
    return { status, body: JSON.parse(text) as unknown, headers };
  } catch {
    throw new UpstreamFailure(`${request.method} ${new URL(request.url).host}: the answer is not JSON`);
  }
}

/** The same, answering the body as text of at most `maxBytes` (a stellar.toml). */
export async function upstreamText(
  deps: Pick<Deps, 'ramps'>,
  request: UpstreamRequest,
  maxBytes: number,
): Promise<{ status: number; text: string; headers: Headers }> {
  const settings = { ...DEFAULT_RAMPS_SETTINGS, ...deps.ramps };
  const where = `${request.method} ${new URL(request.url).host}`;
  const destination = await resolveDestination(request.url, { allowInsecure: settings.allowInsecure });
  if ('refused' in destination) throw new UpstreamFailure(`the provider URL ${destination.refused}`);
  const headers: Record<string, string> = { accept: 'application/json', ...request.headers };
  let body: string | URLSearchParams | undefined;
  if (request.body instanceof URLSearchParams || typeof request.body === 'string') body = request.body;
  else if (request.body !== undefined) {
    body = JSON.stringify(request.body);
    headers['content-type'] ??= 'application/json';
  }
  let answer: Response;
  try {
    answer = await fetch(request.url, {
      method: request.method,
      headers,
      ...(body !== undefined ? { body } : {}),
      redirect: 'manual',
      signal: AbortSignal.timeout(settings.timeoutMs),
    });
  } catch (err) {
    throw new UpstreamFailure(`${where}: ${(err as Error).message}`);
  }
  if (answer.status >= 500 || (answer.status >= 300 && answer.status < 400))
    throw new UpstreamFailure(`${where}: answered ${answer.status}`);
  try {
    return { status: answer.status, text: await readLimited(answer, maxBytes), headers: answer.headers };
  } catch (err) {
    throw err instanceof UpstreamFailure
      ? err
      : new UpstreamFailure(`${where}: reading the answer: ${(err as Error).message}`);
  }
}

async function readLimited(answer: Response, maxBytes: number): Promise<string> {
  const reader = answer.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new UpstreamFailure(`the answer is larger than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
