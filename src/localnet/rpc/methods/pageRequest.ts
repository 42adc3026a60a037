// The paging parameters getLedgers and getTransactions share, read and checked as stellar-rpc does: startLedger inside
// the retained range, or a cursor (never both), and a limit up to the method's maximum (0: the method's default).
import { RpcCode, RpcError, type JsonObject } from '../jsonRpc';
import { objectParam, stringParam, uint32Param } from '../params';
import type { HistoryStore, LedgerRecord } from '../../history/historyStore';

export interface PageRequest {
  startLedger: number;
  /** '' when the request names no cursor. */
  cursor: string;
  /** 0 when the request names no limit. */
  limit: number;
  latest: LedgerRecord;
  oldest: LedgerRecord;
}

export function invalidRequest(message: string): RpcError {
  return new RpcError(RpcCode.InvalidRequest, message);
}

export function pageRequest(params: JsonObject, history: HistoryStore, maxLimit: number): PageRequest {
  const startLedger = uint32Param(params, 'startLedger');
  const pagination = objectParam(params, 'pagination');
  const cursor = pagination ? stringParam(pagination, 'cursor') : '';
  const limit = pagination ? uint32Param(pagination, 'limit') : 0;
  const latest = history.latest();
  const oldest = history.oldest();
  if (cursor !== '') {
    if (startLedger !== 0)
      throw invalidRequest(`startLedger (${startLedger}) and cursor (${cursor}) cannot both be set`);
  } else if (startLedger < oldest.sequence || startLedger > latest.sequence) {
    throw invalidRequest(
      `start ledger (${startLedger}) must be between the oldest ledger: ${oldest.sequence} and the latest ledger: ${latest.sequence} for this rpc instance`,
    );
  }
  if (limit > maxLimit) throw invalidRequest(`limit must not exceed ${maxLimit}`);
  return { startLedger, cursor, limit, latest, oldest };
}
