// bumpSequence (BumpSequenceOpFrame): LOW threshold; a bump to a lower or equal number is a silent success.

import { BUMP_SEQUENCE, OP_TYPE } from '../codes';
import { noteSeqNumUpdate } from '../reserves';
import { opInner } from '../results';
import { loadAccount } from './common';
import { defineOperation } from './types';

const T = OP_TYPE.BUMP_SEQUENCE;

export const bumpSequence = defineOperation({
  type: T,
  threshold: () => 'LOW',
  checkValid({ bumpSequenceOp: op }) {
    if (op.bumpTo < 0n) return opInner(T, BUMP_SEQUENCE.BAD_SEQ);
    return undefined;
  },
  apply({ bumpSequenceOp: op }, { ltx, header, source }) {
    const acc = loadAccount(ltx, source);
    if (!acc) throw new Error('bumpSequence: source vanished');
    noteSeqNumUpdate(header, acc);
    if (op.bumpTo > acc.seqNum) acc.seqNum = op.bumpTo;
    return opInner(T, BUMP_SEQUENCE.SUCCESS);
  },
});
