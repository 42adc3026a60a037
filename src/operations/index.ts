// The handler registry: exactly one handler per operationId of the contract (the type makes a missing or extra one a
// compile error; assertRegistryComplete checks it again at start-up). An operation not built yet is registered as
// notImplemented(...) and listed as 501 in the README's status table.
import { operations, type OperationId } from '../../generated/server/catalogue.gen';
import { archiveApp } from './dashboard-apps/archiveApp';
import { createApp } from './dashboard-apps/createApp';
import { getApp } from './dashboard-apps/getApp';
import { listApps } from './dashboard-apps/listApps';
import { restoreApp } from './dashboard-apps/restoreApp';
import { updateApp } from './dashboard-apps/updateApp';
import { createApiKey } from './dashboard-keys/createApiKey';
import { listApiKeys } from './dashboard-keys/listApiKeys';
import { revokeApiKey } from './dashboard-keys/revokeApiKey';
import { rotateApiKey } from './dashboard-keys/rotateApiKey';
import { addMember } from './dashboard-members/addMember';
import { listMembers } from './dashboard-members/listMembers';
import { removeMember } from './dashboard-members/removeMember';
import { updateMember } from './dashboard-members/updateMember';
import { listAppTransactions } from './dashboard-monitoring/listAppTransactions';
import { listAuditLog } from './dashboard-monitoring/listAuditLog';
import { getAppMetrics } from './dashboard-monitoring/getAppMetrics';
import { getAppDomains } from './dashboard-settings/getAppDomains';
import { getFeePolicy } from './dashboard-treasury/getFeePolicy';
import { getTreasury } from './dashboard-treasury/getTreasury';
import { previewFeePolicy } from './dashboard-treasury/previewFeePolicy';
import { updateFeePolicy } from './dashboard-treasury/updateFeePolicy';
import { updateTreasuryWallets } from './dashboard-treasury/updateTreasuryWallets';
import { getAuthProviders } from './dashboard-settings/getAuthProviders';
import { updateAuthProviders } from './dashboard-settings/updateAuthProviders';
import { updateAppDomains } from './dashboard-settings/updateAppDomains';
import { createSep10Challenge } from './dashboard-auth/createSep10Challenge';
import { getCurrentOperator } from './dashboard-auth/getCurrentOperator';
import { refreshOperatorSession } from './dashboard-auth/refreshOperatorSession';
import { signOutOperator } from './dashboard-auth/signOutOperator';
import { startOperatorEmailSignIn } from './dashboard-auth/startOperatorEmailSignIn';
import { completeOperatorOAuthSignIn } from './dashboard-auth/completeOperatorOAuthSignIn';
import { startOperatorOAuthSignIn } from './dashboard-auth/startOperatorOAuthSignIn';
import { verifyOperatorEmailSignIn } from './dashboard-auth/verifyOperatorEmailSignIn';
import { verifySep10Challenge } from './dashboard-auth/verifySep10Challenge';
import { fundAppUserWallet } from './dashboard-users/fundAppUserWallet';
import { getAppUser } from './dashboard-users/getAppUser';
import { listAppUsers } from './dashboard-users/listAppUsers';
import { getWebhookConfig } from './dashboard-webhooks/getWebhookConfig';
import { listWebhookEvents } from './dashboard-webhooks/listWebhookEvents';
import { redeliverWebhookEvent } from './dashboard-webhooks/redeliverWebhookEvent';
import { rotateWebhookSecret } from './dashboard-webhooks/rotateWebhookSecret';
import { updateWebhookConfig } from './dashboard-webhooks/updateWebhookConfig';
import { completeOAuthSignIn } from './sdk-auth/completeOAuthSignIn';
import { listSessions } from './sdk-auth/listSessions';
import { refreshSession } from './sdk-auth/refreshSession';
import { revokeSession } from './sdk-auth/revokeSession';
import { signOut } from './sdk-auth/signOut';
import { startEmailSignIn } from './sdk-auth/startEmailSignIn';
import { startOAuthSignIn } from './sdk-auth/startOAuthSignIn';
import { verifyEmailSignIn } from './sdk-auth/verifyEmailSignIn';
import { createWalletSignInChallenge } from './sdk-auth/createWalletSignInChallenge';
import { verifyWalletSignIn } from './sdk-auth/verifyWalletSignIn';
import { getKycSettings } from './dashboard-settings/getKycSettings';
import { updateKycSettings } from './dashboard-settings/updateKycSettings';
import { listKycProviders } from './sdk-kyc/listKycProviders';
import { startKycSession } from './sdk-kyc/startKycSession';
import { getKycVerification } from './sdk-kyc/getKycVerification';
import { getRampSettings } from './dashboard-settings/getRampSettings';
import { updateRampSettings } from './dashboard-settings/updateRampSettings';
import { listAppRampTransactions } from './dashboard-monitoring/listAppRampTransactions';
import { listRampProviders } from './sdk-ramps/listRampProviders';
import { createRampQuote } from './sdk-ramps/createRampQuote';
import { startRamp } from './sdk-ramps/startRamp';
import { getRampTransaction } from './sdk-ramps/getRampTransaction';
import { receiveRampWebhook } from './sdk-ramps/receiveRampWebhook';
import { fundWallet } from './server/fundWallet';
import { retryServerDistributionPush } from './server/retryServerDistributionPush';
import { listServerDistributionPushRecipients } from './server/listServerDistributionPushRecipients';
import { getServerDistributionPush } from './server/getServerDistributionPush';
import { listServerDistributionPushes } from './server/listServerDistributionPushes';
import { createServerDistributionPush } from './server/createServerDistributionPush';
import { retryDistributionPush } from './dashboard-distribution/retryDistributionPush';
import { listDistributionPushRecipients } from './dashboard-distribution/listDistributionPushRecipients';
import { getDistributionPush } from './dashboard-distribution/getDistributionPush';
import { listDistributionPushes } from './dashboard-distribution/listDistributionPushes';
import { createDistributionPush } from './dashboard-distribution/createDistributionPush';
import { buildTransaction } from './sdk-tx/buildTransaction';
import { getTransaction } from './sdk-tx/getTransaction';
import { getTxHistory } from './sdk-tx/getTxHistory';
import { runTransaction } from './sdk-tx/runTransaction';
import { signTransaction } from './sdk-tx/signTransaction';
import { submitTransaction } from './sdk-tx/submitTransaction';
import { getUser } from './server/getUser';
import { introspectUserToken } from './server/introspectUserToken';
import { setUserExternalId } from './server/setUserExternalId';
import { createAppAuthPolicyRow } from './dashboard-auth-policy/createAppAuthPolicyRow';
import { deleteAppAuthPolicyRow } from './dashboard-auth-policy/deleteAppAuthPolicyRow';
import { getAppContractInterface } from './dashboard-auth-policy/getAppContractInterface';
import { listAppAuthPolicyRows } from './dashboard-auth-policy/listAppAuthPolicyRows';
import { updateAppAuthPolicyRow } from './dashboard-auth-policy/updateAppAuthPolicyRow';
import { createAuthPolicyRow } from './server/createAuthPolicyRow';
import { createServerDistributionRule } from './server/createServerDistributionRule';
import { deleteServerDistributionRule } from './server/deleteServerDistributionRule';
import { listServerDistributionRules } from './server/listServerDistributionRules';
import { updateServerDistributionRule } from './server/updateServerDistributionRule';
import { deleteAuthPolicyRow } from './server/deleteAuthPolicyRow';
import { listAuthPolicyRows } from './server/listAuthPolicyRows';
import { updateAuthPolicyRow } from './server/updateAuthPolicyRow';
import { signAuthEntry } from './sdk-tx/signAuthEntry';
import { createDistributionRule } from './dashboard-distribution/createDistributionRule';
import { deleteDistributionRule } from './dashboard-distribution/deleteDistributionRule';
import { getDistributionClaimSeries } from './dashboard-distribution/getDistributionClaimSeries';
import { listAppDistributionRules } from './dashboard-distribution/listAppDistributionRules';
import { updateDistributionRule } from './dashboard-distribution/updateDistributionRule';
import { listDistributionRules } from './sdk-distribution/listDistributionRules';
import { getWallet } from './sdk-wallet/getWallet';
import { getWalletBalances } from './sdk-wallet/getWalletBalances';
import { getHealth } from './system/getHealth';
import { getReadiness } from './system/getReadiness';
import { claimDistributionRule } from './sdk-distribution/claimDistributionRule';
import type { HandlerRegistry, ServiceDeps } from './types';

