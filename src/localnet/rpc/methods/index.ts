// The Stellar RPC methods localnet answers, one file each, named after the method. The registry is typed by the
// method list, so a missing or extra handler fails the build.
import type { MethodHandler } from '../jsonRpc';
import type { RpcContext } from '../context';
import { getEvents } from './getEvents';
import { getFeeStats } from './getFeeStats';
import { getHealth } from './getHealth';
import { getLatestLedger } from './getLatestLedger';
import { getLedgerEntries } from './getLedgerEntries';
import { getLedgers } from './getLedgers';
import { getNetwork } from './getNetwork';
import { getTransaction } from './getTransaction';
import { getTransactions } from './getTransactions';
import { getVersionInfo } from './getVersionInfo';
import { sendTransaction } from './sendTransaction';
import { simulateTransaction } from './simulateTransaction';

export const RPC_METHODS = [
  'getHealth',
  'getNetwork',
  'getLatestLedger',
  'getLedgerEntries',
  'getLedgers',
  'sendTransaction',
  'getTransaction',
  'getTransactions',
  'getEvents',
  'getFeeStats',
  'getVersionInfo',
  'simulateTransaction',
] as const;
export type RpcMethodName = (typeof RPC_METHODS)[number];

export function buildMethods(ctx: RpcContext): Record<RpcMethodName, MethodHandler> {
  return {
    getHealth: getHealth(ctx),
    getNetwork: getNetwork(ctx),
    getLatestLedger: getLatestLedger(ctx),
    getLedgerEntries: getLedgerEntries(ctx),
    getLedgers: getLedgers(ctx),
    sendTransaction: sendTransaction(ctx),
    getTransaction: getTransaction(ctx),
    getTransactions: getTransactions(ctx),
    getEvents: getEvents(ctx),
    getFeeStats: getFeeStats(ctx),
    getVersionInfo: getVersionInfo(ctx),
    simulateTransaction: simulateTransaction(ctx),
  };
}
