// Reading named params the way Stellar RPC's Go structs do: a missing field is its zero value, a field of the wrong
// JSON type is -32602 ("invalid parameters"), unknown fields are ignored.
import { RpcCode, RpcError, type JsonObject } from './jsonRpc';

export function invalidParams(message: string): RpcError {
  return new RpcError(RpcCode.InvalidParams, message);
}

function typeError(field: string, expected: string, value: unknown): RpcError {
  const got = Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value;
  return invalidParams(`invalid parameters: cannot unmarshal ${got} into field ${field} of type ${expected}`);
}

/** A string field; '' when absent or null. */
export function stringParam(params: JsonObject, field: string): string {
  const v = params[field];
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') throw typeError(field, 'string', v);
  return v;
}

/** An unsigned 32-bit integer field (ledger sequences, limits); 0 when absent or null. */
export function uint32Param(params: JsonObject, field: string): number {
  const v = params[field];
  if (v === undefined || v === null) return 0;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 0xffffffff) throw typeError(field, 'uint32', v);
  return v;
}

/** An array of strings; [] when absent or null. */
export function stringArrayParam(params: JsonObject, field: string): string[] {
  const v = params[field];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) throw typeError(field, '[]string', v);
  return v as string[];
}

/** A nested object; undefined when absent or null. */
export function objectParam(params: JsonObject, field: string): JsonObject | undefined {
  const v = params[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) throw typeError(field, 'object', v);
  return v as JsonObject;
}

/** Stellar RPC's `xdrFormat`: localnet answers base64 XDR only, so 'json' is refused rather than ignored. */
export function requireBase64Format(params: JsonObject): void {
  const format = stringParam(params, 'xdrFormat');
  if (format === '' || format === 'base64') return;
  if (format === 'json') throw invalidParams("localnet answers only xdrFormat 'base64' ('json' is not supported)");
  throw invalidParams(`expected 'base64' or 'json' for 'xdrFormat', got '${format}'`);
}
