// JSON-RPC 2.0 over one HTTP body: envelope checks, dispatch by method name, batches, error objects.
// Stellar RPC (creachadair/jrpc2 behind jhttp) takes params by name only, so positional (array) params are refused.

/** The standard codes Stellar RPC uses (jrpc2's names). */
export const RpcCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
} as const;

/** What a method throws to answer with a JSON-RPC error object instead of a result. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}

export type JsonObject = Record<string, unknown>;
type Id = string | number | null;

export interface RpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}
export type RpcResponse =
  { jsonrpc: '2.0'; id: Id; result: unknown } | { jsonrpc: '2.0'; id: Id; error: RpcErrorObject };

/** Per-HTTP-request facts a method may need (getNetwork builds friendbotUrl from the Host the client used). */
export interface CallInfo {
  host?: string;
}

/** A method gets its params as an object (`{}` when the client sent null or nothing) and returns its result. */
export type MethodHandler = (params: JsonObject, call: CallInfo) => unknown;

export interface Dispatcher {
  /** Answers one HTTP body; undefined when every request in it was a notification (no response is due). */
  handleBody(body: string, call: CallInfo): Promise<RpcResponse | RpcResponse[] | undefined>;
}

function errorResponse(id: Id, code: number, message: string, data?: unknown): RpcResponse {
  return { jsonrpc: '2.0', id, error: data === undefined ? { code, message } : { code, message, data } };
}

function validId(id: unknown): id is Id {
  return id === null || typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
}

export function createDispatcher(
  methods: Record<string, MethodHandler>,
  onInternalError: (method: string, err: unknown) => void,
): Dispatcher {
  async function one(request: unknown, call: CallInfo): Promise<RpcResponse | undefined> {
    if (typeof request !== 'object' || request === null || Array.isArray(request)) {
      return errorResponse(null, RpcCode.InvalidRequest, 'invalid request message');
    }
    const req = request as JsonObject;
    const hasId = Object.hasOwn(req, 'id');
    const id: Id = hasId && validId(req.id) ? req.id : null;
    if (hasId && !validId(req.id)) return errorResponse(null, RpcCode.InvalidRequest, 'invalid request ID');
    if (req.jsonrpc !== '2.0') return errorResponse(id, RpcCode.InvalidRequest, 'invalid version marker');
    if (typeof req.method !== 'string' || req.method === '')
      return errorResponse(id, RpcCode.InvalidRequest, 'empty method name');
    const method = req.method;
    const handler = Object.hasOwn(methods, method) ? methods[method] : undefined;
    // A notification (no id) gets no answer, even an error one (JSON-RPC 2.0 section 4.1).
    const respond = (r: RpcResponse): RpcResponse | undefined => (hasId ? r : undefined);
    if (!handler) return respond(errorResponse(id, RpcCode.MethodNotFound, `no such method "${method}"`));
    let params: JsonObject;
    if (req.params === undefined || req.params === null) params = {};
    else if (Array.isArray(req.params))
      return respond(
        errorResponse(id, RpcCode.InvalidParams, 'invalid parameters: array parameters are not supported'),
      );
    else if (typeof req.params === 'object') params = req.params as JsonObject;
    else return respond(errorResponse(id, RpcCode.InvalidParams, 'invalid parameters: params must be an object'));
    try {
      const result = await handler(params, call);
      return respond({ jsonrpc: '2.0', id, result });
    } catch (err) {
      if (err instanceof RpcError) return respond(errorResponse(id, err.code, err.message, err.data));
      onInternalError(method, err);
      return respond(errorResponse(id, RpcCode.InternalError, err instanceof Error ? err.message : 'internal error'));
    }
  }

  return {
    async handleBody(body, call) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        return errorResponse(null, RpcCode.ParseError, 'invalid JSON request message');
      }
      if (Array.isArray(parsed)) {
        if (parsed.length === 0) return errorResponse(null, RpcCode.InvalidRequest, 'empty request batch');
        const answers: RpcResponse[] = [];
        // Sequential on purpose: a batch of sendTransaction calls must queue in the order given.
        for (const r of parsed) {
          const a = await one(r, call);
          if (a) answers.push(a);
        }
        return answers.length ? answers : undefined;
      }
      return one(parsed, call);
    },
  };
}
