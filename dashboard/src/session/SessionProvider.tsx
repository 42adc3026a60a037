// The operator's session for the whole page: loaded once at start (a reload keeps the operator signed in), followed
// across tabs, and read by any component through useOperatorSession().
import { createContext, useContext, useEffect, useSyncExternalStore, type ReactNode } from 'react';
import type { OperatorSessionState } from '@onboard/core/operator';
import { operatorSession } from '../api/client';

const SessionContext = createContext<OperatorSessionState>({ status: 'loading' });

export function SessionProvider({ children }: { children: ReactNode }) {
  const state = useSyncExternalStore(operatorSession.state.subscribe, operatorSession.state.get);
  useEffect(() => {
    void operatorSession.ready();
    return () => operatorSession.destroy();
  }, []);
  return <SessionContext.Provider value={state}>{children}</SessionContext.Provider>;
}

export function useOperatorSession(): OperatorSessionState {
  return useContext(SessionContext);
}
