// @onboard/react: the client library for React >= 18. A provider for one Onboard client, hooks over its state
// machines, the token distribution rules and identity verification (KYC), and plain accessible components (sign-in,
// wallet and balances, send, history, the KYC step) to use or replace. Styles are opt-in:
// `import '@onboard/react/styles.css'`.
export { OnboardProvider, useOnboard, type OnboardProviderProps } from './context.js';
export {
  useAuth,
  useBalances,
  useDistributionRules,
  useHistory,
  useKyc,
  useSession,
  useStore,
  useTransaction,
  useWallet,
  type AuthHook,
  type DistributionClaimState,
  type DistributionRulesHook,
  type DistributionRulesState,
  type KycFlowState,
  type KycHook,
  type KycListState,
  type TransactionHook,
} from './hooks.js';
export { authMessage, kycMessage, txMessage } from './messages.js';
export { rampMessage, rampText, type RampFailureLike } from './messages.js';
export {
  useRamp,
  type RampFlowState,
  type RampHook,
  type RampHookOptions,
  type RampProvidersState,
} from './useRamp.js';
export { SignInForm, type SignInFormProps } from './components/SignInForm.js';
export { WalletCard } from './components/WalletCard.js';
export { SendForm, type SendFormProps } from './components/SendForm.js';
export { HistoryList } from './components/HistoryList.js';
export { KycStep, type KycStepProps } from './components/KycStep.js';
export { RampWidget, type RampWidgetProps } from './components/RampWidget.js';
