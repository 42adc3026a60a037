// Verifying a signed SorobanAuthorizationEntry the way the Soroban host does for a classic (G...) account, without
// executing anything:
//   - the signed payload is sha256(HashIdPreimage): ENVELOPE_TYPE_SOROBAN_AUTHORIZATION {networkId, nonce,
//     signatureExpirationLedger, invocation} for legacy ADDRESS credentials, and
//     ENVELOPE_TYPE_SOROBAN_AUTHORIZATION_WITH_ADDRESS {..., address, ...} for ADDRESS_V2 (CAP-71, js SDK v17 default);
//   - expiration: valid while currentLedger <= signatureExpirationLedger <= currentLedger + maxEntryTtl - 1;
//   - the nonce must not have been consumed (the caller says which nonces are used);
//   - the signature is scvVec of scvMap{public_key: bytes32, signature: bytes64}, public keys strictly increasing,
//     each a signer of the account, their weights reaching the account's medium threshold.
// Contract (C...) addresses need the contract's __check_auth and cannot be verified here.

import { createHash } from 'node:crypto';
import { StrKey, xdr } from '@stellar/stellar-sdk';
import { verifyEd25519 } from './signatures';

/** Soroban's maxEntryTTL on the public networks (ledgers): the furthest an expiration may lie ahead. */
export const DEFAULT_MAX_ENTRY_TTL = 3_110_400;

export type AuthFailureReason =
  | 'MALFORMED'
  | 'SOURCE_ACCOUNT_CREDENTIALS'
  | 'UNSUPPORTED_CREDENTIALS'
  | 'CONTRACT_ADDRESS'
  | 'EXPIRED'
  | 'EXPIRATION_TOO_FAR'
  | 'NONCE_USED'
  | 'BAD_SIGNATURE_FORMAT'
  | 'KEYS_NOT_ORDERED'
  | 'SIGNATURE_INVALID'
  | 'SIGNER_NOT_AUTHORIZED'
  | 'WEIGHT_TOO_LOW';

export type AuthEntryVerification =
  | {
      valid: true;
      credentialType: 'address' | 'addressV2';
      /** The authorizing G-address. */
      address: string;
      nonce: bigint;
      signatureExpirationLedger: number;
      /** G-addresses of the keys whose signatures were verified. */
      signers: string[];
    }
  | { valid: false; reason: AuthFailureReason; message: string };

export interface AuthVerificationOptions {
  /** Ledgers; default 3,110,400 as on the public networks. */
  maxEntryTtl?: number;
  /** Whether (address, nonce) was already consumed; default: no nonce is used. */
  isNonceUsed?: (address: string, nonce: bigint) => boolean;
  /**
   * The account's signers and medium threshold (from its AccountEntry). Default: a fresh account, i.e. only the
   * master key with weight 1 and threshold 0 (at least one valid signature is always required).
   */
  account?: { masterWeight: number; mediumThreshold: number; signers: { key: string; weight: number }[] };
}

const fail = (reason: AuthFailureReason, message: string): AuthEntryVerification => ({ valid: false, reason, message });

interface ParsedSignature {
  publicKey: Uint8Array;
  signature: Uint8Array;
}

function symbolName(v: xdr.ScValWire): string | undefined {
  return v.type === 15 ? v.sym.toString() : undefined;
}

/** The account signature format: vec of map{public_key: bytes(32), signature: bytes(64)} (keys sorted). */
function parseSignatures(sig: xdr.ScValWire): ParsedSignature[] | undefined {
  if (sig.type !== 16 || !sig.vec) return undefined;
  const out: ParsedSignature[] = [];
  for (const item of sig.vec) {
    if (item.type !== 17 || !item.map || item.map.length !== 2) return undefined;
    const [pk, s] = item.map;
    if (!pk || !s || symbolName(pk.key) !== 'public_key' || symbolName(s.key) !== 'signature') return undefined;
    if (pk.val.type !== 13 || s.val.type !== 13) return undefined;
    const publicKey = pk.val.bytes;
    const signature = s.val.bytes;
    if (publicKey.length !== 32 || signature.length !== 64) return undefined;
    out.push({ publicKey, signature });
  }
  return out;
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i] !== b[i]) return (a[i] as number) - (b[i] as number);
  }
  return a.length - b.length;
}

