// State records <-> XDR "wire" objects (the plain-object form the SDK's generated XDR schemas encode and decode).
// Everything the engine hands out (getLedgerEntries, meta) is built here, so the XDR shapes live in one place.

import { StrKey, xdr } from '@stellar/stellar-sdk';
import { EngineInputError } from './errors';
import {
  type AccountRecord,
  type CreditAsset,
  type DataRecord,
  type LedgerRecord,
  type SignerRecord,
  type TrustlineRecord,
  accountKey,
  contractKey,
  dataKey,
  trustlineKeyTyped,
} from './state';

// ---- accounts and keys ----------------------------------------------------------------------------------------

export function publicKeyWire(id: string): xdr.PublicKeyWire {
  return { type: 0, ed25519: StrKey.decodeEd25519PublicKey(id) };
}

export function accountIdFromWire(pk: xdr.PublicKeyWire): string {
  return StrKey.encodeEd25519PublicKey(pk.ed25519);
}

/** The underlying G-address of a (possibly muxed) account. */
export function accountIdFromMuxed(m: xdr.MuxedAccountWire): string {
  return StrKey.encodeEd25519PublicKey(m.type === 0 ? m.ed25519 : m.med25519.ed25519);
}

export const toHex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
export const fromHex = (h: string): Uint8Array => new Uint8Array(Buffer.from(h, 'hex'));
export const toBase64 = (b: Uint8Array): string => Buffer.from(b).toString('base64');

// ---- assets -------------------------------------------------------------------------------------------------

/** Asset code bytes -> string (trailing NUL padding removed). */
export function assetCodeToString(code: Uint8Array): string {
  let end = code.length;
  while (end > 0 && code[end - 1] === 0) end--;
  return Buffer.from(code.subarray(0, end)).toString('latin1');
}

function assetCodeBytes(code: string, length: number): Uint8Array {
  const out = new Uint8Array(length);
  out.set(Buffer.from(code, 'latin1').subarray(0, length));
  return out;
}

/** Asset/ChangeTrustAsset/TrustLineAsset wire (alphanum only) -> credit asset; undefined for native. */
export function creditAssetFromWire(asset: { type: number } & Record<string, unknown>): CreditAsset | undefined {
  if (asset.type === 1) {
    const a = asset.alphaNum4 as xdr.AlphaNum4Wire;
    return { code: assetCodeToString(a.assetCode), issuer: accountIdFromWire(a.issuer) };
  }
  if (asset.type === 2) {
    const a = asset.alphaNum12 as xdr.AlphaNum12Wire;
    return { code: assetCodeToString(a.assetCode), issuer: accountIdFromWire(a.issuer) };
  }
  return undefined;
}

export function assetWire(asset: CreditAsset | undefined): xdr.AssetWire {
  if (!asset) return { type: 0 };
  if (asset.code.length <= 4) {
    return { type: 1, alphaNum4: { assetCode: assetCodeBytes(asset.code, 4), issuer: publicKeyWire(asset.issuer) } };
  }
  return { type: 2, alphaNum12: { assetCode: assetCodeBytes(asset.code, 12), issuer: publicKeyWire(asset.issuer) } };
}

/** Asset-code validity as core's isAssetValid: 1-4 (alphanum4) or 5-12 (alphanum12) ASCII alphanumerics, NUL-padded. */
export function isAssetWireValid(asset: { type: number } & Record<string, unknown>): boolean {
  if (asset.type === 0) return true;
  if (asset.type !== 1 && asset.type !== 2) return false;
  const inner = (asset.type === 1 ? asset.alphaNum4 : asset.alphaNum12) as { assetCode: Uint8Array };
  const code = inner.assetCode;
  let zeros = false;
  let chars = 0;
  for (const b of code) {
    if (b === 0) zeros = true;
    else if (zeros) return false;
    else if (!((b >= 48 && b <= 57) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122))) return false;
    else chars++;
  }
  return asset.type === 1 ? chars >= 1 : chars >= 5;
}

