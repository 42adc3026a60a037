// The handler registry: exactly one handler per operationId of the contract (the type makes a missing or extra one a
// compile error; assertRegistryComplete checks it again at start-up). An operation not built yet is registered as
// notImplemented(...) and listed as 501 in the README's status table.
import { operations, type OperationId } from '../../generated/server/catalogue.gen';
import type { Deps } from '../deps';
import { notImplemented } from './notImplemented';
import { getHealth } from './system/getHealth';
import { getReadiness } from './system/getReadiness';
import type { HandlerRegistry } from './types';

export function createHandlers(deps: Deps): HandlerRegistry {
  return {
    addMember: notImplemented('addMember'),
    archiveApp: notImplemented('archiveApp'),
    buildTransaction: notImplemented('buildTransaction'),
    claimDistributionRule: notImplemented('claimDistributionRule'),
    completeOAuthSignIn: notImplemented('completeOAuthSignIn'),
    completeOperatorOAuthSignIn: notImplemented('completeOperatorOAuthSignIn'),
    createApiKey: notImplemented('createApiKey'),
    createApp: notImplemented('createApp'),
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
    getApp: notImplemented('getApp'),
    getAppDomains: notImplemented('getAppDomains'),
    getAppMetrics: notImplemented('getAppMetrics'),
    getAppUser: notImplemented('getAppUser'),
    getAuthProviders: notImplemented('getAuthProviders'),
    getCurrentOperator: notImplemented('getCurrentOperator'),
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
    listApiKeys: notImplemented('listApiKeys'),
    listAppAuthPolicyRows: notImplemented('listAppAuthPolicyRows'),
    listAppDistributionRules: notImplemented('listAppDistributionRules'),
    listAppTransactions: notImplemented('listAppTransactions'),
    listAppUsers: notImplemented('listAppUsers'),
    listApps: notImplemented('listApps'),
    listAuditLog: notImplemented('listAuditLog'),
    listAuthPolicyRows: notImplemented('listAuthPolicyRows'),
    listDistributionRules: notImplemented('listDistributionRules'),
    listKycProviders: notImplemented('listKycProviders'),
    listMembers: notImplemented('listMembers'),
    listRampProviders: notImplemented('listRampProviders'),
    listSessions: notImplemented('listSessions'),
    listWebhookEvents: notImplemented('listWebhookEvents'),
    redeliverWebhookEvent: notImplemented('redeliverWebhookEvent'),
    refreshOperatorSession: notImplemented('refreshOperatorSession'),
    refreshSession: notImplemented('refreshSession'),
    removeMember: notImplemented('removeMember'),
    restoreApp: notImplemented('restoreApp'),
    revokeApiKey: notImplemented('revokeApiKey'),
    revokeSession: notImplemented('revokeSession'),
    rotateApiKey: notImplemented('rotateApiKey'),
    rotateWebhookSecret: notImplemented('rotateWebhookSecret'),
    runTransaction: notImplemented('runTransaction'),
    setUserExternalId: notImplemented('setUserExternalId'),
    signAuthEntry: notImplemented('signAuthEntry'),
    signOut: notImplemented('signOut'),
    signOutOperator: notImplemented('signOutOperator'),
    signTransaction: notImplemented('signTransaction'),
    startEmailSignIn: notImplemented('startEmailSignIn'),
    startKycSession: notImplemented('startKycSession'),
    startOAuthSignIn: notImplemented('startOAuthSignIn'),
    startOperatorEmailSignIn: notImplemented('startOperatorEmailSignIn'),
    startOperatorOAuthSignIn: notImplemented('startOperatorOAuthSignIn'),
    startRamp: notImplemented('startRamp'),
    submitTransaction: notImplemented('submitTransaction'),
    updateApp: notImplemented('updateApp'),
    updateAppAuthPolicyRow: notImplemented('updateAppAuthPolicyRow'),
    updateAppDomains: notImplemented('updateAppDomains'),
    updateAuthPolicyRow: notImplemented('updateAuthPolicyRow'),
    updateAuthProviders: notImplemented('updateAuthProviders'),
    updateDistributionRule: notImplemented('updateDistributionRule'),
    updateFeePolicy: notImplemented('updateFeePolicy'),
    updateKycSettings: notImplemented('updateKycSettings'),
    updateMember: notImplemented('updateMember'),
    updateRampSettings: notImplemented('updateRampSettings'),
    updateTreasuryWallets: notImplemented('updateTreasuryWallets'),
    updateWebhookConfig: notImplemented('updateWebhookConfig'),
    verifyEmailSignIn: notImplemented('verifyEmailSignIn'),
    verifyOperatorEmailSignIn: notImplemented('verifyOperatorEmailSignIn'),
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
