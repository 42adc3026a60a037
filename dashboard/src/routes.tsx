// The dashboard's pages and their addresses (under /dashboard). Signed out, every address shows the sign-in page and
// comes back to the same address after it; the OAuth callback works signed out.
import { createBrowserRouter, Navigate, Outlet, type RouteObject } from 'react-router';
import { Center, Loader } from '@mantine/core';
import { useOperatorSession } from './session/SessionProvider';
import { SignInPage } from './session/SignInPage';
import { OAuthCallbackPage } from './session/OAuthCallbackPage';
import { Shell } from './layout/Shell';
import { AppLayout } from './layout/AppLayout';
import { NotFoundPage } from './layout/NotFoundPage';
import { AppsPage } from './apps/AppsPage';
import { AppHomePage } from './home/AppHomePage';
import { SettingsPage } from './settings/SettingsPage';
import { DomainsPage } from './settings/DomainsPage';
import { KeysPage } from './keys/KeysPage';
import { TreasuryPage } from './treasury/TreasuryPage';
import { FeePolicyPage } from './treasury/FeePolicyPage';
import { UsersPage } from './users/UsersPage';
import { UserPage } from './users/UserPage';
import { MembersPage } from './members/MembersPage';
import { TransactionsPage } from './monitor/TransactionsPage';
import { AuditLogPage } from './monitor/AuditLogPage';
import { WebhooksPage } from './webhooks/WebhooksPage';

function RequireOperator() {
  const session = useOperatorSession();
  if (session.status === 'loading') {
    return (
      <Center mih="100vh">
        <Loader aria-label="Loading" />
      </Center>
    );
  }
  if (session.status === 'signedOut') return <SignInPage {...(session.reason ? { reason: session.reason } : {})} />;
  return <Outlet />;
}

export const routes: RouteObject[] = [
  { path: '/auth/callback', element: <OAuthCallbackPage /> },
  {
    element: <RequireOperator />,
    children: [
      {
        element: <Shell />,
        children: [
          { index: true, element: <Navigate to="/apps" replace /> },
          { path: 'apps', element: <AppsPage /> },
          {
            path: 'apps/:appId',
            element: <AppLayout />,
            children: [
              { index: true, element: <AppHomePage /> },
              { path: 'settings', element: <SettingsPage /> },
              { path: 'keys', element: <KeysPage /> },
              { path: 'domains', element: <DomainsPage /> },
              { path: 'treasury', element: <TreasuryPage /> },
              { path: 'fee-policy', element: <FeePolicyPage /> },
              { path: 'users', element: <UsersPage /> },
              { path: 'users/:userId', element: <UserPage /> },
              { path: 'transactions', element: <TransactionsPage /> },
              { path: 'webhooks', element: <WebhooksPage /> },
              { path: 'members', element: <MembersPage /> },
              { path: 'audit-log', element: <AuditLogPage /> },
            ],
          },
          { path: '*', element: <NotFoundPage /> },
        ],
      },
    ],
  },
];

export const router = createBrowserRouter(routes, { basename: '/dashboard' });
