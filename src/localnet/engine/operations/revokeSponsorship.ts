// revokeSponsorship (RevokeSponsorshipOpFrame): the current sponsor (or, for an unsponsored entry, its owner) can
// hand the reserve back to the owner, or - inside a begin/end sandwich - transfer it to a new sponsor.
// Works on accounts, trust lines, data entries and signers; offers and claimable balances are not modelled
// (DOES_NOT_EXIST), liquidity-pool and contract keys are MALFORMED as in core.

import { OP_TYPE, REVOKE_SPONSORSHIP } from '../codes';
import {
  accountIdFromWire,
  creditAssetFromWire,
  isAssetWireValid,
  signerKeyFromWire,
  compareSignerKeys,
} from '../encode';
import {
  type ReserveEntry,
  type SponsorshipResult,
  establishEntrySponsorship,
  establishSignerSponsorship,
  loadSponsorship,
  removeEntrySponsorshipToOwner,
  removeSignerSponsorshipToOwner,
  transferEntrySponsorship,
  transferSignerSponsorship,
} from '../reserves';
import { type OpResult, opInner } from '../results';
import { type LedgerTxn, accountKey, dataKey, trustlineKeyTyped } from '../state';
import { isAsciiPrintable, loadAccount, sponsorshipFailure } from './common';
import type { xdr } from '@stellar/stellar-sdk';
import { type OpContext, defineOperation } from './types';

const T = OP_TYPE.REVOKE_SPONSORSHIP;
const ok = () => opInner(T, REVOKE_SPONSORSHIP.SUCCESS);
const fail = (r: SponsorshipResult) => sponsorshipFailure(r, T, REVOKE_SPONSORSHIP.LOW_RESERVE);

function stateKeyOf(key: xdr.LedgerKeyWire): string | undefined {
  switch (key.type) {
    case 0:
      return accountKey(accountIdFromWire(key.account.accountId));
    case 1: {
      const asset = key.trustLine.asset;
      const credit = asset.type === 1 || asset.type === 2 ? creditAssetFromWire(asset) : undefined;
      return credit
        ? trustlineKeyTyped(accountIdFromWire(key.trustLine.accountId), asset.type, credit.code, credit.issuer)
        : undefined;
    }
    case 3:
      return dataKey(accountIdFromWire(key.data.accountId), key.data.dataName.toString());
    default:
      return undefined;
  }
}

function ownerOf(entry: ReserveEntry): string {
  return entry.kind === 'account' ? entry.id : entry.account;
}

function loadReserveEntry(ltx: LedgerTxn, key: string): ReserveEntry | undefined {
  const r = ltx.load(key);
  return r && (r.kind === 'account' || r.kind === 'trustline' || r.kind === 'data') ? r : undefined;
}

function revokeLedgerEntry(key: xdr.LedgerKeyWire, { ltx, header, source }: OpContext): OpResult {
  const stateKey = stateKeyOf(key);
  const entry = stateKey ? loadReserveEntry(ltx, stateKey) : undefined;
  if (!entry) return opInner(T, REVOKE_SPONSORSHIP.DOES_NOT_EXIST);
  const owner = ownerOf(entry);
  const wasSponsored = entry.sponsor !== null;
  if (wasSponsored ? entry.sponsor !== source : owner !== source) return opInner(T, REVOKE_SPONSORSHIP.NOT_SPONSOR);

  const sandwich = loadSponsorship(ltx, source);
  const willBeSponsored = sandwich !== undefined && sandwich.sponsoring !== owner;
  const ownerAccount = entry.kind === 'account' ? entry : loadAccount(ltx, owner);
  if (!ownerAccount) throw new Error('revokeSponsorship: owner vanished');

  let res: SponsorshipResult = 'SUCCESS';
  if (wasSponsored && willBeSponsored) {
    const oldSponsor = loadAccount(ltx, entry.sponsor as string);
    const newSponsor = loadAccount(ltx, (sandwich as { sponsoring: string }).sponsoring);
    if (!oldSponsor || !newSponsor) throw new Error('revokeSponsorship: sponsor vanished');
    res = transferEntrySponsorship(header, entry, oldSponsor, newSponsor);
  } else if (wasSponsored) {
    const oldSponsor = loadAccount(ltx, entry.sponsor as string);
    if (!oldSponsor) throw new Error('revokeSponsorship: sponsor vanished');
    res = removeEntrySponsorshipToOwner(header, entry, oldSponsor, ownerAccount);
  } else if (willBeSponsored) {
    const newSponsor = loadAccount(ltx, (sandwich as { sponsoring: string }).sponsoring);
    if (!newSponsor) throw new Error('revokeSponsorship: sponsor vanished');
    res = establishEntrySponsorship(header, entry, newSponsor, ownerAccount);
  }
  return fail(res) ?? ok();
}

