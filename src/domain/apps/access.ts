// Object-level authorization for the Dashboard API: which app an operator may act on, and with which role.
// An operator who is not a member of an app learns nothing about it: an app that does not exist, one of another
// operator, and (unless asked for) an archived one all answer the same 404 APPLICATION_NOT_FOUND. A member whose role
// is too low for the operation gets 403 FORBIDDEN: they can see the app, so the 403 tells them nothing new.
import type { Knex } from 'knex';
import { AppError } from '../errors';
import { findApp, type App, type MemberRole } from './store';

export interface AppAccess {
  app: App;
  /** The operator's role in the app. */
  role: MemberRole;
}

export interface AccessRequirement {
  /** Roles allowed to perform the operation; every member by default. */
  roles?: readonly MemberRole[];
  /** Let archived apps through (restore, listing with includeArchived); they answer 404 otherwise. */
  allowArchived?: boolean;
}

export const OWNER_ONLY: readonly MemberRole[] = ['owner'];

/** The one answer for an app the caller may not see: missing, another operator's, or archived. */
export function appNotFound(): AppError {
  return new AppError('APPLICATION_NOT_FOUND', { message: 'No such app, or you are not a member of it' });
}

/** The app and the operator's role in it, or AppError 404 APPLICATION_NOT_FOUND / 403 FORBIDDEN. */
export async function requireAppAccess(
  db: Knex,
  operatorId: string,
  appId: string,
  req: AccessRequirement = {},
): Promise<AppAccess> {
  const member = await db<{ app_id: string; operator_id: string; role: MemberRole }>('app_members')
    .where({ app_id: appId, operator_id: operatorId })
    .first('role');
  if (!member) throw appNotFound();
  const app = await findApp(db, appId);
  if (!app) throw appNotFound();
  if (app.status === 'archived' && !req.allowArchived) throw appNotFound();
  const { role } = member;
  if (req.roles && !req.roles.includes(role)) {
    throw new AppError('FORBIDDEN', {
      message: `This needs the ${req.roles.join(' or ')} role; you are ${role === 'admin' ? 'an' : 'a'} ${role}`,
    });
  }
  return { app, role };
}
