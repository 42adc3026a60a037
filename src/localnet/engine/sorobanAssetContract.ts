// The Stellar Asset Contract, executed natively over the classic ledger as the host's built-in contract does
// (soroban-env-host's stellar_asset_contract). Read-only: decimals() -> u32 7, name() -> "CODE:ISSUER" / "native",
// symbol() -> "CODE" / "native", balance(id) -> i128 (an account's trust-line balance, or its XLM balance for the
// native asset; the issuer holds i64::MAX; a contract's Balance entry, 0 when absent) and allowance(from, spender) ->
// i128 (0 when absent or expired). State-changing, over accounts (XLM balances above the reserve, or authorized trust
// lines within their limits; the issuer's line is implicit and unlimited): transfer(from, to, amount), mint(to,
// amount) and burn(from, amount); approve(from, spender, amount, live_until_ledger), which writes the allowance as a
// temporary entry of the contract; transfer_from(spender, from, to, amount) and burn_from(spender, from, amount), which
// spend it. Each emits its CAP-67 event. The authorization (from; the admin = the issuer for mint; the spender for
// transfer_from and burn_from) is checked by the caller (sorobanHost.ts). The other functions (clawback, set_admin,
// set_authorized, admin, authorized, trust) and contract (C...) holders, owners or spenders in these functions are
// not modelled: invoking them answers a clear error.

import { StrKey, xdr } from '@stellar/stellar-sdk';
import { INT64_MAX } from './codes';
import { assetWire, encodeLedgerEntryData, publicKeyWire, toBase64 } from './encode';
import { type HeaderView, availableBalance } from './reserves';
import { DEFAULT_MAX_ENTRY_TTL } from './sorobanAuth';
import {
  type AccountRecord,
  type ContractRecord,
  type CreditAsset,
  type LedgerRecord,
  type StateReader,
  type TrustlineRecord,
  accountKey,
  cloneRecord,
  contractKey,
  isLedgerRecord,
  trustlineKey,
} from './state';

/** The read-only functions modelled (callAssetContract). */
export const SAC_READ_FUNCTIONS = ['balance', 'decimals', 'name', 'symbol', 'allowance'] as const;
/** The state-changing functions modelled (changeAsset), each authorized by one account. */
export const SAC_WRITE_FUNCTIONS = ['transfer', 'mint', 'burn', 'approve', 'transfer_from', 'burn_from'] as const;
/** Every function modelled; the others (clawback, set_admin, set_authorized, admin, authorized, trust) are not. */
export const SAC_FUNCTIONS = [...SAC_READ_FUNCTIONS, ...SAC_WRITE_FUNCTIONS] as const;

export type AssetCall =
  | { ok: true; returnValue: xdr.ScValWire; readOnly: string[]; diskReadBytes: number; diskReadEntries: number }
  | { ok: false; message: string };

const keyB64 = (key: xdr.LedgerKeyWire): string => toBase64(xdr.LedgerKey.schema.encode(key));
const str = (s: string): xdr.ScValWire => ({ type: 14, str: new xdr.XdrString(s) });
const sym = (s: string): xdr.ScValWire => ({ type: 15, sym: new xdr.XdrString(s) });
const i128 = (v: bigint): xdr.ScValWire => ({
  type: 10,
  i128: { hi: v >> 64n, lo: v & 0xffff_ffff_ffff_ffffn },
});
const i128Of = (v: Extract<xdr.ScValWire, { type: 10 }>): bigint => (v.i128.hi << 64n) | v.i128.lo;
const addressVal = (a: xdr.ScAddressWire): xdr.ScValWire => ({ type: 18, address: a });
const NOT_ACCOUNT = 'localnet models Stellar Asset Contract balances and allowances of accounts (G...) only';

function symbolOf(v: xdr.ScValWire | undefined): string | undefined {
  return v && v.type === 15 ? v.sym.toString() : undefined;
}

/** The asset a SAC instance's storage names (its AssetInfo entry), or undefined for XLM. */
export function assetOfInstance(storage: readonly xdr.ScMapEntryWire[]): CreditAsset | undefined {
  for (const { key, val } of storage) {
    if (key.type !== 16 || symbolOf(key.vec?.[0]) !== 'AssetInfo' || val.type !== 16 || !val.vec) continue;
    const info = val.vec[1];
    if (!info || info.type !== 17 || !info.map) return undefined;
    let code = '';
    let issuer = '';
    for (const e of info.map) {
      if (symbolOf(e.key) === 'asset_code' && e.val.type === 14) code = e.val.str.toString();
      if (symbolOf(e.key) === 'issuer' && e.val.type === 13) issuer = StrKey.encodeEd25519PublicKey(e.val.bytes);
    }
    return { code, issuer };
  }
  return undefined;
}