/** Verifies a base64 SorobanAuthorizationEntry's signature, nonce and expiration for `currentLedger`. */
export function verifyAuthEntrySignature(
  entryXdr: string,
  networkPassphrase: string,
  currentLedger: number,
  options: AuthVerificationOptions = {},
): AuthEntryVerification {
  let entry: xdr.SorobanAuthorizationEntryWire;
  try {
    entry = xdr.SorobanAuthorizationEntry.schema.decode(new Uint8Array(Buffer.from(entryXdr, 'base64')));
  } catch (e) {
    return fail('MALFORMED', `not a SorobanAuthorizationEntry: ${(e as Error).message}`);
  }
  const creds = entry.credentials;
  if (creds.type === 0)
    return fail('SOURCE_ACCOUNT_CREDENTIALS', 'source-account credentials carry no signature to verify');
  if (creds.type !== 1 && creds.type !== 2) {
    return fail('UNSUPPORTED_CREDENTIALS', 'only ADDRESS and ADDRESS_V2 credentials are verified here');
  }
  const addr = creds.type === 1 ? creds.address : creds.addressV2;
  if (addr.address.type !== 0) {
    return fail('CONTRACT_ADDRESS', 'contract addresses authorize through their own __check_auth');
  }
  const address = StrKey.encodeEd25519PublicKey(addr.address.accountId.ed25519);
  const expiration = addr.signatureExpirationLedger;
  const maxTtl = options.maxEntryTtl ?? DEFAULT_MAX_ENTRY_TTL;
  if (expiration < currentLedger)
    return fail('EXPIRED', `signature expired at ledger ${expiration} (current ${currentLedger})`);
  if (expiration > currentLedger + maxTtl - 1) {
    return fail('EXPIRATION_TOO_FAR', `expiration ledger ${expiration} is beyond ${currentLedger + maxTtl - 1}`);
  }
  if (options.isNonceUsed?.(address, addr.nonce))
    return fail('NONCE_USED', `nonce ${addr.nonce} was already used by ${address}`);

  const networkId = new Uint8Array(createHash('sha256').update(networkPassphrase, 'utf8').digest());
  const preimage: xdr.HashIdPreimageWire =
    creds.type === 1
      ? {
          type: 9,
          sorobanAuthorization: {
            networkId,
            nonce: addr.nonce,
            signatureExpirationLedger: expiration,
            invocation: entry.rootInvocation,
          },
        }
      : {
          type: 10,
          sorobanAuthorizationWithAddress: {
            networkId,
            nonce: addr.nonce,
            signatureExpirationLedger: expiration,
            address: addr.address,
            invocation: entry.rootInvocation,
          },
        };
  const payload = new Uint8Array(createHash('sha256').update(xdr.HashIdPreimage.schema.encode(preimage)).digest());

  const signatures = parseSignatures(addr.signature);
  if (!signatures) return fail('BAD_SIGNATURE_FORMAT', 'signature is not a vec of {public_key, signature} maps');
  if (signatures.length === 0) return fail('WEIGHT_TOO_LOW', 'no signature');

  const account = options.account ?? { masterWeight: 1, mediumThreshold: 0, signers: [] };
  const weightOf = (key: string): number => {
    if (key === address) return account.masterWeight;
    return account.signers.find((s) => s.key === key)?.weight ?? 0;
  };
  let weight = 0;
  const signers: string[] = [];
  let previous: Uint8Array | undefined;
  for (const { publicKey, signature } of signatures) {
    if (previous && compareBytes(previous, publicKey) >= 0)
      return fail('KEYS_NOT_ORDERED', 'signature public keys must be strictly increasing');
    previous = publicKey;
    const key = StrKey.encodeEd25519PublicKey(publicKey);
    if (!verifyEd25519(publicKey, payload, signature))
      return fail('SIGNATURE_INVALID', `signature by ${key} does not match the payload`);
    const w = weightOf(key);
    if (w === 0) return fail('SIGNER_NOT_AUTHORIZED', `${key} is not a signer of ${address}`);
    weight += w;
    signers.push(key);
  }
  if (weight < account.mediumThreshold) {
    return fail(
      'WEIGHT_TOO_LOW',
      `signature weight ${weight} is below the medium threshold ${account.mediumThreshold}`,
    );
  }
  return {
    valid: true,
    credentialType: creds.type === 1 ? 'address' : 'addressV2',
    address,
    nonce: addr.nonce,
    signatureExpirationLedger: expiration,
    signers,
  };
}
