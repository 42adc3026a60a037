// The operator a Google or GitHub identity signs in as. Operators are one per verified email address, so an email-code
// sign-in and a Google or GitHub sign-in with the same address reach the same operator (Operator schema); the
// profile's name becomes the operator's display name.
import type { Knex } from 'knex';
import { findOrCreateOperatorByEmail, setOperatorDisplayName, type Operator } from '../apps/store';
import type { VerifiedIdentity } from './identityProviders';

export async function operatorForIdentity(db: Knex, identity: VerifiedIdentity): Promise<Operator> {
  const operator = await findOrCreateOperatorByEmail(db, identity.email);
  return identity.displayName ? setOperatorDisplayName(db, operator.id, identity.displayName) : operator;
}
