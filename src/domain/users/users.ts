// End users of an app and the identities they sign in with (migration 0009). One person is one user per app whatever
// provider they use: an identity already seen gives its user; a new identity whose verified email is a user's email
// is linked to that user; otherwise a new user is created. Every function takes the knex handle (or transaction).
import type { Knex } from 'knex';
import { withTx } from '../../infra/db/database';
import { normalizeEmail } from '../emailCodes/emailCodes';
import { AppError } from '../errors';
import { newId } from '../ids';

export type AuthProvider = 'email' | 'google' | 'github' | 'stellar';

/**
 * An identity a user signs in with: `subject` is the email address (provider `email`) or the provider's stable account
 * id (OIDC `sub`, GitHub user id). `email` must be an address the provider verified, or null: it links identities.
 */
export interface UserIdentity {
  provider: AuthProvider;
  subject: string;
  email: string | null;
}

export interface User {
  id: string;
  appId: string;
  externalId: string | null;
  /** Verified, lower case; null for a user whose identities brought none. */
  email: string | null;
  lastProvider: AuthProvider;
  createdAt: Date;
  lastSeenAt: Date | null;
}

export interface UserRow {
  id: string;
  app_id: string;
  external_id: string | null;
  email: string | null;
  last_provider: AuthProvider;
  created_at: Date;
  last_seen_at: Date | null;
}

export function toUser(row: UserRow): User {
  return {
    id: row.id,
    appId: row.app_id,
    externalId: row.external_id,
    email: row.email,
    lastProvider: row.last_provider,
    createdAt: row.created_at,
    lastSeenAt: row.last_seen_at,
  };
}

/** Emails are compared lower case; an email identity's subject is its address. */
function normalizeIdentity(identity: UserIdentity): UserIdentity {
  const email = identity.email === null ? null : normalizeEmail(identity.email);
  return {
    provider: identity.provider,
    subject: identity.provider === 'email' ? normalizeEmail(identity.subject) : identity.subject,
    email,
  };
}

async function userOfIdentity(db: Knex, appId: string, identity: UserIdentity): Promise<User | undefined> {
  const row = await db('user_identities as i')
    .join('users as u', 'u.id', 'i.user_id')
    .where({ 'i.app_id': appId, 'i.provider': identity.provider, 'i.subject': identity.subject })
    .first<UserRow | undefined>('u.*');
  return row ? toUser(row) : undefined;
}

/**
 * The user of `identity` in the app: the identity's user when it was seen before, else the user with the identity's
 * verified email (the identity is linked to it), else a new user. Safe under concurrent first sign-ins: one user and
 * one identity row, whatever the interleaving.
 */
export async function findOrCreateUser(
  db: Knex,
  input: { appId: string; identity: UserIdentity; now: Date },
): Promise<User> {
  const { appId, now } = input;
  const identity = normalizeIdentity(input.identity);
  const known = await userOfIdentity(db, appId, identity);
  if (known) return known;
  return withTx(db, async (trx) => {
    // First sign-ins of one identity run one after the other, so the second finds the first's identity row.
    await trx.raw('select pg_advisory_xact_lock(hashtextextended(?, 0))', [
      JSON.stringify(['user_identity', appId, identity.provider, identity.subject]),
    ]);
    const again = await userOfIdentity(trx, appId, identity);
    if (again) return again;
    const fresh = {
      id: newId('usr'),
      app_id: appId,
      email: identity.email,
      last_provider: identity.provider,
      created_at: now,
    };
    let user: User;
    if (identity.email) {
      // Another identity with the same email may be creating its user at this moment: ON CONFLICT waits for it, and
      // the identity is then linked to that user.
      const [row] = (await trx('users')
        .insert(fresh)
        .onConflict(['app_id', 'email'])
        .ignore()
        .returning('*')) as UserRow[];
      user = toUser(row ?? ((await trx('users').where({ app_id: appId, email: identity.email }).first()) as UserRow));
    } else {
      const [row] = (await trx('users').insert(fresh).returning('*')) as UserRow[];
      user = toUser(row!);
    }
    await trx('user_identities').insert({
      user_id: user.id,
      app_id: appId,
      provider: identity.provider,
      subject: identity.subject,
      email: identity.email,
      created_at: now,
    });
    return user;
  });
}

/** A sign-in happened: the user's last provider and last-seen time. */
export async function recordSignIn(db: Knex, userId: string, provider: AuthProvider, now: Date): Promise<User> {
  const [row] = (await db('users')
    .where({ id: userId })
    .update({ last_provider: provider, last_seen_at: now })
    .returning('*')) as UserRow[];
  return toUser(row!);
}

/** The user was seen (a session refresh). */
export async function recordSeen(db: Knex, userId: string, now: Date): Promise<void> {
  await db('users').where({ id: userId }).update({ last_seen_at: now });
}

export async function findUser(db: Knex, appId: string, userId: string): Promise<User | undefined> {
  const row = (await db('users').where({ app_id: appId, id: userId }).first()) as UserRow | undefined;
  return row ? toUser(row) : undefined;
}

export async function findUserByExternalId(db: Knex, appId: string, externalId: string): Promise<User | undefined> {
  const row = (await db('users').where({ app_id: appId, external_id: externalId }).first()) as UserRow | undefined;
  return row ? toUser(row) : undefined;
}

export function userNotFound(message = 'No user of this app has that id'): AppError {
  return new AppError('USER_NOT_FOUND', { message });
}

const PG_UNIQUE_VIOLATION = '23505';

/**
 * Sets (or with null clears) the app's own id for a user. USER_NOT_FOUND for a user not of the app; EXTERNAL_ID_TAKEN
 * when another user of the app has it (the unique index decides, so two concurrent claims cannot both win).
 */
export async function setExternalId(db: Knex, appId: string, userId: string, externalId: string | null): Promise<User> {
  try {
    const [row] = (await db('users')
      .where({ app_id: appId, id: userId })
      .update({ external_id: externalId })
      .returning('*')) as UserRow[];
    if (!row) throw userNotFound();
    return toUser(row);
  } catch (err) {
    const pgErr = err as { code?: string; constraint?: string };
    if (pgErr.code === PG_UNIQUE_VIOLATION && pgErr.constraint === 'users_app_external_id_unique') {
      throw new AppError('EXTERNAL_ID_TAKEN', { message: 'Another user of this app already has that externalId' });
    }
    throw err;
  }
}

/** The providers each user has signed in with, in a fixed order (email, github, google). */
export async function providersOf(db: Knex, userIds: string[]): Promise<Map<string, AuthProvider[]>> {
  const rows = (await db('user_identities')
    .whereIn('user_id', userIds)
    .distinct('user_id', 'provider')
    .orderBy('provider')) as {
    user_id: string;
    provider: AuthProvider;
  }[];
  const out = new Map<string, AuthProvider[]>();
  for (const row of rows) out.set(row.user_id, [...(out.get(row.user_id) ?? []), row.provider]);
  return out;
}
