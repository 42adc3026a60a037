// manageData (ManageDataOpFrame): set (create or update) or delete a named data entry; a new entry takes one base
// reserve from its owner or the owner's sponsor.

import { MANAGE_DATA, OP_TYPE } from '../codes';
import { createEntryWithPossibleSponsorship, removeEntryWithPossibleSponsorship } from '../reserves';
import { opInner } from '../results';
import { type DataRecord, dataKey } from '../state';
import { isAsciiPrintable, loadAccount, sponsorshipFailure } from './common';
import { defineOperation } from './types';

const T = OP_TYPE.MANAGE_DATA;

export const manageData = defineOperation({
  type: T,
  checkValid({ manageDataOp: op }) {
    const name = op.dataName.bytes;
    if (name.length < 1 || !isAsciiPrintable(name)) return opInner(T, MANAGE_DATA.INVALID_NAME);
    return undefined;
  },
  apply({ manageDataOp: op }, { ltx, header, source }) {
    const name = op.dataName.toString();
    const key = dataKey(source, name);
    const existing = ltx.load<DataRecord>(key);
    if (op.dataValue) {
      if (existing) {
        existing.value = op.dataValue;
        return opInner(T, MANAGE_DATA.SUCCESS);
      }
      const entry: DataRecord = {
        kind: 'data',
        account: source,
        name,
        value: op.dataValue,
        sponsor: null,
        extV1: false,
        lastModified: 0,
      };
      const owner = loadAccount(ltx, source);
      if (!owner) throw new Error('manageData: source vanished');
      const failure = sponsorshipFailure(
        createEntryWithPossibleSponsorship(ltx, header, entry, owner),
        T,
        MANAGE_DATA.LOW_RESERVE,
      );
      if (failure) return failure;
      ltx.create(entry);
      return opInner(T, MANAGE_DATA.SUCCESS);
    }
    if (!existing) return opInner(T, MANAGE_DATA.NAME_NOT_FOUND);
    const owner = loadAccount(ltx, source);
    if (!owner) throw new Error('manageData: source vanished');
    removeEntryWithPossibleSponsorship(ltx, existing, owner);
    ltx.erase(key);
    return opInner(T, MANAGE_DATA.SUCCESS);
  },
});
