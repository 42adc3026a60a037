// CAP-67 unified events for classic operations and fees (protocol 23), built as stellar-core's OpEventManager and
// TxEventManager build them (src/transactions/EventManager.cpp):
//   - every event is a "contract" event of the asset's Stellar Asset Contract id (sha256 of HashIdPreimage
//     ENVELOPE_TYPE_CONTRACT_ID {network id, fromAsset}), deployed or not;
//   - transfer [transfer, from, to, asset] with the i128 amount; from the issuer: mint [mint, to, asset]; to the issuer:
//     burn [burn, from, asset]; both the issuer: transfer. `asset` is the SEP-11 string ("native" or "CODE:ISSUER");
//     addresses are accounts with any muxed id dropped;
//   - transfer and mint carry a map {amount, to_muxed_id} instead of the bare amount when the destination is a muxed
//     account (its id, u64) or, for a plain account, when the transaction has a memo (id: u64, text: string,
//     hash / return: bytes), where the operation allows it (payments, path payments, createAccount, accountMerge);
//   - fee [fee, fee source] with the fee charged (i128), a transaction-level event at stage BEFORE_ALL_TXS; no event
//     for a zero amount.

import { xdr } from '@stellar/stellar-sdk';
import { assetWire, publicKeyWire } from './encode';
import { sha256 } from './meta';
import type { CreditAsset } from './state';

type Asset = CreditAsset | undefined; // undefined = native
type ContractEvent = xdr.ContractEventWire;

const sym = (s: string): xdr.ScValWire => ({ type: 15, sym: new xdr.XdrString(s) });
const str = (s: string): xdr.ScValWire => ({ type: 14, str: new xdr.XdrString(s) });
const i128 = (v: bigint): xdr.ScValWire => ({ type: 10, i128: { hi: v >> 64n, lo: v & 0xffff_ffff_ffff_ffffn } });

const contractIds = new Map<string, Uint8Array>();

/** The contract id of an asset's Stellar Asset Contract (what `Asset.contractId(passphrase)` computes). */
export function assetContractId(networkId: Uint8Array, asset: Asset): Uint8Array {
  // Every classic event needs one: remembered per network and asset rather than hashed each time.
  const key = `${Buffer.from(networkId).toString('hex')}/${sep11Name(asset)}`;
  let id = contractIds.get(key);
  if (!id) {
    id = sha256(
      xdr.HashIdPreimage.schema.encode({
        type: 8,
        contractId: { networkId, contractIdPreimage: { type: 1, fromAsset: assetWire(asset) } },
      }),
    );
    contractIds.set(key, id);
  }
  return id;
}

/** SEP-11: "native" or "CODE:ISSUER". */
export function sep11Name(asset: Asset): string {
  return asset ? `${asset.code}:${asset.issuer}` : 'native';
}

/** A (possibly muxed) account as core's makeMuxedAccountAddress: SC_ADDRESS_TYPE_ACCOUNT or _MUXED_ACCOUNT. */
function addressOf(account: xdr.MuxedAccountWire): xdr.ScAddressWire {
  return account.type === 0
    ? { type: 0, accountId: { type: 0, ed25519: account.ed25519 } }
    : { type: 2, muxedAccount: { id: account.med25519.id, ed25519: account.med25519.ed25519 } };
}

/** getAddressWithDroppedMuxedInfo: topics never carry a muxed id. */
function topicAddress(a: xdr.ScAddressWire): xdr.ScValWire {
  if (a.type !== 2) return { type: 18, address: a };
  return { type: 18, address: { type: 0, accountId: { type: 0, ed25519: a.muxedAccount.ed25519 } } };
}

function isIssuer(a: xdr.ScAddressWire, asset: Asset): boolean {
  if (!asset) return false;
  const key = a.type === 0 ? a.accountId.ed25519 : a.type === 2 ? a.muxedAccount.ed25519 : undefined;
  return key !== undefined && Buffer.from(key).equals(Buffer.from(publicKeyWire(asset.issuer).ed25519));
}

/** makeClassicMemoSCVal; undefined for MEMO_NONE. */
function memoValue(memo: xdr.MemoWire): xdr.ScValWire | undefined {
  switch (memo.type) {
    case 0:
      return undefined;
    case 1:
      return { type: 14, str: memo.text };
    case 2:
      return { type: 5, u64: memo.id };
    case 3:
      return { type: 13, bytes: memo.hash };
    case 4:
      return { type: 13, bytes: memo.retHash };
  }
}

/** The events of one operation (core OpEventManager), in the order they happen. */
export class OperationEvents {
  readonly list: ContractEvent[] = [];

  constructor(
    private readonly networkId: Uint8Array,
    /** The transaction's memo (the inner transaction's, for a fee-bump). */
    private readonly memo: xdr.MemoWire,
  ) {}

  /** eventForTransferWithIssuerCheck: transfer, or mint / burn when exactly one side is the issuer. */
  transfer(asset: Asset, from: xdr.MuxedAccountWire, to: xdr.MuxedAccountWire, amount: bigint): void {
    const f = addressOf(from);
    const t = addressOf(to);
    const fromIssuer = isIssuer(f, asset);
    const toIssuer = isIssuer(t, asset);
    if (fromIssuer && !toIssuer) this.push(asset, 'mint', [t], this.amountData(t, amount));
    else if (toIssuer && !fromIssuer) this.push(asset, 'burn', [f], i128(amount));
    else this.push(asset, 'transfer', [f, t], this.amountData(t, amount));
  }

  /** newTransferEvent for XLM, with no issuer check (createAccount, accountMerge). */
  nativeTransfer(from: xdr.MuxedAccountWire, to: xdr.MuxedAccountWire, amount: bigint): void {
    const t = addressOf(to);
    this.push(undefined, 'transfer', [addressOf(from), t], this.amountData(t, amount));
  }

  /** getPossibleMuxedData: the bare amount, or {amount, to_muxed_id} from a muxed destination or the memo. */
  private amountData(to: xdr.ScAddressWire, amount: bigint): xdr.ScValWire {
    const muxedId: xdr.ScValWire | undefined =
      to.type === 2 ? { type: 5, u64: to.muxedAccount.id } : to.type === 0 ? memoValue(this.memo) : undefined;
    if (!muxedId) return i128(amount);
    return {
      type: 17,
      map: [
        { key: sym('amount'), val: i128(amount) },
        { key: sym('to_muxed_id'), val: muxedId },
      ],
    };
  }

  private push(asset: Asset, name: string, parties: xdr.ScAddressWire[], data: xdr.ScValWire): void {
    this.list.push({
      ext: { v: 0 },
      contractId: assetContractId(this.networkId, asset),
      type: 1,
      body: { v: 0, v0: { topics: [sym(name), ...parties.map(topicAddress), str(sep11Name(asset))], data } },
    });
  }
}

/** The fee event of a transaction (TxEventManager::newFeeEvent), or undefined for a zero amount. */
export function feeEvent(
  networkId: Uint8Array,
  feeSource: string,
  amount: bigint,
): xdr.TransactionEventWire | undefined {
  if (amount === 0n) return undefined;
  return {
    stage: 0, // TRANSACTION_EVENT_STAGE_BEFORE_ALL_TXS: fees are taken before any transaction is applied
    event: {
      ext: { v: 0 },
      contractId: assetContractId(networkId, undefined),
      type: 1,
      body: {
        v: 0,
        v0: {
          topics: [sym('fee'), { type: 18, address: { type: 0, accountId: publicKeyWire(feeSource) } }],
          data: i128(amount),
        },
      },
    },
  };
}
