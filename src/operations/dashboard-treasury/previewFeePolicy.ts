import type { Deps } from '../../domain/deps';
import { requireAppAccess } from '../../domain/apps/access';
import { AppError } from '../../domain/errors';
import { fromStroops } from '../../domain/money/amounts';
import { feePolicyFieldErrors, feePolicyFromView, feePolicyView, loadFeePolicy } from '../../domain/feePolicy/policy';
import { describedTransactionFieldErrors, previewPolicy } from '../../domain/feePolicy/preview';
import { findUser, userNotFound } from '../../domain/users/users';
import { requireOperator } from '../operator';
import type { Handler } from '../types';

/** A dry run of the fee-bump policy (a draft or the saved one) on a described transaction; stores nothing. */
export function previewFeePolicy(deps: Pick<Deps, 'db' | 'clock' | 'stellar'>): Handler<'previewFeePolicy'> {
  return async (req) => {
    // 1. authenticate and authorize (any member of an active app, as for reading the policy)
    const { operatorId } = requireOperator(req.auth);
    const { app } = await requireAppAccess(deps.db, operatorId, req.path.appId);
    // 2. validate what the contract's forms cannot: a draft as updateFeePolicy checks it (its fields under `policy.`),
    //    merge destinations' checksums
    const { policy: draft, transaction, userId } = req.body;
    const draftErrors = draft ? feePolicyFieldErrors(draft, app.assets) : {};
    const fieldErrors = {
      ...Object.fromEntries(Object.entries(draftErrors).map(([field, messages]) => [`policy.${field}`, messages])),
      ...describedTransactionFieldErrors(transaction),
    };
    if (Object.keys(fieldErrors).length)
      throw new AppError('VALIDATION_ERROR', { message: 'Request validation failed', details: { fieldErrors } });
    // 3. the user whose operations today count, within this app only
    if (userId !== undefined && !(await findUser(deps.db, app.id, userId)))
      throw userNotFound('No user with this id in the app');
    // 4. judge it under the draft, or the saved policy, against the app's state now (reads only)
    const policy = draft ? feePolicyFromView(draft) : await loadFeePolicy(deps.db, app.id);
    const preview = await previewPolicy(deps, {
      app,
      policy,
      transaction,
      ...(userId !== undefined ? { userId } : {}),
    });
    // 5. respond
    return {
      content: {
        decision: preview.reasons.length === 0 ? 'allow' : 'deny',
        reasons: preview.reasons.map((r) => ({ code: r.code, message: r.message })),
        policy: feePolicyView(policy),
        gasBalanceXlm: preview.gasBalanceStroops === undefined ? null : fromStroops(preview.gasBalanceStroops),
        opsToday: preview.opsToday,
      },
    };
  };
}
