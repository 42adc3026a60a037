// An app's team: invitations, roles, ownership transfer and removal. An app has exactly one owner at all times (the
// database also refuses a second one: migration 0006). Every change to a team runs through changeTeamAsOwner: one
// transaction that first locks the app's row, so changes to one team run one at a time and each checks the caller's
// ownership against the latest committed team (two concurrent transfers cannot both see the caller as owner).
import type { Knex } from 'knex';
import { withTx } from '../../infra/db/database';
import { AppError } from '../errors';
import { newId } from '../ids';
import { OWNER_ONLY, requireAppAccess, type AppAccess } from './access';
import { findOrCreateOperatorByEmail, type MemberRole } from './store';

export interface Member {
  id: string;
  appId: string;
  operatorId: string;
  /** null for an operator who signs in with a Stellar account only. */
  email: string | null;
  role: MemberRole;
  invitedAt: Date;
  /** null until the invited operator signs in after the invitation. */
  joinedAt: Date | null;
}

/** An `app_members` row joined with its operator's email (migrations 0002, 0006). */
interface MemberRow {
  id: string;
  app_id: string;
  operator_id: string;
  email: string | null;
  role: MemberRole;
  invited_at: Date;
  joined_at: Date | null;
}

function toMember(row: MemberRow): Member {
  return {
    id: row.id,
    appId: row.app_id,
    operatorId: row.operator_id,
    email: row.email,
    role: row.role,
    invitedAt: row.invited_at,
    joinedAt: row.joined_at,
  };
}

function members(db: Knex) {
  return db('app_members as m')
    .join('operators as o', 'o.id', 'm.operator_id')
    .select<MemberRow[]>('m.id', 'm.app_id', 'm.operator_id', 'o.email', 'm.role', 'm.invited_at', 'm.joined_at');
}

/** The app's members, owner first, then in invitation order. */
export async function listMembers(db: Knex, appId: string): Promise<Member[]> {
  const rows = await members(db).where('m.app_id', appId).orderByRaw(`m.role = 'owner' desc, m.invited_at, m.id`);
  return rows.map(toMember);
}

export async function findMember(db: Knex, appId: string, memberId: string): Promise<Member | undefined> {
  const row = await members(db).where({ 'm.app_id': appId, 'm.id': memberId }).first();
  return row ? toMember(row) : undefined;
}

/**
 * Runs `work` in one transaction on the app's team, as its owner: locks the app's row, then checks that the caller
 * is a member of an active app (404 APPLICATION_NOT_FOUND otherwise) and its owner (403 FORBIDDEN otherwise).
 */
export async function changeTeamAsOwner<T>(
  db: Knex,
  operatorId: string,
  appId: string,
  work: (trx: Knex.Transaction, access: AppAccess) => Promise<T>,
): Promise<T> {
  return withTx(db, async (trx) => {
    await trx('apps').where({ id: appId }).forUpdate().first('id');
    const access = await requireAppAccess(trx, operatorId, appId, { roles: OWNER_ONLY });
    return work(trx, access);
  });
}

/**
 * Adds the operator with this email (created if the address never signed in) to the app, with `joinedAt` null until
 * they sign in. 409 MEMBER_ALREADY_EXISTS when they are a member already. The caller sends the invitation after commit.
 */
export async function addMember(
  trx: Knex,
  input: { appId: string; email: string; role: Exclude<MemberRole, 'owner'>; at: Date },
): Promise<Member> {
  const operator = await findOrCreateOperatorByEmail(trx, input.email);
  const [row] = await trx('app_members')
    .insert({
      id: newId('mem'),
      app_id: input.appId,
      operator_id: operator.id,
      role: input.role,
      invited_at: input.at,
      joined_at: null,
    })
    .onConflict(['app_id', 'operator_id'])
    .ignore()
    .returning<{ id: string }[]>('id');
  if (!row)
    throw new AppError('MEMBER_ALREADY_EXISTS', { message: `${operator.email} is already a member of this app` });
  return (await findMember(trx, input.appId, row.id))!;
}

function memberNotFound(): AppError {
  return new AppError('MEMBER_NOT_FOUND', { message: 'No such member in this app' });
}

function lastOwner(): AppError {
  return new AppError('LAST_OWNER', { message: 'The app must keep one owner; transfer ownership first' });
}

/**
 * Sets a member's role, as the owner `ownerOperatorId`. Giving another member `owner` transfers ownership: they
 * become the owner, the caller an admin, and the app's owner changes, all in the caller's transaction. The owner's
 * own role can only stay `owner` (409 LAST_OWNER otherwise).
 */
export async function changeMemberRole(
  trx: Knex,
  input: { appId: string; ownerOperatorId: string; memberId: string; role: MemberRole },
): Promise<Member> {
  const member = await findMember(trx, input.appId, input.memberId);
  if (!member) throw memberNotFound();
  if (member.role === 'owner') {
    if (input.role === 'owner') return member;
    throw lastOwner();
  }
  if (input.role === 'owner') {
    // The owner steps down first, so the one-owner index never sees two owners.
    await trx('app_members')
      .where({ app_id: input.appId, operator_id: input.ownerOperatorId })
      .update({ role: 'admin' });
    await trx('apps').where({ id: input.appId }).update({ owner_operator_id: member.operatorId });
  }
  await trx('app_members').where({ id: member.id }).update({ role: input.role });
  return { ...member, role: input.role };
}

/** Removes a member or cancels a pending invitation; the owner cannot be removed (409 LAST_OWNER). */
export async function removeMember(trx: Knex, appId: string, memberId: string): Promise<void> {
  const member = await findMember(trx, appId, memberId);
  if (!member) throw memberNotFound();
  if (member.role === 'owner') throw lastOwner();
  await trx('app_members').where({ id: member.id }).delete();
}

/** Marks the operator's pending invitations as joined; called at every operator sign-in. Returns how many. */
export async function markInvitationsJoined(db: Knex, operatorId: string, at: Date): Promise<number> {
  return db('app_members').where({ operator_id: operatorId }).whereNull('joined_at').update({ joined_at: at });
}
