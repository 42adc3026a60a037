// The dashboard's pages and their addresses (under /dashboard). Signed out, every address shows the sign-in page and
// comes back to the same address after it; the OAuth callback works signed out. Each page is its own chunk, loaded
// when first opened, so the sign-in page does not wait for the charts library or pages it does not show.
import { createBrowserRouter, Navigate, Outlet, type RouteObject } from 'react-router';
import { Center, Loader } from '@mantine/core';
import { useOperatorSession } from './session/SessionProvider';
import { SignInPage } from './session/SignInPage';
import { OAuthCallbackPage } from './session/OAuthCallbackPage';
import { Shell } from './layout/Shell';
import { AppLayout } from './layout/AppLayout';
import { NotFoundPage } from './layout/NotFoundPage';

function PageLoader() {
  return (
    <Center mih="100vh">
      <Loader aria-label="Loading" />
    </Center>
  );
}

function RequireOperator() {
  const session = useOperatorSession();
  if (session.status === 'loading') return <PageLoader />;
  if (session.status === 'signedOut') return <SignInPage {...(session.reason ? { reason: session.reason } : {})} />;
  return <Outlet />;
}

export const routes: RouteObject[] = [
  {
    // Shown while the first page's chunk loads.
    hydrateFallbackElement: <PageLoader />,
    children: [
      { path: '/auth/callback', element: <OAuthCallbackPage /> },
      {
        element: <RequireOperator />,
        children: [
          {
            element: <Shell />,
            children: [
              { index: true, element: <Navigate to="/apps" replace /> },
              { path: 'apps', lazy: () => import('./apps/AppsPage').then((m) => ({ Component: m.AppsPage })) },
              {
                path: 'apps/:appId',
                element: <AppLayout />,
                children: [
                  { index: true, lazy: () => import('./home/AppHomePage').then((m) => ({ Component: m.AppHomePage })) },
                  {
                    path: 'settings',
                    lazy: () => import('./settings/SettingsPage').then((m) => ({ Component: m.SettingsPage })),
                  },
                  {
                    path: 'settings/kyc',
                    lazy: () => import('./settings/SettingsPage').then((m) => ({ Component: m.KycSettingsPage })),
                  },
                  {
                    path: 'settings/ramps',
                    lazy: () => import('./settings/SettingsPage').then((m) => ({ Component: m.RampSettingsPage })),
                  },
                  { path: 'keys', lazy: () => import('./keys/KeysPage').then((m) => ({ Component: m.KeysPage })) },
                  {
                    path: 'domains',
                    lazy: () => import('./settings/DomainsPage').then((m) => ({ Component: m.DomainsPage })),
                  },
                  {
                    path: 'treasury',
                    lazy: () => import('./treasury/TreasuryPage').then((m) => ({ Component: m.TreasuryPage })),
                  },
                  {
                    path: 'fee-policy',
                    lazy: () => import('./treasury/FeePolicyPage').then((m) => ({ Component: m.FeePolicyPage })),
                  },
                  {
                    path: 'auth-policy',
                    lazy: () => import('./authPolicy/AuthPolicyPage').then((m) => ({ Component: m.AuthPolicyPage })),
                  },
                  {
                    path: 'distribution',
                    lazy: () =>
                      import('./distribution/DistributionPage').then((m) => ({ Component: m.DistributionPage })),
                  },
                  {
                    path: 'distribution/pushes',
                    lazy: () =>
                      import('./distribution/DistributionPage').then((m) => ({ Component: m.DistributionPushesPage })),
                  },
                  {
                    path: 'distribution/pushes/:pushId',
                    lazy: () => import('./distribution/PushDetailPage').then((m) => ({ Component: m.PushDetailPage })),
                  },
                  { path: 'users', lazy: () => import('./users/UsersPage').then((m) => ({ Component: m.UsersPage })) },
                  {
                    path: 'users/:userId',
                    lazy: () => import('./users/UserPage').then((m) => ({ Component: m.UserPage })),
                  },
                  {
                    path: 'transactions',
                    lazy: () => import('./monitor/TransactionsPage').then((m) => ({ Component: m.TransactionsPage })),
                  },
                  {
                    path: 'ramps',
                    lazy: () => import('./monitor/RampsPage').then((m) => ({ Component: m.RampsPage })),
                  },
                  {
                    path: 'webhooks',
                    lazy: () => import('./webhooks/WebhooksPage').then((m) => ({ Component: m.WebhooksPage })),
                  },
                  {
                    path: 'members',
                    lazy: () => import('./members/MembersPage').then((m) => ({ Component: m.MembersPage })),
                  },
                  {
                    path: 'audit-log',
                    lazy: () => import('./monitor/AuditLogPage').then((m) => ({ Component: m.AuditLogPage })),
                  },
                ],
              },
              { path: '*', element: <NotFoundPage /> },
            ],
          },
        ],
      },
    ],
  },
];

export const router = createBrowserRouter(routes, { basename: '/dashboard' });