export function createHandlers(deps: ServiceDeps): HandlerRegistry {
  return {
    addMember: addMember(deps),
    createDistributionPush: createDistributionPush(deps),
    listDistributionPushes: listDistributionPushes(deps),
    getDistributionPush: getDistributionPush(deps),
    listDistributionPushRecipients: listDistributionPushRecipients(deps),
    retryDistributionPush: retryDistributionPush(deps),
    getDistributionClaimSeries: getDistributionClaimSeries(deps),
    createServerDistributionPush: createServerDistributionPush(deps),
    listServerDistributionPushes: listServerDistributionPushes(deps),
    getServerDistributionPush: getServerDistributionPush(deps),
    listServerDistributionPushRecipients: listServerDistributionPushRecipients(deps),
    retryServerDistributionPush: retryServerDistributionPush(deps),
    archiveApp: archiveApp(deps),
    buildTransaction: buildTransaction(deps),
    claimDistributionRule: claimDistributionRule(deps),
    completeOAuthSignIn: completeOAuthSignIn(deps),
    completeOperatorOAuthSignIn: completeOperatorOAuthSignIn(deps),
    createApiKey: createApiKey(deps),
    createApp: createApp(deps),
    createServerDistributionRule: createServerDistributionRule(deps),
    createWalletSignInChallenge: createWalletSignInChallenge(deps),
    createAppAuthPolicyRow: createAppAuthPolicyRow(deps),
    createAuthPolicyRow: createAuthPolicyRow(deps),
    createDistributionRule: createDistributionRule(deps),
    createRampQuote: createRampQuote(deps),
    createSep10Challenge: createSep10Challenge(deps),
    deleteAppAuthPolicyRow: deleteAppAuthPolicyRow(deps),
    deleteAuthPolicyRow: deleteAuthPolicyRow(deps),
    deleteDistributionRule: deleteDistributionRule(deps),
    deleteServerDistributionRule: deleteServerDistributionRule(deps),
    fundAppUserWallet: fundAppUserWallet(deps),
    fundWallet: fundWallet(deps),
    getApp: getApp(deps),
    getAppContractInterface: getAppContractInterface(deps),
    getAppDomains: getAppDomains(deps),
    getAppMetrics: getAppMetrics(deps),
    getAppUser: getAppUser(deps),
    getAuthProviders: getAuthProviders(deps),
    getCurrentOperator: getCurrentOperator(deps),
    getFeePolicy: getFeePolicy(deps),
    getHealth: getHealth(deps),
    getKycSettings: getKycSettings(deps),
    getKycVerification: getKycVerification(deps),
    getRampSettings: getRampSettings(deps),
    getRampTransaction: getRampTransaction(deps),
    getReadiness: getReadiness(deps),
    getTransaction: getTransaction(deps),
    getTreasury: getTreasury(deps),
    getTxHistory: getTxHistory(deps),
    getUser: getUser(deps),
    getWallet: getWallet(deps),
    getWalletBalances: getWalletBalances(deps),
    getWebhookConfig: getWebhookConfig(deps),
    introspectUserToken: introspectUserToken(deps),
    listApiKeys: listApiKeys(deps),
    listAppAuthPolicyRows: listAppAuthPolicyRows(deps),
    listAppDistributionRules: listAppDistributionRules(deps),
    listAppTransactions: listAppTransactions(deps),
    listAppUsers: listAppUsers(deps),
    listApps: listApps(deps),
    listAuditLog: listAuditLog(deps),
    listAuthPolicyRows: listAuthPolicyRows(deps),
    listDistributionRules: listDistributionRules(deps),
    listKycProviders: listKycProviders(deps),
    listAppRampTransactions: listAppRampTransactions(deps),
    receiveRampWebhook: receiveRampWebhook(deps),
    listMembers: listMembers(deps),
    listRampProviders: listRampProviders(deps),
    listServerDistributionRules: listServerDistributionRules(deps),
    listSessions: listSessions(deps),
    listWebhookEvents: listWebhookEvents(deps),
    previewFeePolicy: previewFeePolicy(deps),
    redeliverWebhookEvent: redeliverWebhookEvent(deps),
    refreshOperatorSession: refreshOperatorSession(deps),
    refreshSession: refreshSession(deps),
    removeMember: removeMember(deps),
    restoreApp: restoreApp(deps),
    revokeApiKey: revokeApiKey(deps),
    revokeSession: revokeSession(deps),
    rotateApiKey: rotateApiKey(deps),
    rotateWebhookSecret: rotateWebhookSecret(deps),
    runTransaction: runTransaction(deps),
    setUserExternalId: setUserExternalId(deps),
    signAuthEntry: signAuthEntry(deps),
    signOut: signOut(deps),
    signOutOperator: signOutOperator(deps),
    signTransaction: signTransaction(deps),
    startEmailSignIn: startEmailSignIn(deps),
    startKycSession: startKycSession(deps),
    startOAuthSignIn: startOAuthSignIn(deps),
    startOperatorEmailSignIn: startOperatorEmailSignIn(deps),
    startOperatorOAuthSignIn: startOperatorOAuthSignIn(deps),
    startRamp: startRamp(deps),
    submitTransaction: submitTransaction(deps),
    updateApp: updateApp(deps),
    updateAppAuthPolicyRow: updateAppAuthPolicyRow(deps),
    updateAppDomains: updateAppDomains(deps),
    updateAuthPolicyRow: updateAuthPolicyRow(deps),
    updateAuthProviders: updateAuthProviders(deps),
    updateDistributionRule: updateDistributionRule(deps),
    updateFeePolicy: updateFeePolicy(deps),
    updateKycSettings: updateKycSettings(deps),
    updateMember: updateMember(deps),
    updateRampSettings: updateRampSettings(deps),
    updateServerDistributionRule: updateServerDistributionRule(deps),
    updateTreasuryWallets: updateTreasuryWallets(deps),
    updateWebhookConfig: updateWebhookConfig(deps),
    verifyEmailSignIn: verifyEmailSignIn(deps),
    verifyOperatorEmailSignIn: verifyOperatorEmailSignIn(deps),
    verifySep10Challenge: verifySep10Challenge(deps),
    verifyWalletSignIn: verifyWalletSignIn(deps),
  };
}

/** Fails start-up when the registry and the contract disagree (guards against casts around the type check). */
export function assertRegistryComplete(handlers: Record<string, unknown>): void {
  const expected = Object.keys(operations) as OperationId[];
  const missing = expected.filter((id) => typeof handlers[id] !== 'function');
  const extra = Object.keys(handlers).filter((id) => !(id in operations));
  if (missing.length || extra.length) {
    throw new Error(
      `handler registry out of step with the contract: missing [${missing.join(', ')}], extra [${extra.join(', ')}]`,
    );
  }
}
