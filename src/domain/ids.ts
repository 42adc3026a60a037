// Every id the service mints carries a type prefix (`app_`, `op_`, `key_`, ...): logs and support tickets say what an
// id names, and an id of one type passed where another is expected fails a lookup instead of matching by accident.
import { randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `length` base62 characters from crypto.randomBytes, without modulo bias (bytes >= 248 are redrawn). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length + 8)) {
      if (byte >= 248) continue; // 248 = 4 x 62: keeps every character equally likely
      out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export type IdPrefix =
  | 'op'
  | 'app'
  | 'key'
  | 'mem'
  | 'ses'
  | 'rt'
  | 'usr'
  | 'wal'
  | 'aud'
  | 'evt'
  | 'tx'
  | 'apr'
  | 'dst'
  | 'dcl'
  | 'dps'
  | 'kyv'
  | 'kys'
  | 'rmq'
  | 'rmt';

/** A new id: the prefix, `_`, and 22 base62 characters (about 131 bits). */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(22)}`;
}
