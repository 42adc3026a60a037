// The dashboard's frame: a header (app switcher, colour scheme, the operator's menu) and, inside an app, the
// navigation of its pages. On a phone the navigation folds behind a burger button.
import { Link, NavLink as RouterNavLink, Outlet, useNavigate, useParams } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import {
  ActionIcon,
  AppShell,
  Badge,
  Burger,
  Group,
  Menu,
  NavLink,
  ScrollArea,
  Select,
  Text,
  Tooltip,
  UnstyledButton,
  useComputedColorScheme,
  useMantineColorScheme,
} from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import {
  IconArrowsExchange,
  IconChartBar,
  IconCoins,
  IconGauge,
  IconGift,
  IconKey,
  IconList,
  IconLogout,
  IconMoon,
  IconSettings,
  IconShieldCheck,
  IconSignature,
  IconSun,
  IconUserCircle,
  IconUsers,
  IconUsersGroup,
  IconWebhook,
  IconWorld,
  IconHistory,
} from '@tabler/icons-react';
import { listAppsOptions } from '../../../generated/dashboard/@tanstack/react-query.gen';
import { operatorSession } from '../api/client';
import { useOperatorSession } from '../session/SessionProvider';

/** An app's pages, in the order operators set an app up and then run it. */
export const APP_PAGES = [
  { path: '', label: 'Overview', icon: IconGauge },
  { path: 'settings', label: 'Settings', icon: IconSettings },
  { path: 'keys', label: 'API keys', icon: IconKey },
  { path: 'domains', label: 'Domains', icon: IconWorld },
  { path: 'treasury', label: 'Treasury', icon: IconCoins },
  { path: 'fee-policy', label: 'Fee policy', icon: IconShieldCheck },
  { path: 'auth-policy', label: 'Auth policy', icon: IconSignature },
  { path: 'distribution', label: 'Distribution', icon: IconGift },
  { path: 'users', label: 'Users', icon: IconUsers },
  { path: 'transactions', label: 'Transactions', icon: IconChartBar },
  { path: 'ramps', label: 'Ramps', icon: IconArrowsExchange },
  { path: 'webhooks', label: 'Webhooks', icon: IconWebhook },
  { path: 'members', label: 'Members', icon: IconUsersGroup },
  { path: 'audit-log', label: 'Audit log', icon: IconHistory },
] as const;

function AppSwitcher({ appId }: { appId: string | undefined }) {
  const navigate = useNavigate();
  const apps = useQuery(listAppsOptions());
  const options = (apps.data?.content.apps ?? []).map((a) => ({
    value: a.appId,
    label: `${a.name} (${a.network})`,
  }));
  return (
    <Select
      aria-label="Current app"
      placeholder={apps.isPending ? 'Loading apps…' : 'Choose an app'}
      data={options}
      value={appId ?? null}
      onChange={(value) => value && void navigate(`/apps/${value}`)}
      w={{ base: 160, sm: 260 }}
      allowDeselect={false}
      searchable
      nothingFoundMessage="No app by that name"
      comboboxProps={{ withinPortal: true }}
    />
  );
}

function OperatorMenu() {
  const session = useOperatorSession();
  const navigate = useNavigate();
  if (session.status !== 'signedIn') return null;
  const { operator } = session.session;
  const name = operator.displayName ?? operator.email ?? operator.stellarAccount ?? operator.operatorId;
  const signOut = (everywhere: boolean) =>
    void operatorSession.signOut({ everywhere }).finally(() => void navigate('/'));
  return (
    <Menu position="bottom-end" withArrow withInitialFocusPlaceholder={false}>
      <Menu.Target>
        {/* On a phone only the icon shows; the name stays the button's accessible name either way. */}
        <UnstyledButton
          title="Your account"
          aria-label={`Your account: ${name}`}
          aria-description={`Signed in as ${operator.email ?? operator.stellarAccount ?? operator.operatorId}`}
        >
          <Group gap={6} wrap="nowrap">
            <IconUserCircle size={22} stroke={1.5} aria-hidden />
            <Text size="sm" fw={500} maw={180} truncate="end" visibleFrom="sm">
              {name}
            </Text>
          </Group>
        </UnstyledButton>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Item leftSection={<IconLogout size={14} />} onClick={() => signOut(false)}>
          Sign out
        </Menu.Item>
        <Menu.Item leftSection={<IconLogout size={14} />} onClick={() => signOut(true)}>
          Sign out on every device
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}

function ColorSchemeToggle() {
  const { setColorScheme } = useMantineColorScheme();
  const computed = useComputedColorScheme('light');
  const next = computed === 'dark' ? 'light' : 'dark';
  return (
    <Tooltip label={`Switch to ${next} mode`}>
      <ActionIcon
        variant="default"
        size="lg"
        onClick={() => setColorScheme(next)}
        aria-label={`Switch to ${next} mode`}
      >
        {computed === 'dark' ? <IconSun size={18} /> : <IconMoon size={18} />}
      </ActionIcon>
    </Tooltip>
  );
}

export function Shell() {
  const { appId } = useParams();
  const [opened, { toggle, close }] = useDisclosure();
  return (
    <AppShell
      header={{ height: 60 }}
      navbar={appId ? { width: 230, breakpoint: 'sm', collapsed: { mobile: !opened } } : undefined}
      padding="md"
    >
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            {appId ? <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Menu" /> : null}
            <Text component={Link} to="/apps" fw={700} size="lg" visibleFrom="xs">
              Onboard
            </Text>
            <AppSwitcher appId={appId} />
          </Group>
          <Group gap="sm" wrap="nowrap">
            <ColorSchemeToggle />
            <OperatorMenu />
          </Group>
        </Group>
      </AppShell.Header>
      {appId ? (
        <AppShell.Navbar p="xs" aria-label="App pages">
          <ScrollArea>
            {APP_PAGES.map((page) => (
              <NavLink
                key={page.path}
                component={RouterNavLink}
                to={`/apps/${appId}${page.path ? `/${page.path}` : ''}`}
                end={page.path === ''}
                label={page.label}
                leftSection={<page.icon size={18} stroke={1.5} />}
                onClick={close}
              />
            ))}
            <NavLink
              component={RouterNavLink}
              to="/apps"
              end
              label="All apps"
              leftSection={<IconList size={18} stroke={1.5} />}
              onClick={close}
            />
          </ScrollArea>
        </AppShell.Navbar>
      ) : null}
      <AppShell.Main>
        <Outlet />
      </AppShell.Main>
    </AppShell>
  );
}

export function NetworkBadge({ network }: { network: string }) {
  return (
    <Badge variant="light" color={network === 'mainnet' ? 'green' : 'blue'}>
      {network}
    </Badge>
  );
}