/**
 * Runs a read-only SAC function of the contract `contract` whose instance storage is `storage`, in ledger
 * `ledgerSeq` (the ledger allowances expire against).
 */
export function callAssetContract(
  state: StateReader,
  contract: xdr.ScAddressWire,
  storage: readonly xdr.ScMapEntryWire[],
  fnName: string,
  args: readonly xdr.ScValWire[],
  ledgerSeq: number,
): AssetCall {
  const asset = assetOfInstance(storage);
  const none = { readOnly: [], diskReadBytes: 0, diskReadEntries: 0 };
  const noArgs = (value: xdr.ScValWire): AssetCall =>
    args.length === 0
      ? { ok: true, returnValue: value, ...none }
      : { ok: false, message: `${fnName} takes no arguments` };
  switch (fnName) {
    case 'decimals':
      return noArgs({ type: 3, u32: 7 });
    case 'name':
      return noArgs(str(asset ? `${asset.code}:${asset.issuer}` : 'native'));
    case 'symbol':
      return noArgs(str(asset ? asset.code : 'native'));
    case 'balance': {
      const id = args[0];
      if (args.length !== 1 || !id || id.type !== 18) return { ok: false, message: 'balance takes one Address' };
      return balanceOf(state, contract, asset, id.address);
    }
    case 'allowance': {
      const [from, spender] = args;
      if (args.length !== 2 || from?.type !== 18 || spender?.type !== 18) {
        return { ok: false, message: 'allowance takes (from: Address, spender: Address)' };
      }
      if (from.address.type !== 0 || spender.address.type !== 0) return { ok: false, message: NOT_ACCOUNT };
      const current = readAllowance(state, contract, from.address, spender.address, ledgerSeq);
      // A temporary contract entry: read from memory, no disk read.
      return { ok: true, returnValue: i128(current.amount), ...none, readOnly: [current.keyB64] };
    }
    default:
      return {
        ok: false,
        message: `localnet executes these read-only Stellar Asset Contract functions here: ${SAC_READ_FUNCTIONS.join(', ')}; "${fnName}" is not one`,
      };
  }
}

function balanceOf(
  state: StateReader,
  contract: xdr.ScAddressWire,
  asset: CreditAsset | undefined,
  holder: xdr.ScAddressWire,
): AssetCall {
  if (holder.type === 1) {
    // A contract's balance lives in the SAC's own persistent storage: key vec[Balance, address].
    const key: xdr.LedgerKeyWire = {
      type: 6,
      contractData: {
        contract,
        key: {
          type: 16,
          vec: [sym('Balance'), { type: 18, address: holder }],
        },
        durability: 1,
      },
    };
    const record = state.get(contractKey(keyB64(key)));
    let amount = 0n;
    if (record && record.kind === 'contract') {
      const data = xdr.LedgerEntryData.schema.decode(Buffer.from(record.dataXdr, 'base64'));
      const val = data.type === 6 ? data.contractData.val : undefined;
      const entry = val && val.type === 17 ? val.map?.find((e) => symbolOf(e.key) === 'amount') : undefined;
      if (entry && entry.val.type === 10) amount = i128Of(entry.val);
    }
    return { ok: true, returnValue: i128(amount), readOnly: [keyB64(key)], diskReadBytes: 0, diskReadEntries: 0 };
  }
  if (holder.type !== 0) return { ok: false, message: 'unsupported address type' };
  const account = StrKey.encodeEd25519PublicKey(holder.accountId.ed25519);
  const accountId = publicKeyWire(account);
  if (asset && asset.issuer === account) {
    // The issuer's implicit, unlimited line; nothing is read.
    return { ok: true, returnValue: i128(INT64_MAX), readOnly: [], diskReadBytes: 0, diskReadEntries: 0 };
  }
  const stateKey = asset ? trustlineKey(account, asset) : accountKey(account);
  const ledgerKey: xdr.LedgerKeyWire = asset
    ? {
        type: 1,
        trustLine: {
          accountId,
          // alphanum assets are spelled the same as Asset and TrustLineAsset
          asset: assetWire(asset),
        },
      }
    : { type: 0, account: { accountId } };
  const record = state.get(stateKey);
  if (!record || !isLedgerRecord(record) || (record.kind !== 'account' && record.kind !== 'trustline')) {
    return {
      ok: false,
      message: asset ? `${account} has no trust line for ${asset.code}` : `account ${account} is missing`,
    };
  }
  return {
    ok: true,
    returnValue: i128(record.balance),
    readOnly: [keyB64(ledgerKey)],
    diskReadBytes: Buffer.from(encodeLedgerEntryData(record), 'base64').length,
    diskReadEntries: 1,
  };
}

