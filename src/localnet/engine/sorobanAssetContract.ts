// The Stellar Asset Contract's read-only functions, executed natively over the classic ledger as the host's built-in
// contract does: decimals() -> u32 7, name() -> "CODE:ISSUER" / "native", symbol() -> "CODE" / "native", and
// balance(id) -> i128 (an account's trust-line balance, or its XLM balance for the native asset; the issuer holds
// i64::MAX; a contract's Balance entry, 0 when absent), and transfer(from, to, amount), mint(to, amount) and
// burn(from, amount) over accounts (XLM balances above the reserve, or authorized trust lines within their limits;
// the issuer mints and burns), with their CAP-67 events. The authorization (from, or the admin = the issuer for mint)
// is checked by the caller (sorobanHost.ts). The other functions (approve, allowance, transfer_from, clawback,
// set_admin, ...) and contract (C...) holders in a balance change are not modelled: invoking them answers a clear
// error.

import { StrKey, xdr } from '@stellar/stellar-sdk';
import { INT64_MAX } from './codes';
import { assetWire, encodeLedgerEntryData, publicKeyWire, toBase64 } from './encode';
import { type HeaderView, availableBalance } from './reserves';
import {
  type AccountRecord,
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

export const SAC_READ_FUNCTIONS = ['balance', 'decimals', 'name', 'symbol'] as const;
/** The functions modelled: the read-only ones and transfer. */
export const SAC_FUNCTIONS = [...SAC_READ_FUNCTIONS, 'transfer', 'mint', 'burn'] as const;

export type AssetCall =
  | { ok: true; returnValue: xdr.ScValWire; readOnly: string[]; diskReadBytes: number; diskReadEntries: number }
  | { ok: false; message: string };

const keyB64 = (key: xdr.LedgerKeyWire): string => toBase64(xdr.LedgerKey.schema.encode(key));
const str = (s: string): xdr.ScValWire => ({ type: 14, str: new xdr.XdrString(s) });
const i128 = (v: bigint): xdr.ScValWire => ({
  type: 10,
  i128: { hi: v >> 64n, lo: v & 0xffff_ffff_ffff_ffffn },
});

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

/** Runs a read-only SAC function of the contract `contract` whose instance storage is `storage`. */
export function callAssetContract(
  state: StateReader,
  contract: xdr.ScAddressWire,
  storage: readonly xdr.ScMapEntryWire[],
  fnName: string,
  args: readonly xdr.ScValWire[],
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
    default:
      return {
        ok: false,
        message: `localnet executes the Stellar Asset Contract's read-only functions only (${SAC_READ_FUNCTIONS.join(', ')}); "${fnName}" is not modelled`,
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
          vec: [
            { type: 15, sym: new xdr.XdrString('Balance') },
            { type: 18, address: holder },
          ],
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
      if (entry && entry.val.type === 10) amount = (entry.val.i128.hi << 64n) | entry.val.i128.lo;
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

export type TransferOutcome =
  | {
      ok: true;
      /** Who must authorize the call: `from` for transfer and burn, the admin (issuer) for mint. */
      authorizer: xdr.ScAddressWire;
      writes: LedgerRecord[];
      event: xdr.ContractEventWire;
    }
  | { ok: false; message: string };

const AUTHORIZED_FLAG = 1;

/** The balance-changing functions modelled: transfer(from, to, amount), mint(to, amount), burn(from, amount). */
export const SAC_BALANCE_FUNCTIONS = ['transfer', 'mint', 'burn'] as const;

/**
 * Moves `amount` of the SAC's asset over the classic entries (copies; `state` is untouched): between two accounts
 * (transfer), from the issuer (mint, authorized by the admin, which is the issuer) or to it (burn). The events are
 * CAP-67's: transfer [transfer, from, to, asset], mint [mint, to, asset], burn [burn, from, asset], value the amount.
 */
export function transferAsset(
  state: StateReader,
  header: HeaderView,
  contract: xdr.ScAddressWire,
  storage: readonly xdr.ScMapEntryWire[],
  fnName: string,
  args: readonly xdr.ScValWire[],
): TransferOutcome {
  const asset = assetOfInstance(storage);
  const shapes: Record<string, string> = {
    transfer: 'transfer takes (from: Address, to: Address, amount: i128)',
    mint: 'mint takes (to: Address, amount: i128)',
    burn: 'burn takes (from: Address, amount: i128)',
  };
  const arity = fnName === 'transfer' ? 3 : 2;
  const amountVal = args[arity - 1];
  const parties = args.slice(0, arity - 1);
  if (args.length !== arity || amountVal?.type !== 10 || parties.some((p) => p.type !== 18)) {
    return { ok: false, message: shapes[fnName] ?? `${fnName} is not modelled` };
  }
  const addresses = parties.map((p) => (p.type === 18 ? p.address : undefined)) as xdr.ScAddressWire[];
  if (addresses.some((a) => a.type !== 0)) {
    return { ok: false, message: 'localnet models Stellar Asset Contract balances of accounts (G...) only' };
  }
  const accountOf = (a: xdr.ScAddressWire): string =>
    a.type === 0 ? StrKey.encodeEd25519PublicKey(a.accountId.ed25519) : '';
  const amount = (amountVal.i128.hi << 64n) | amountVal.i128.lo;
  if (amount < 0n) return { ok: false, message: 'negative amount is not allowed' };
  if (amount > INT64_MAX) return { ok: false, message: 'amount exceeds the classic balance range' };
  if (fnName !== 'transfer' && !asset) return { ok: false, message: `${fnName} is not available for the native asset` };
  const issuerAddress: xdr.ScAddressWire | undefined = asset
    ? { type: 0, accountId: publicKeyWire(asset.issuer) }
    : undefined;
  const [first, second] = addresses as [xdr.ScAddressWire, xdr.ScAddressWire | undefined];
  const fromAddress = fnName === 'mint' ? (issuerAddress as xdr.ScAddressWire) : first;
  const toAddress =
    fnName === 'transfer'
      ? (second as xdr.ScAddressWire)
      : fnName === 'mint'
        ? first
        : (issuerAddress as xdr.ScAddressWire);
  const from = accountOf(fromAddress);
  const to = accountOf(toAddress);
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
  } else {
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
  }
  const name = asset ? `${asset.code}:${asset.issuer}` : 'native';
  const contractId = contract.type === 1 ? contract.contractId : new Uint8Array(32);
  const address = (a: xdr.ScAddressWire): xdr.ScValWire => ({ type: 18, address: a });
  const topics: xdr.ScValWire[] =
    fnName === 'transfer'
      ? [address(fromAddress), address(toAddress)]
      : fnName === 'mint'
        ? [address(toAddress)]
        : [address(fromAddress)];
  return {
    ok: true,
    authorizer: fnName === 'mint' ? (issuerAddress as xdr.ScAddressWire) : first,
    writes: [...writes.values()],
    event: {
      ext: { v: 0 },
      contractId,
      type: 1,
      body: {
        v: 0,
        v0: { topics: [{ type: 15, sym: new xdr.XdrString(fnName) }, ...topics, str(name)], data: i128(amount) },
      },
    },
  };
}