export function sameAsset(a: CreditAsset | undefined, b: CreditAsset | undefined): boolean {
  if (!a || !b) return !a && !b;
  return a.code === b.code && a.issuer === b.issuer;
}

// ---- signer keys --------------------------------------------------------------------------------------------

export function signerKeyWire(s: Pick<SignerRecord, 'type' | 'keyHex' | 'payloadHex'>): xdr.SignerKeyWire {
  const key = fromHex(s.keyHex);
  switch (s.type) {
    case 0:
      return { type: 0, ed25519: key };
    case 1:
      return { type: 1, preAuthTx: key };
    case 2:
      return { type: 2, hashX: key };
    case 3:
      return { type: 3, ed25519SignedPayload: { ed25519: key, payload: fromHex(s.payloadHex ?? '') } };
  }
}

export function signerKeyFromWire(k: xdr.SignerKeyWire): Pick<SignerRecord, 'type' | 'keyHex' | 'payloadHex'> {
  switch (k.type) {
    case 0:
      return { type: 0, keyHex: toHex(k.ed25519) };
    case 1:
      return { type: 1, keyHex: toHex(k.preAuthTx) };
    case 2:
      return { type: 2, keyHex: toHex(k.hashX) };
    case 3:
      return {
        type: 3,
        keyHex: toHex(k.ed25519SignedPayload.ed25519),
        payloadHex: toHex(k.ed25519SignedPayload.payload),
      };
  }
}

/** Signer-key order (type, key, payload), which is how core keeps AccountEntry.signers sorted. */
export function compareSignerKeys(
  a: Pick<SignerRecord, 'type' | 'keyHex' | 'payloadHex'>,
  b: Pick<SignerRecord, 'type' | 'keyHex' | 'payloadHex'>,
): number {
  if (a.type !== b.type) return a.type - b.type;
  if (a.keyHex !== b.keyHex) return a.keyHex < b.keyHex ? -1 : 1;
  const pa = a.payloadHex ?? '';
  const pb = b.payloadHex ?? '';
  return pa === pb ? 0 : pa < pb ? -1 : 1;
}

// ---- ledger entries -----------------------------------------------------------------------------------------

function accountEntryWire(acc: AccountRecord): xdr.AccountEntryWire {
  let ext: xdr.AccountEntryExtWire = { v: 0 };
  if (acc.extVersion >= 1) {
    let v1ext: xdr.AccountEntryExtensionV1ExtWire = { v: 0 };
    if (acc.extVersion >= 2) {
      v1ext = {
        v: 2,
        v2: {
          numSponsored: acc.numSponsored,
          numSponsoring: acc.numSponsoring,
          signerSponsoringIDs: acc.signers.map((s) => (s.sponsor ? publicKeyWire(s.sponsor) : null)),
          ext:
            acc.extVersion >= 3
              ? { v: 3, v3: { ext: { v: 0 }, seqLedger: acc.seqLedger, seqTime: acc.seqTime } }
              : { v: 0 },
        },
      };
    }
    ext = { v: 1, v1: { liabilities: { buying: acc.buyingLiabilities, selling: acc.sellingLiabilities }, ext: v1ext } };
  }
  return {
    accountId: publicKeyWire(acc.id),
    balance: acc.balance,
    seqNum: acc.seqNum,
    numSubEntries: acc.numSubEntries,
    inflationDest: acc.inflationDest ? publicKeyWire(acc.inflationDest) : null,
    flags: acc.flags,
    homeDomain: new xdr.XdrString(acc.homeDomain),
    thresholds: new Uint8Array(acc.thresholds),
    signers: acc.signers.map((s) => ({ key: signerKeyWire(s), weight: s.weight })),
    ext,
  };
}

function trustLineEntryWire(tl: TrustlineRecord): xdr.TrustLineEntryWire {
  return {
    accountId: publicKeyWire(tl.account),
    asset: assetWire(tl.asset),
    balance: tl.balance,
    limit: tl.limit,
    flags: tl.flags,
    ext:
      tl.extVersion >= 1
        ? { v: 1, v1: { liabilities: { buying: tl.buyingLiabilities, selling: tl.sellingLiabilities }, ext: { v: 0 } } }
        : { v: 0 },
  };
}