// ---- allowances -----------------------------------------------------------------------------------------------

/**
 * The allowance entry the SAC keeps for (from, spender): TEMPORARY data of the contract, key
 * vec[Symbol Allowance, map{from, spender}] (a contracttype struct: its fields as a map sorted by name), value
 * map{amount: i128, live_until_ledger: u32}.
 */
export function allowanceKey(
  contract: xdr.ScAddressWire,
  from: xdr.ScAddressWire,
  spender: xdr.ScAddressWire,
): Extract<xdr.LedgerKeyWire, { type: 6 }> {
  return {
    type: 6,
    contractData: {
      contract,
      key: {
        type: 16,
        vec: [
          sym('Allowance'),
          {
            type: 17,
            map: [
              { key: sym('from'), val: addressVal(from) },
              { key: sym('spender'), val: addressVal(spender) },
            ],
          },
        ],
      },
      durability: 0,
    },
  };
}

interface AllowanceState {
  key: Extract<xdr.LedgerKeyWire, { type: 6 }>;
  keyB64: string;
  /** The entry, when it exists and its TTL has not run out (an expired temporary entry is gone for the host). */
  record: ContractRecord | undefined;
  /** The stored value (0 / 0 when there is no entry). */
  stored: { amount: bigint; liveUntilLedger: number };
  /** What allowance() answers: the stored amount, or 0 when absent or expired (live_until_ledger < ledgerSeq). */
  amount: bigint;
}

function readAllowance(
  state: StateReader,
  contract: xdr.ScAddressWire,
  from: xdr.ScAddressWire,
  spender: xdr.ScAddressWire,
  ledgerSeq: number,
): AllowanceState {
  const key = allowanceKey(contract, from, spender);
  const b64 = keyB64(key);
  const found = state.get(contractKey(b64));
  const record = found && found.kind === 'contract' && found.liveUntil >= ledgerSeq ? found : undefined;
  const stored = { amount: 0n, liveUntilLedger: 0 };
  if (record) {
    const data = xdr.LedgerEntryData.schema.decode(Buffer.from(record.dataXdr, 'base64'));
    const val = data.type === 6 ? data.contractData.val : undefined;
    for (const e of val && val.type === 17 ? (val.map ?? []) : []) {
      if (symbolOf(e.key) === 'amount' && e.val.type === 10) stored.amount = i128Of(e.val);
      if (symbolOf(e.key) === 'live_until_ledger' && e.val.type === 3) stored.liveUntilLedger = e.val.u32;
    }
  }
  const amount = record && stored.liveUntilLedger >= ledgerSeq ? stored.amount : 0n;
  return { key, keyB64: b64, record, stored, amount };
}

function allowanceRecord(
  key: Extract<xdr.LedgerKeyWire, { type: 6 }>,
  amount: bigint,
  liveUntilLedger: number,
  ttl: number,
): ContractRecord {
  const val: xdr.ScValWire = {
    type: 17,
    map: [
      { key: sym('amount'), val: i128(amount) },
      { key: sym('live_until_ledger'), val: { type: 3, u32: liveUntilLedger } },
    ],
  };
  const data: xdr.LedgerEntryDataWire = { type: 6, contractData: { ext: { v: 0 }, ...key.contractData, val } };
  return {
    kind: 'contract',
    keyXdr: keyB64(key),
    dataXdr: toBase64(xdr.LedgerEntryData.schema.encode(data)),
    liveUntil: ttl,
    lastModified: 0,
  };
}

/** What an allowance change does to the entry: written (and whether it is new), or only read. */
type AllowanceWrite =
  { ok: true; record: ContractRecord | undefined; created: boolean; keyB64: string } | { ok: false; message: string };

/**
 * The SAC's write_allowance: live_until_ledger may not lie beyond the max TTL, nor (for a positive amount) before
 * the current ledger; an existing entry is rewritten (a 0 amount clears it), none is created for a 0 amount. The
 * entry lives until live_until_ledger: its TTL is extended to it when a positive amount outlives the old value, and
 * never shortened (localnet has no minimum temporary TTL).
 */
