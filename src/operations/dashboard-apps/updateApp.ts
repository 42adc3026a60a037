import type { Deps } from '../../domain/deps';
import { appNotFound, requireAppAccess } from '../../domain/apps/access';
import { assetsFieldErrors } from '../../domain/apps/assets';
import { updateAppSettings } from '../../domain/apps/store';
import { AppError } from '../../domain/errors';
import { enqueueTrustlineBackfill, lockAppAssets } from '../../domain/funding/trustlineBackfill';
import { requireOperator } from '../operator';
import type { Handler } from '../types';
import { appContent } from './appContent';

/** Changes the given settings of an active app (never its network); omitted settings are unchanged. */
export function updateApp(deps: Pick<Deps, 'db' | 'clock'>): Handler<'updateApp'> {
  return async (req) => {
    // 1. authenticate and authorize (any member of an active app)
    const { operatorId } = requireOperator(req.auth);
    const { role } = await requireAppAccess(deps.db, operatorId, req.path.appId);
    // 2. validate what the contract's schema cannot (issuer checksums)
    const { name, fundingMode, startingBalanceXlm, assets, accessTokenTtlMinutes, refreshTokenTtlDays } = req.body;
    const fieldErrors = assets ? assetsFieldErrors(assets) : {};
    if (Object.keys(fieldErrors).length)
      throw new AppError('VALIDATION_ERROR', { message: 'Request validation failed', details: { fieldErrors } });
    // 3. update (only while the app is still active: an archive in between answers 404); assets newly enabled owe a
    //    trustline to every funded wallet, recorded with the change and added in the background (trustlineBackfill.ts).
    //    The row is locked first, so "newly enabled" is counted against the list this change replaces, whatever
    //    concurrent changes committed since the access check read the app.
    const app = await deps.db.transaction(async (trx) => {
      const replaced = await lockAppAssets(trx, req.path.appId);
      const updated = await updateAppSettings(trx, req.path.appId, {
        name,
        fundingMode,
        startingBalanceXlm,
        assets,
        accessTokenTtlMinutes,
        refreshTokenTtlDays,
      });
      if (!updated || !replaced) throw appNotFound();
      const added = updated.assets.filter((a) => !replaced.includes(a));
      await enqueueTrustlineBackfill(trx, { app: updated, assets: added, at: deps.clock.now() });
      return updated;
    });
    // 4. respond
    return { content: appContent({ app, role }) };
  };
}
