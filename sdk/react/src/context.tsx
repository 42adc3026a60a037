// The provider: one Onboard client for the tree. It is created once (lazily, so a StrictMode double render creates
// one), started in an effect (so server rendering never touches browser storage; the server's snapshot is the
// `restoring` state), and stopped on unmount only when the provider created it. StrictMode's mount, unmount, mount
// cycle is fine: ready() after destroy() starts the client again.
import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';
import { createOnboard, type Onboard, type OnboardOptions } from '@onboard/core';

const OnboardContext = createContext<Onboard | null>(null);

export type OnboardProviderProps =
  | { client: Onboard; options?: never; children?: ReactNode }
  | { options: OnboardOptions; client?: never; children?: ReactNode };

export function OnboardProvider(props: OnboardProviderProps) {
  const [owned] = useState(() => !props.client);
  const [client] = useState(() => props.client ?? createOnboard(props.options));
  useEffect(() => {
    void client.ready();
    return () => {
      if (owned) client.destroy();
    };
  }, [client, owned]);
  return <OnboardContext.Provider value={client}>{props.children}</OnboardContext.Provider>;
}

/** The client of the nearest OnboardProvider. */
export function useOnboard(): Onboard {
  const client = useContext(OnboardContext);
  if (!client) throw new Error('useOnboard: wrap the app in <OnboardProvider>');
  return client;
}