function writeAllowance(
  current: AllowanceState,
  amount: bigint,
  liveUntilLedger: number,
  ledgerSeq: number,
): AllowanceWrite {
  const maxLiveUntil = ledgerSeq + DEFAULT_MAX_ENTRY_TTL - 1;
  if (liveUntilLedger > maxLiveUntil) {
    return {
      ok: false,
      message: `live_until_ledger ${liveUntilLedger} is greater than max_live_until_ledger ${maxLiveUntil}`,
    };
  }
  if (amount > 0n && liveUntilLedger < ledgerSeq) {
    return { ok: false, message: `live_until_ledger ${liveUntilLedger} must be >= ledger sequence ${ledgerSeq}` };
  }
  const { record, stored, key, keyB64: b64 } = current;
  if (!record && amount === 0n) return { ok: true, record: undefined, created: false, keyB64: b64 };
  const oldLiveUntil = record ? stored.liveUntilLedger : 0;
  const ttl =
    amount > 0n && oldLiveUntil < liveUntilLedger
      ? Math.max(record?.liveUntil ?? 0, liveUntilLedger)
      : (record?.liveUntil ?? liveUntilLedger);
  return { ok: true, record: allowanceRecord(key, amount, liveUntilLedger, ttl), created: !record, keyB64: b64 };
}

/** The SAC's spend_allowance: the allowance must cover `amount`; a positive amount is taken off the entry. */
function spendAllowance(current: AllowanceState, amount: bigint, ledgerSeq: number): AllowanceWrite {
  if (current.amount < amount) {
    return { ok: false, message: `not enough allowance to spend: allowance ${current.amount}, amount ${amount}` };
  }
  if (amount === 0n) return { ok: true, record: undefined, created: false, keyB64: current.keyB64 };
  // The entry exists and is live (its allowance is positive): rewritten with its own live_until_ledger.
  return writeAllowance(current, current.amount - amount, current.stored.liveUntilLedger, ledgerSeq);
}

// ---- state-changing functions ----------------------------------------------------------------------------------

export type AssetChange =
  | {
      ok: true;
      /**
       * Who must authorize the call: `from` for transfer, burn and approve; the admin (the issuer) for mint; the
       * spender for transfer_from and burn_from.
       */
      authorizer: xdr.ScAddressWire;
      /** Entries written: classic balances (accounts, trust lines) and the allowance. */
      writes: LedgerRecord[];
      /** The written entries that did not exist (rent is charged on them): a new allowance. */
      created: LedgerRecord[];
      /** Keys read and not written: an allowance left as it was. */
      readOnly: string[];
      event: xdr.ContractEventWire;
    }
  | { ok: false; message: string };

const AUTHORIZED_FLAG = 1;

type WriteFunction = (typeof SAC_WRITE_FUNCTIONS)[number];
type Param = 'Address' | 'i128' | 'u32';
const SIGNATURES: Record<WriteFunction, [string, Param][]> = {
  transfer: [
    ['from', 'Address'],
    ['to', 'Address'],
    ['amount', 'i128'],
  ],
  mint: [
    ['to', 'Address'],
    ['amount', 'i128'],
  ],
  burn: [
    ['from', 'Address'],
    ['amount', 'i128'],
  ],
  approve: [
    ['from', 'Address'],
    ['spender', 'Address'],
    ['amount', 'i128'],
    ['live_until_ledger', 'u32'],
  ],
  transfer_from: [
    ['spender', 'Address'],
    ['from', 'Address'],
    ['to', 'Address'],
    ['amount', 'i128'],
  ],
  burn_from: [
    ['spender', 'Address'],
    ['from', 'Address'],
    ['amount', 'i128'],
  ],
};
const SCVAL_TYPE: Record<Param, number> = { Address: 18, i128: 10, u32: 3 };

/**
 * Runs a state-changing SAC function in ledger `ledgerSeq` over copies of the entries (`state` is untouched), as
 * the built-in contract does (its checks, its errors' words):
 * - transfer(from, to, amount): moves between two accounts; from or to the issuer it mints or burns.
 * - mint(to, amount) by the admin (the issuer), burn(from, amount) by from: not for XLM, nor to / from the issuer.
 * - approve(from, spender, amount, live_until_ledger): writes the allowance entry (allowanceKey).
 * - transfer_from(spender, from, to, amount), burn_from(spender, from, amount): the spender spends the allowance
 *   from gave it, then the balance moves as transfer / burn move it.
 * Events (CAP-67): transfer [transfer, from, to, asset] (from / to the issuer: mint [mint, to, asset] / burn [burn,
 * from, asset]), mint, burn [burn, from, asset], value the i128 amount; approve [approve, from, spender, asset],
 * value vec[amount, live_until_ledger]. `asset` is the SEP-11 name, "CODE:ISSUER" or "native".
 */
