// The app's end users (Users), newest first: find one by email, external id, user id or wallet address, see their
// sign-in provider and whether their wallet is funded, and open one to fund it.
import { Link, useSearchParams } from 'react-router';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Anchor, Badge, Group, Stack, Table, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { IconSearch } from '@tabler/icons-react';
import { listAppUsersOptions } from '../../../generated/dashboard/@tanstack/react-query.gen';
import type { AppUserSummary } from '../../../generated/dashboard/types.gen';
import { CursorPager, useCursorStack } from '../components/CursorPager';
import { EmptyMessage } from '../components/EmptyMessage';
import { formatDate, shortKey } from '../components/format';
import { PageHeader } from '../components/PageHeader';
import { QueryState } from '../components/QueryState';
import { useCurrentApp } from '../layout/currentApp';

const PAGE_SIZE = 20;

const PROVIDER_NAMES: Record<AppUserSummary['provider'], string> = {
  email: 'Email code',
  google: 'Google',
  github: 'GitHub',
  stellar: 'Stellar wallet',
};

export function WalletStateBadge({ wallet }: { wallet: { funded: boolean } | null }) {
  if (!wallet)
    return (
      <Badge color="gray" variant="light" style={{ flex: 'none' }}>
        No wallet
      </Badge>
    );
  return wallet.funded ? (
    <Badge color="green" variant="light" style={{ flex: 'none' }}>
      Funded
    </Badge>
  ) : (
    <Badge color="orange" variant="light" style={{ flex: 'none' }}>
      Unfunded
    </Badge>
  );
}

function UsersTable({ appId, users }: { appId: string; users: AppUserSummary[] }) {
  return (
    <Table.ScrollContainer minWidth={1040}>
      <Table verticalSpacing="sm" highlightOnHover>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>User</Table.Th>
            <Table.Th>Email</Table.Th>
            <Table.Th>Provider</Table.Th>
            <Table.Th>Wallet</Table.Th>
            <Table.Th>Created</Table.Th>
            <Table.Th>Last seen</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {users.map((user) => (
            <Table.Tr key={user.userId}>
              <Table.Td>
                <Anchor component={Link} to={`/apps/${appId}/users/${user.userId}`} ff="monospace" size="sm">
                  {user.userId}
                </Anchor>
                {user.externalId ? (
                  <Text size="xs" c="dimmed">
                    External id: {user.externalId}
                  </Text>
                ) : null}
              </Table.Td>
              <Table.Td>{user.email ?? <Text c="dimmed">—</Text>}</Table.Td>
              <Table.Td style={{ whiteSpace: 'nowrap' }}>{PROVIDER_NAMES[user.provider]}</Table.Td>
              <Table.Td>
                <Group gap="xs" wrap="nowrap">
                  {user.wallet ? (
                    <Text ff="monospace" size="sm" title={user.wallet.publicKey} style={{ whiteSpace: 'nowrap' }}>
                      {shortKey(user.wallet.publicKey)}
                    </Text>
                  ) : null}
                  <WalletStateBadge wallet={user.wallet} />
                </Group>
              </Table.Td>
              <Table.Td style={{ whiteSpace: 'nowrap' }}>{formatDate(user.createdAt)}</Table.Td>
              <Table.Td style={{ whiteSpace: 'nowrap' }}>
                {user.lastSeenAt ? formatDate(user.lastSeenAt) : 'Never'}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

export function UsersPage() {
  const app = useCurrentApp();
  const [params, setParams] = useSearchParams();
  const search = params.get('search') ?? '';
  const [debounced] = useDebouncedValue(search.trim(), 300);
  // A new search starts at its first page.
  const pages = useCursorStack([debounced]);
  const users = useQuery({
    ...listAppUsersOptions({
      path: { appId: app.appId },
      query: {
        limit: PAGE_SIZE,
        ...(debounced ? { search: debounced } : {}),
        ...(pages.cursor ? { cursor: pages.cursor } : {}),
      },
    }),
    placeholderData: keepPreviousData,
  });

  return (
    <>
      <PageHeader
        title="Users"
        description={`People who signed in to ${app.name}, newest first, with their wallet on ${app.network}.`}
      />
      <Stack gap="md">
        <TextInput
          label="Search users"
          description="An email, external id or user id (or the start of one), or a wallet’s full G-address."
          placeholder="ada@example.com"
          leftSection={<IconSearch size={16} />}
          maw={520}
          value={search}
          maxLength={200}
          onChange={(e) => {
            const value = e.currentTarget.value;
            setParams(value ? { search: value } : {}, { replace: true });
          }}
        />
        <QueryState
          query={users}
          rows={8}
          isEmpty={(data) => data.content.users.length === 0}
          empty={
            debounced ? (
              <EmptyMessage title={`No user matches “${debounced}”`}>
                Emails, external ids and user ids match from their start; a wallet address must be complete.
              </EmptyMessage>
            ) : (
              <EmptyMessage title="No users yet">
                Users appear here after their first sign-in through your app (the SDK with a publishable key).
              </EmptyMessage>
            )
          }
        >
          {({ content }) => (
            <Stack gap="sm" style={{ opacity: users.isPlaceholderData ? 0.6 : 1 }}>
              <UsersTable appId={app.appId} users={content.users} />
              <CursorPager
                pages={pages}
                pageSize={PAGE_SIZE}
                shown={content.users.length}
                total={content.total}
                nextCursor={content.nextCursor}
                busy={users.isFetching}
                noun={['user', 'users']}
              />
            </Stack>
          )}
        </QueryState>
      </Stack>
    </>
  );
}