function revokeSigner(signer: xdr.RevokeSponsorshipOpSignerWire, { ltx, header, source }: OpContext): OpResult {
  const accountId = accountIdFromWire(signer.accountId);
  const acc = loadAccount(ltx, accountId);
  if (!acc) return opInner(T, REVOKE_SPONSORSHIP.DOES_NOT_EXIST);
  const key = signerKeyFromWire(signer.signerKey);
  const index = acc.signers.findIndex((s) => compareSignerKeys(s, key) === 0);
  const current = acc.signers[index];
  if (!current) return opInner(T, REVOKE_SPONSORSHIP.DOES_NOT_EXIST);
  const wasSponsored = current.sponsor !== null;
  if (wasSponsored ? current.sponsor !== source : accountId !== source)
    return opInner(T, REVOKE_SPONSORSHIP.NOT_SPONSOR);

  const sandwich = loadSponsorship(ltx, source);
  const willBeSponsored = sandwich !== undefined && sandwich.sponsoring !== accountId;
  let res: SponsorshipResult = 'SUCCESS';
  if (wasSponsored && willBeSponsored) {
    const oldSponsor = loadAccount(ltx, current.sponsor as string);
    const newSponsor = loadAccount(ltx, (sandwich as { sponsoring: string }).sponsoring);
    if (!oldSponsor || !newSponsor) throw new Error('revokeSponsorship: sponsor vanished');
    res = transferSignerSponsorship(header, acc, index, oldSponsor, newSponsor);
  } else if (wasSponsored) {
    const oldSponsor = loadAccount(ltx, current.sponsor as string);
    if (!oldSponsor) throw new Error('revokeSponsorship: sponsor vanished');
    res = removeSignerSponsorshipToOwner(header, acc, index, oldSponsor);
  } else if (willBeSponsored) {
    const newSponsor = loadAccount(ltx, (sandwich as { sponsoring: string }).sponsoring);
    if (!newSponsor) throw new Error('revokeSponsorship: sponsor vanished');
    res = establishSignerSponsorship(header, acc, index, newSponsor);
  }
  return fail(res) ?? ok();
}

export const revokeSponsorship = defineOperation({
  type: T,
  checkValid({ revokeSponsorshipOp: op }) {
    if (op.type !== 0) return undefined;
    const key = op.ledgerKey;
    switch (key.type) {
      case 0:
      case 4:
        return undefined;
      case 1: {
        const asset = key.trustLine.asset;
        if (asset.type === 3) return undefined;
        const issuer = creditAssetFromWire(asset)?.issuer;
        if (!isAssetWireValid(asset) || asset.type === 0 || issuer === accountIdFromWire(key.trustLine.accountId)) {
          return opInner(T, REVOKE_SPONSORSHIP.MALFORMED);
        }
        return undefined;
      }
      case 2:
        return key.offer.offerId <= 0n ? opInner(T, REVOKE_SPONSORSHIP.MALFORMED) : undefined;
      case 3: {
        const name = key.data.dataName.bytes;
        return name.length < 1 || !isAsciiPrintable(name) ? opInner(T, REVOKE_SPONSORSHIP.MALFORMED) : undefined;
      }
      default:
        return opInner(T, REVOKE_SPONSORSHIP.MALFORMED);
    }
  },
  apply({ revokeSponsorshipOp: op }, ctx) {
    return op.type === 0 ? revokeLedgerEntry(op.ledgerKey, ctx) : revokeSigner(op.signer, ctx);
  },
});
