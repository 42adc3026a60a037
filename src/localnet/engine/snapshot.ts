// Engine state <-> a JSON-serializable snapshot (strings and numbers only: bigints as decimal strings, bytes as hex).

import { EngineInputError } from './errors';
import { fromHex, toHex } from './encode';
import type { AccountRecord, ContractRecord, DataRecord, LedgerRecord, SignerRecord, TrustlineRecord } from './state';

type JsonValue = string | number | JsonValue[] | { [k: string]: JsonValue };
type Json = { [k: string]: JsonValue };

const str = (v: unknown, what: string): string => {
  if (typeof v !== 'string') throw new EngineInputError(`snapshot: ${what} must be a string`);
  return v;
};
const num = (v: unknown, what: string): number => {
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new EngineInputError(`snapshot: ${what} must be a number`);
  return v;
};
const big = (v: unknown, what: string): bigint => BigInt(str(v, what));
const optStr = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

function common(r: LedgerRecord & { sponsor?: string | null; extV1?: boolean }): Json {
  const out: Json = { lastModified: r.lastModified };
  if (r.sponsor) out.sponsor = r.sponsor;
  if (r.extV1) out.extV1 = 1;
  return out;
}

export function serializeRecord(r: LedgerRecord): Json {
  switch (r.kind) {
    case 'account':
      return {
        ...common(r),
        kind: 'account',
        id: r.id,
        balance: r.balance.toString(),
        seqNum: r.seqNum.toString(),
        numSubEntries: r.numSubEntries,
        ...(r.inflationDest ? { inflationDest: r.inflationDest } : {}),
        flags: r.flags,
        homeDomain: r.homeDomain,
        thresholds: [...r.thresholds],
        signers: r.signers.map((s) => ({
          type: s.type,
          key: s.keyHex,
          ...(s.payloadHex !== undefined ? { payload: s.payloadHex } : {}),
          weight: s.weight,
          ...(s.sponsor ? { sponsor: s.sponsor } : {}),
        })),
        buying: r.buyingLiabilities.toString(),
        selling: r.sellingLiabilities.toString(),
        numSponsored: r.numSponsored,
        numSponsoring: r.numSponsoring,
        seqLedger: r.seqLedger,
        seqTime: r.seqTime.toString(),
        extVersion: r.extVersion,
      };
    case 'trustline':
      return {
        ...common(r),
        kind: 'trustline',
        account: r.account,
        code: r.asset.code,
        issuer: r.asset.issuer,
        balance: r.balance.toString(),
        limit: r.limit.toString(),
        flags: r.flags,
        buying: r.buyingLiabilities.toString(),
        selling: r.sellingLiabilities.toString(),
        extVersion: r.extVersion,
      };
    case 'data':
      return { ...common(r), kind: 'data', account: r.account, name: r.name, value: toHex(r.value) };
    case 'contract':
      return {
        kind: 'contract',
        lastModified: r.lastModified,
        keyXdr: r.keyXdr,
        dataXdr: r.dataXdr,
        liveUntil: r.liveUntil,
      };
  }
}

export function deserializeRecord(j: Record<string, unknown>): LedgerRecord {
  const lastModified = num(j.lastModified, 'lastModified');
  const sponsor = optStr(j.sponsor);
  const extV1 = j.extV1 === 1;
  switch (j.kind) {
    case 'account': {
      const thresholds = (j.thresholds as unknown[]).map((t) => num(t, 'threshold'));
      const signers: SignerRecord[] = (j.signers as Record<string, unknown>[]).map((s) => ({
        type: num(s.type, 'signer type') as SignerRecord['type'],
        keyHex: str(s.key, 'signer key'),
        ...(typeof s.payload === 'string' ? { payloadHex: s.payload } : {}),
        weight: num(s.weight, 'signer weight'),
        sponsor: optStr(s.sponsor),
      }));
      const acc: AccountRecord = {
        kind: 'account',
        id: str(j.id, 'account id'),
        balance: big(j.balance, 'balance'),
        seqNum: big(j.seqNum, 'seqNum'),
        numSubEntries: num(j.numSubEntries, 'numSubEntries'),
        inflationDest: optStr(j.inflationDest),
        flags: num(j.flags, 'flags'),
        homeDomain: typeof j.homeDomain === 'string' ? j.homeDomain : '',
        thresholds: [thresholds[0] ?? 1, thresholds[1] ?? 0, thresholds[2] ?? 0, thresholds[3] ?? 0],
        signers,
        buyingLiabilities: big(j.buying, 'buying'),
        sellingLiabilities: big(j.selling, 'selling'),
        numSponsored: num(j.numSponsored, 'numSponsored'),
        numSponsoring: num(j.numSponsoring, 'numSponsoring'),
        seqLedger: num(j.seqLedger, 'seqLedger'),
        seqTime: big(j.seqTime, 'seqTime'),
        extVersion: num(j.extVersion, 'extVersion') as AccountRecord['extVersion'],
        sponsor,
        extV1,
        lastModified,
      };
      return acc;
    }
    case 'trustline': {
      const tl: TrustlineRecord = {
        kind: 'trustline',
        account: str(j.account, 'account'),
        asset: { code: str(j.code, 'code'), issuer: str(j.issuer, 'issuer') },
        balance: big(j.balance, 'balance'),
        limit: big(j.limit, 'limit'),
        flags: num(j.flags, 'flags'),
        buyingLiabilities: big(j.buying, 'buying'),
        sellingLiabilities: big(j.selling, 'selling'),
        extVersion: num(j.extVersion, 'extVersion') as TrustlineRecord['extVersion'],
        sponsor,
        extV1,
        lastModified,
      };
      return tl;
    }
    case 'data': {
      const d: DataRecord = {
        kind: 'data',
        account: str(j.account, 'account'),
        name: str(j.name, 'name'),
        value: fromHex(str(j.value, 'value')),
        sponsor,
        extV1,
        lastModified,
      };
      return d;
    }
    case 'contract': {
      const c: ContractRecord = {
        kind: 'contract',
        keyXdr: str(j.keyXdr, 'keyXdr'),
        dataXdr: str(j.dataXdr, 'dataXdr'),
        liveUntil: num(j.liveUntil, 'liveUntil'),
        lastModified,
      };
      return c;
    }
    default:
      throw new EngineInputError(`snapshot: unknown record kind ${String(j.kind)}`);
  }
}
