// The handler of an operation that is in the contract but not built yet: 501 NOT_IMPLEMENTED, listed as such in the
// README's status table (a test keeps the two in step).
import type { OperationId } from '../../generated/server/catalogue.gen';
import { AppError } from '../domain/errors';
import type { Handler } from './types';

const NOT_IMPLEMENTED = Symbol('notImplemented');

export function notImplemented<Op extends OperationId>(operationId: Op): Handler<Op> {
  const handler: Handler<Op> = async () => {
    throw new AppError('NOT_IMPLEMENTED', { message: `${operationId} is not implemented yet` });
  };
  return Object.assign(handler, { [NOT_IMPLEMENTED]: true });
}

export function isNotImplemented(handler: unknown): boolean {
  return typeof handler === 'function' && (handler as unknown as Record<symbol, unknown>)[NOT_IMPLEMENTED] === true;
}