function dataEntryWire(d: DataRecord): xdr.DataEntryWire {
  return {
    accountId: publicKeyWire(d.account),
    dataName: new xdr.XdrString(d.name),
    dataValue: d.value,
    ext: { v: 0 },
  };
}

export function ledgerEntryDataWire(r: LedgerRecord): xdr.LedgerEntryDataWire {
  switch (r.kind) {
    case 'account':
      return { type: 0, account: accountEntryWire(r) };
    case 'trustline':
      return { type: 1, trustLine: trustLineEntryWire(r) };
    case 'data':
      return { type: 3, data: dataEntryWire(r) };
    case 'contract':
      return xdr.LedgerEntryData.schema.decode(Buffer.from(r.dataXdr, 'base64'));
  }
}

export function ledgerEntryExtWire(r: LedgerRecord): xdr.LedgerEntryExtWire {
  if (r.kind === 'contract' || !r.extV1) return { v: 0 };
  return { v: 1, v1: { sponsoringId: r.sponsor ? publicKeyWire(r.sponsor) : null, ext: { v: 0 } } };
}

export function ledgerEntryWire(r: LedgerRecord): xdr.LedgerEntryWire {
  return { lastModifiedLedgerSeq: r.lastModified, data: ledgerEntryDataWire(r), ext: ledgerEntryExtWire(r) };
}

export function ledgerKeyWire(r: LedgerRecord): xdr.LedgerKeyWire {
  switch (r.kind) {
    case 'account':
      return { type: 0, account: { accountId: publicKeyWire(r.id) } };
    case 'trustline':
      return { type: 1, trustLine: { accountId: publicKeyWire(r.account), asset: assetWire(r.asset) } };
    case 'data':
      return { type: 3, data: { accountId: publicKeyWire(r.account), dataName: new xdr.XdrString(r.name) } };
    case 'contract':
      return xdr.LedgerKey.schema.decode(Buffer.from(r.keyXdr, 'base64'));
  }
}

export function encodeLedgerEntryData(r: LedgerRecord): string {
  return toBase64(xdr.LedgerEntryData.schema.encode(ledgerEntryDataWire(r)));
}

export function encodeLedgerEntryExt(r: LedgerRecord): string {
  return toBase64(xdr.LedgerEntryExt.schema.encode(ledgerEntryExtWire(r)));
}

/**
 * A LedgerKey (base64) -> the state key it names, plus its canonical base64.
 * TTL keys are refused (as Stellar RPC does); undecodable input is an EngineInputError.
 */
export function stateKeyFromLedgerKey(keyXdr: string): { key: string | undefined; canonical: string } {
  let wire: xdr.LedgerKeyWire;
  try {
    wire = xdr.LedgerKey.schema.decode(Buffer.from(keyXdr, 'base64'));
  } catch (e) {
    throw new EngineInputError(`cannot decode LedgerKey: ${(e as Error).message}`);
  }
  const canonical = toBase64(xdr.LedgerKey.schema.encode(wire));
  switch (wire.type) {
    case 0:
      return { key: accountKey(accountIdFromWire(wire.account.accountId)), canonical };
    case 1: {
      const asset = wire.trustLine.asset;
      const credit = asset.type === 1 || asset.type === 2 ? creditAssetFromWire(asset) : undefined;
      if (!credit) return { key: undefined, canonical };
      return {
        key: trustlineKeyTyped(accountIdFromWire(wire.trustLine.accountId), asset.type, credit.code, credit.issuer),
        canonical,
      };
    }
    case 3:
      return {
        key: dataKey(accountIdFromWire(wire.data.accountId), wire.data.dataName.toString()),
        canonical,
      };
    case 6:
    case 7:
      return { key: contractKey(canonical), canonical };
    case 9:
      throw new EngineInputError('TTL ledger keys cannot be requested; liveUntilLedgerSeq comes with the entry');
    default:
      // Offers, claimable balances, liquidity pools and config settings are not modelled: never present.
      return { key: undefined, canonical };
  }
}
