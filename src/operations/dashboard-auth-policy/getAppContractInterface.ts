import { StrKey } from '@stellar/stellar-sdk';
import type { Deps } from '../../domain/deps';
import { requireAppAccess } from '../../domain/apps/access';
import { fieldError } from '../../domain/errors';
import { contractInterface } from '../../domain/sorobanAuth/introspection';
import { requireOperator } from '../operator';
import type { Handler } from '../types';

/** A contract's functions on the app's network, read now for a row being written; nothing stored, for any member. */
export function getAppContractInterface(deps: Pick<Deps, 'db' | 'stellar'>): Handler<'getAppContractInterface'> {
  return async (req) => {
    // 1. authorize: any member of an active app
    const { operatorId } = requireOperator(req.auth);
    const { app } = await requireAppAccess(deps.db, operatorId, req.path.appId);
    // 2. the pattern is the contract's; the checksum is ours to check
    const contractId = req.path.contractId;
    if (!StrKey.isValidContract(contractId)) throw fieldError('contractId', 'must be a contract C-address (checksum)');
    // 3. read the chain and respond
    const found = await contractInterface(deps, app.network, contractId);
    return { content: { contract: contractId, network: app.network, ...found } };
  };
}
