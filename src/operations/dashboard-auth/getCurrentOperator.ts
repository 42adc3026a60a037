import type { Deps } from '../../domain/deps';
import { AppError } from '../../domain/errors';
import { findOperator } from '../../domain/apps/store';
import { operatorView } from '../../domain/operators/operators';
import type { Handler } from '../types';
import { requireOperator } from '../operator';

/** The signed-in operator and the active apps they are a member of, with their role in each. */
export function getCurrentOperator(deps: Pick<Deps, 'db'>): Handler<'getCurrentOperator'> {
  return async (req) => {
    const { operatorId } = requireOperator(req.auth);
    const operator = await findOperator(deps.db, operatorId);
    if (!operator)
      throw new AppError('SDK_AUTH_INVALID_TOKEN', { message: 'The operator of this session no longer exists' });
    const apps = await deps
      .db('app_members as m')
      .join('apps as a', 'a.id', 'm.app_id')
      .where({ 'm.operator_id': operatorId, 'a.status': 'active' })
      .orderBy('a.created_at', 'desc')
      .select<{ id: string; name: string; network: 'testnet' | 'mainnet'; role: 'owner' | 'admin' | 'developer' }[]>(
        'a.id',
        'a.name',
        'a.network',
        'm.role',
      );
    return {
      content: {
        operator: operatorView(operator),
        apps: apps.map((a) => ({ appId: a.id, name: a.name, network: a.network, role: a.role })),
      },
    };
  };
}