export function changeAsset(
  state: StateReader,
  header: HeaderView,
  ledgerSeq: number,
  contract: xdr.ScAddressWire,
  storage: readonly xdr.ScMapEntryWire[],
  fnName: string,
  args: readonly xdr.ScValWire[],
): AssetChange {
  if (!(SAC_WRITE_FUNCTIONS as readonly string[]).includes(fnName)) {
    return { ok: false, message: `"${fnName}" is not modelled` };
  }
  const fn = fnName as WriteFunction;
  const params = SIGNATURES[fn];
  if (args.length !== params.length || params.some(([, type], i) => args[i]?.type !== SCVAL_TYPE[type])) {
    return { ok: false, message: `${fn} takes (${params.map(([name, type]) => `${name}: ${type}`).join(', ')})` };
  }
  const addresses = args.flatMap((a) => (a.type === 18 ? [a.address] : []));
  if (addresses.some((a) => a.type !== 0)) return { ok: false, message: NOT_ACCOUNT };
  const amountVal = args.find((a) => a.type === 10);
  const amount = amountVal && amountVal.type === 10 ? i128Of(amountVal) : 0n;
  if (amount < 0n) return { ok: false, message: 'negative amount is not allowed' };

  const asset = assetOfInstance(storage);
  const issuer: xdr.ScAddressWire | undefined = asset ? { type: 0, accountId: publicKeyWire(asset.issuer) } : undefined;
  const accountOf = (a: xdr.ScAddressWire): string =>
    a.type === 0 ? StrKey.encodeEd25519PublicKey(a.accountId.ed25519) : '';
  const isIssuer = (a: xdr.ScAddressWire): boolean => asset !== undefined && asset.issuer === accountOf(a);
  const name = asset ? `${asset.code}:${asset.issuer}` : 'native';
  const contractId = contract.type === 1 ? contract.contractId : new Uint8Array(32);
  const event = (topic: string, parties: xdr.ScAddressWire[], data: xdr.ScValWire): xdr.ContractEventWire => ({
    ext: { v: 0 },
    contractId,
    type: 1,
    body: { v: 0, v0: { topics: [sym(topic), ...parties.map(addressVal), str(name)], data } },
  });
  /** The SAC's transfer_maybe_with_issuer: a transfer from or to the issuer is reported as a mint or a burn. */
  const transferEvent = (from: xdr.ScAddressWire, to: xdr.ScAddressWire): xdr.ContractEventWire =>
    accountOf(from) === accountOf(to)
      ? event('transfer', [from, to], i128(amount))
      : isIssuer(from)
        ? event('mint', [to], i128(amount))
        : isIssuer(to)
          ? event('burn', [from], i128(amount))
          : event('transfer', [from, to], i128(amount));
  const ok = (
    authorizer: xdr.ScAddressWire,
    moved: LedgerRecord[],
    allowance: Extract<AllowanceWrite, { ok: true }> | undefined,
    ev: xdr.ContractEventWire,
  ): AssetChange => ({
    ok: true,
    authorizer,
    writes: allowance?.record ? [...moved, allowance.record] : moved,
    created: allowance?.record && allowance.created ? [allowance.record] : [],
    readOnly: allowance && !allowance.record ? [allowance.keyB64] : [],
    event: ev,
  });

  if (fn === 'approve') {
    const [from, spender] = addresses as [xdr.ScAddressWire, xdr.ScAddressWire];
    const liveUntilVal = args[3];
    const liveUntil = liveUntilVal?.type === 3 ? liveUntilVal.u32 : 0;
    const written = writeAllowance(
      readAllowance(state, contract, from, spender, ledgerSeq),
      amount,
      liveUntil,
      ledgerSeq,
    );
    if (!written.ok) return written;
    const data: xdr.ScValWire = { type: 16, vec: [i128(amount), { type: 3, u32: liveUntil }] };
    return ok(from, [], written, event('approve', [from, spender], data));
  }

  if ((fn === 'mint' || fn === 'burn' || fn === 'burn_from') && !asset) {
    return { ok: false, message: `${fn} is not available for the native asset` };
  }
  const issuerAddress = issuer as xdr.ScAddressWire;
  let authorizer: xdr.ScAddressWire;
  let from: xdr.ScAddressWire;
  let to: xdr.ScAddressWire;
  let spender: xdr.ScAddressWire | undefined;
  switch (fn) {
    case 'transfer':
      [from, to] = addresses as [xdr.ScAddressWire, xdr.ScAddressWire];
      authorizer = from;
      break;
    case 'mint':
      [to] = addresses as [xdr.ScAddressWire];
      from = issuerAddress;
      authorizer = issuerAddress;
      break;
    case 'burn':
      [from] = addresses as [xdr.ScAddressWire];
      to = issuerAddress;
      authorizer = from;
      break;
    case 'transfer_from':
      [spender, from, to] = addresses as [xdr.ScAddressWire, xdr.ScAddressWire, xdr.ScAddressWire];
      authorizer = spender;
      break;
    case 'burn_from':
      [spender, from] = addresses as [xdr.ScAddressWire, xdr.ScAddressWire];
      to = issuerAddress;
      authorizer = spender;
      break;
  }
  if ((fn === 'mint' && isIssuer(to)) || ((fn === 'burn' || fn === 'burn_from') && isIssuer(from))) {
    return { ok: false, message: 'operation invalid on issuer' };
  }
  let allowance: Extract<AllowanceWrite, { ok: true }> | undefined;
  if (spender) {
    const spent = spendAllowance(readAllowance(state, contract, from, spender, ledgerSeq), amount, ledgerSeq);
    if (!spent.ok) return spent;
    allowance = spent;
  }
  if (amount > INT64_MAX) return { ok: false, message: 'amount exceeds the classic balance range' };
  const moved = moveBalance(state, header, asset, accountOf(from), accountOf(to), amount);
  if (!moved.ok) return moved;
  const ev =
    fn === 'mint'
      ? event('mint', [to], i128(amount))
      : fn === 'transfer' || fn === 'transfer_from'
        ? transferEvent(from, to)
        : event('burn', [from], i128(amount));
  return ok(authorizer, moved.writes, allowance, ev);
}

