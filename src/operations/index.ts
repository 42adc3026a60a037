// The handler registry: exactly one handler per operationId of the contract (the type makes a missing or extra one a
// compile error; assertRegistryComplete checks it again at start-up). An operation not built yet is registered as
// notImplemented(...) and listed as 501 in the README's status table.
import { operations, type OperationId } from '../../generated/server/catalogue.gen';
import type { Deps } from '../deps';
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
import { getAppDomains } from './dashboard-settings/getAppDomains';
import { updateAppDomains } from './dashboard-settings/updateAppDomains';
import { getCurrentOperator } from './dashboard-auth/getCurrentOperator';
import { refreshOperatorSession } from './dashboard-auth/refreshOperatorSession';
import { signOutOperator } from './dashboard-auth/signOutOperator';
import { startOperatorEmailSignIn } from './dashboard-auth/startOperatorEmailSignIn';
import { verifyOperatorEmailSignIn } from './dashboard-auth/verifyOperatorEmailSignIn';
import { notImplemented } from './notImplemented';
import { getHealth } from './system/getHealth';
import { getReadiness } from './system/getReadiness';
import type { HandlerRegistry } from './types';

export function createHandlers(deps: Deps): HandlerRegistry {
  return {
    addMember: addMember(deps),
    archiveApp: archiveApp(deps),
    buildTransaction: notImplemented('buildTransaction'),
    claimDistributionRule: notImplemented('claimDistributionRule'),
    completeOAuthSignIn: notImplemented('completeOAuthSignIn'),
    completeOperatorOAuthSignIn: notImplemented('completeOperatorOAuthSignIn'),
    createApiKey: createApiKey(deps),
    createApp: createApp(deps),
    createAppAuthPolicyRow: notImplemented('createAppAuthPolicyRow'),
    createAuthPolicyRow: notImplemented('createAuthPolicyRow'),
    createDistributionRule: notImplemented('createDistributionRule'),
    createRampQuote: notImplemented('createRampQuote'),
    createSep10Challenge: notImplemented('createSep10Challenge'),
    deleteAppAuthPolicyRow: notImplemented('deleteAppAuthPolicyRow'),
    deleteAuthPolicyRow: notImplemented('deleteAuthPolicyRow'),
    deleteDistributionRule: notImplemented('deleteDistributionRule'),
    fundAppUserWallet: notImplemented('fundAppUserWallet'),
    fundWallet: notImplemented('fundWallet'),
    getApp: getApp(deps),
    getAppDomains: getAppDomains(deps),
    getAppMetrics: notImplemented('getAppMetrics'),
    getAppUser: notImplemented('getAppUser'),
    getAuthProviders: notImplemented('getAuthProviders'),
    getCurrentOperator: getCurrentOperator(deps),
    getFeePolicy: notImplemented('getFeePolicy'),
    getHealth: getHealth(deps),
    getKycSettings: notImplemented('getKycSettings'),
    getKycVerification: notImplemented('getKycVerification'),
    getRampSettings: notImplemented('getRampSettings'),
    getRampTransaction: notImplemented('getRampTransaction'),
    getReadiness: getReadiness(deps),
    getTransaction: notImplemented('getTransaction'),
    getTreasury: notImplemented('getTreasury'),
    getTxHistory: notImplemented('getTxHistory'),
    getUser: notImplemented('getUser'),
    getWallet: notImplemented('getWallet'),
    getWalletBalances: notImplemented('getWalletBalances'),
    getWebhookConfig: notImplemented('getWebhookConfig'),
    introspectUserToken: notImplemented('introspectUserToken'),
    listApiKeys: listApiKeys(deps),
    listAppAuthPolicyRows: notImplemented('listAppAuthPolicyRows'),
    listAppDistributionRules: notImplemented('listAppDistributionRules'),
    listAppTransactions: notImplemented('listAppTransactions'),
    listAppUsers: notImplemented('listAppUsers'),
    listApps: listApps(deps),
    listAuditLog: notImplemented('listAuditLog'),
    listAuthPolicyRows: notImplemented('listAuthPolicyRows'),
    listDistributionRules: notImplemented('listDistributionRules'),
    listKycProviders: notImplemented('listKycProviders'),
    listMembers: listMembers(deps),
    listRampProviders: notImplemented('listRampProviders'),
    listSessions: notImplemented('listSessions'),
    listWebhookEvents: notImplemented('listWebhookEvents'),
    redeliverWebhookEvent: notImplemented('redeliverWebhookEvent'),
    refreshOperatorSession: refreshOperatorSession(deps),
    refreshSession: notImplemented('refreshSession'),
    removeMember: removeMember(deps),
    restoreApp: restoreApp(deps),
    revokeApiKey: revokeApiKey(deps),
    revokeSession: notImplemented('revokeSession'),
    rotateApiKey: rotateApiKey(deps),
    rotateWebhookSecret: notImplemented('rotateWebhookSecret'),
    runTransaction: notImplemented('runTransaction'),
    setUserExternalId: notImplemented('setUserExternalId'),
    signAuthEntry: notImplemented('signAuthEntry'),
    signOut: notImplemented('signOut'),
    signOutOperator: signOutOperator(deps),
    signTransaction: notImplemented('signTransaction'),
    startEmailSignIn: notImplemented('startEmailSignIn'),
    startKycSession: notImplemented('startKycSession'),
    startOAuthSignIn: notImplemented('startOAuthSignIn'),
    startOperatorEmailSignIn: startOperatorEmailSignIn(deps),
    startOperatorOAuthSignIn: notImplemented('startOperatorOAuthSignIn'),
    startRamp: notImplemented('startRamp'),
    submitTransaction: notImplemented('submitTransaction'),
    updateApp: updateApp(deps),
    updateAppAuthPolicyRow: notImplemented('updateAppAuthPolicyRow'),
    updateAppDomains: updateAppDomains(deps),
    updateAuthPolicyRow: notImplemented('updateAuthPolicyRow'),
    updateAuthProviders: notImplemented('updateAuthProviders'),
    updateDistributionRule: notImplemented('updateDistributionRule'),
    updateFeePolicy: notImplemented('updateFeePolicy'),
    updateKycSettings: notImplemented('updateKycSettings'),
    updateMember: updateMember(deps),
    updateRampSettings: notImplemented('updateRampSettings'),
    updateTreasuryWallets: notImplemented('updateTreasuryWallets'),
    updateWebhookConfig: notImplemented('updateWebhookConfig'),
    verifyEmailSignIn: notImplemented('verifyEmailSignIn'),
    verifyOperatorEmailSignIn: verifyOperatorEmailSignIn(deps),
    verifySep10Challenge: notImplemented('verifySep10Challenge'),
  };
}

/** Fails start-up when the registry and the contract disagree (guards against casts around the type check). */
export function assertRegistryComplete(handlers: Record<string, unknown>): void {
  const expected = Object.keys(operations) as OperationId[];
  const missing = expected.filter((id) => typeof handlers[id] !== 'function');
  const extra = Object.keys(handlers).filter((id) => !(id in operations));
  if (missing.length || extra.length) {
    throw new Error(`handler registry out of step with the contract: missing [${missing.join(', ')}], extra [${extra.join(', ')}]`);
  }
}
