// A page's tabs, each with its own address (Distribution's rules and pushes, Settings' app and KYC): choosing a tab
// goes to its address, so a tab can be linked to and the browser's back button returns to the previous one. Only the
// chosen tab's panel is mounted (its data is read when it is opened).
import type { ReactNode } from 'react';
import { useNavigate } from 'react-router';
import { Tabs } from '@mantine/core';

export interface PageTab<T extends string> {
  value: T;
  label: string;
  /** Its address after the page's (`''` for the first tab, `/pushes`). */
  path: string;
}

export function PageTabs<T extends string>({
  value,
  base,
  tabs,
  children,
}: {
  value: T;
  /** The page's address (`/apps/<appId>/distribution`). */
  base: string;
  tabs: PageTab<T>[];
  /** The panels: <Tabs.Panel value="…">. */
  children: ReactNode;
}) {
  const navigate = useNavigate();
  return (
    <Tabs
      value={value}
      onChange={(chosen) => {
        const tab = tabs.find((t) => t.value === chosen);
        if (tab) void navigate(`${base}${tab.path}`);
      }}
      keepMounted={false}
    >
      <Tabs.List mb="md">
        {tabs.map((tab) => (
          <Tabs.Tab key={tab.value} value={tab.value}>
            {tab.label}
          </Tabs.Tab>
        ))}
      </Tabs.List>
      {children}
    </Tabs>
  );
}