/**
 * Moves `amount` from account `from` to account `to` over copies of their entries: XLM above the sender's reserve;
 * of a credit asset, between authorized trust lines within their liabilities and limits, the issuer's side being
 * its implicit, unlimited line (nothing to write).
 */
function moveBalance(
  state: StateReader,
  header: HeaderView,
  asset: CreditAsset | undefined,
  from: string,
  to: string,
  amount: bigint,
): { ok: true; writes: LedgerRecord[] } | { ok: false; message: string } {
  const writes = new Map<string, LedgerRecord>();
  const load = <T extends LedgerRecord>(key: string): T | undefined => {
    const own = writes.get(key);
    if (own) return own as T;
    const r = state.get(key);
    if (!r || !isLedgerRecord(r)) return undefined;
    const copy = cloneRecord(r);
    writes.set(key, copy);
    return copy as T;
  };

  if (!asset) {
    const src = load<AccountRecord>(accountKey(from));
    if (!src) return { ok: false, message: `account ${from} is missing` };
    if (availableBalance(header, src) < amount) return { ok: false, message: 'balance is not sufficient to spend' };
    src.balance -= amount;
    const dst = load<AccountRecord>(accountKey(to));
    if (!dst) return { ok: false, message: `account ${to} is missing` };
    if (dst.balance + amount > INT64_MAX) return { ok: false, message: 'balance overflow' };
    dst.balance += amount;
    return { ok: true, writes: [...writes.values()] };
  }
  if (asset.issuer !== from) {
    const line = load<TrustlineRecord>(trustlineKey(from, asset));
    if (!line) return { ok: false, message: `${from} has no trust line for ${asset.code}` };
    if ((line.flags & AUTHORIZED_FLAG) === 0) return { ok: false, message: `${from} is not authorized` };
    if (line.balance - line.sellingLiabilities < amount) {
      return { ok: false, message: 'balance is not sufficient to spend' };
    }
    line.balance -= amount;
  }
  if (asset.issuer !== to) {
    const line = load<TrustlineRecord>(trustlineKey(to, asset));
    if (!line) return { ok: false, message: `${to} has no trust line for ${asset.code}` };
    if ((line.flags & AUTHORIZED_FLAG) === 0) return { ok: false, message: `${to} is not authorized` };
    if (line.balance + amount > line.limit - line.buyingLiabilities) {
      return { ok: false, message: 'balance would exceed the trust line limit' };
    }
    line.balance += amount;
  }
  return { ok: true, writes: [...writes.values()] };
}
