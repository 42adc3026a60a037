// The operator of a Dashboard API request. The gate sets auth.operator only after verifying the access token and its
// DPoP proof, so a handler without one is a wiring fault (an operation whose contract lacks operatorSession), answered
// as a refusal rather than served.
import type { AuthContext, AuthenticatedOperator } from './caller';
import { AppError } from '../domain/errors';

export function requireOperator(auth: AuthContext): AuthenticatedOperator {
  if (!auth.operator)
    throw new AppError('INVALID_CREDENTIALS', { message: 'This operation needs an operator session' });
  return auth.operator;
}
