// Operators as sign-in shows them: the lifetimes of their Dashboard sessions and their public view. Storage
// (findOrCreateOperatorByEmail, findOperator) is in ../apps/store.ts.
import type { SessionPolicy } from '../sessions/sessions';
import type { Operator } from '../apps/store';

/** Dashboard sessions: 15-minute access tokens, refresh tokens valid 30 days from their last rotation. */
export const OPERATOR_SESSION_POLICY: SessionPolicy = {
  accessTokenTtlSeconds: 15 * 60,
  refreshTokenTtlSeconds: 30 * 24 * 3600,
};

/** The operator as the contract shows it (Operator schema): absent fields left out, never null. */
export function operatorView(op: Operator): {
  operatorId: string;
  email?: string;
  stellarAccount?: string;
  displayName?: string;
  createdAt: string;
} {
  return {
    operatorId: op.id,
    ...(op.email ? { email: op.email } : {}),
    ...(op.stellarAccount ? { stellarAccount: op.stellarAccount } : {}),
    ...(op.displayName ? { displayName: op.displayName } : {}),
    createdAt: op.createdAt.toISOString(),
  };
}
