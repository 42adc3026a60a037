// The app's ramps (listAppRampTransactions), newest first: each ramp one of its users started through a provider
// (Settings, Ramps tab) with its user and wallet, direction, fiat and asset amounts, status and on-chain leg; filtered
// by status (kept in the address, so a filtered view can be shared and survives a reload), paged with "Load more".
import { Link } from 'react-router';
import { useInfiniteQuery } from '@tanstack/react-query';
import { Anchor, Badge, Button, Group, Select, Stack, Table, Text } from '@mantine/core';
import { IconRefresh } from '@tabler/icons-react';
import { listAppRampTransactionsInfiniteOptions } from '../../../generated/dashboard/@tanstack/react-query.gen';
import type { ListAppRampTransactionsResponse, RampTransaction } from '../../../generated/dashboard/types.gen';
import { CopyValue } from '../components/CopyValue';
import { EmptyMessage } from '../components/EmptyMessage';
import { FilterBar } from '../components/FilterBar';
import { formatDate, shortKey, trimAmount } from '../components/format';
import { PageHeader } from '../components/PageHeader';
import { QueryState } from '../components/QueryState';
import { useCurrentApp } from '../layout/currentApp';
import { RAMP_PROVIDERS } from '../settings/RampProviderCard';
import { useFiltersInAddress } from './useFiltersInAddress';

type Row = ListAppRampTransactionsResponse['content']['transactions'][number];
type Status = RampTransaction['status'];

const PAGE_SIZE = 25;
/** Shortened ids and addresses stay on one line: a broken hash reads as two values. */
const NO_WRAP = { whiteSpace: 'nowrap' } as const;

/** Every status, in the order a ramp goes through them, with what it means for the operator. */
const STATUSES: { value: Status; label: string; color: string; meaning: string }[] = [
  {
    value: 'pending_kyc',
    label: 'KYC pending',
    color: 'grape',
    meaning: 'The user must pass the provider’s KYC first',
  },
  {
    value: 'awaiting_deposit',
    label: 'Awaiting deposit',
    color: 'orange',
    meaning: 'The user has not paid the fiat yet',
  },
  {
    value: 'awaiting_signature',
    label: 'Awaiting signature',
    color: 'indigo',
    meaning: 'The user’s wallet must sign the on-chain leg',
  },
  { value: 'processing', label: 'Processing', color: 'blue', meaning: 'The provider or the network is settling it' },
  { value: 'completed', label: 'Completed', color: 'green', meaning: 'Settled' },
  { value: 'failed', label: 'Failed', color: 'red', meaning: 'The provider or the network refused it' },
  { value: 'expired', label: 'Expired', color: 'gray', meaning: 'Not paid or signed in time' },
];

const providerName = (id: string) => RAMP_PROVIDERS[id as keyof typeof RAMP_PROVIDERS]?.shortName ?? id;
/** "USDC:GBBD…" -> "USDC". */
const assetCode = (asset: string) => (asset === 'native' ? 'XLM' : (asset.split(':')[0] ?? asset));

function RampStatusBadge({ status }: { status: Status }) {
  const known = STATUSES.find((s) => s.value === status);
  return (
    <Badge color={known?.color ?? 'gray'} variant="light" miw="max-content" title={known?.meaning}>
      {known?.label ?? status}
    </Badge>
  );
}

function RampsTable({ appId, rows }: { appId: string; rows: Row[] }) {
  return (
    <Table.ScrollContainer minWidth={1000}>
      <Table verticalSpacing="xs" highlightOnHover>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Created</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th>Direction</Table.Th>
            <Table.Th>Provider</Table.Th>
            <Table.Th ta="right">Fiat</Table.Th>
            <Table.Th ta="right">Crypto</Table.Th>
            <Table.Th>User and wallet</Table.Th>
            <Table.Th>Stellar transaction</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map(({ userId, walletAddress, ramp }) => (
            <Table.Tr key={ramp.txId}>
              <Table.Td style={NO_WRAP}>
                <Stack gap={2}>
                  <Text size="sm">{formatDate(ramp.createdAt)}</Text>
                  <Text size="xs" c="dimmed" ff="monospace" title={ramp.txId}>
                    {shortKey(ramp.txId)}
                  </Text>
                </Stack>
              </Table.Td>
              <Table.Td style={NO_WRAP}>
                <RampStatusBadge status={ramp.status} />
              </Table.Td>
              <Table.Td style={NO_WRAP}>{ramp.direction === 'on' ? 'On-ramp' : 'Off-ramp'}</Table.Td>
              <Table.Td style={NO_WRAP}>{providerName(ramp.provider)}</Table.Td>
              <Table.Td ta="right" style={NO_WRAP}>
                {trimAmount(ramp.fiatAmount)} {ramp.fiatCurrency}
              </Table.Td>
              <Table.Td ta="right" style={NO_WRAP}>
                <Text size="sm" span title={ramp.asset}>
                  {trimAmount(ramp.cryptoAmount)} {assetCode(ramp.asset)}
                </Text>
              </Table.Td>
              <Table.Td style={NO_WRAP}>
                <Stack gap={2} align="flex-start">
                  <Anchor
                    component={Link}
                    to={`/apps/${appId}/users/${userId}`}
                    ff="monospace"
                    size="sm"
                    title={userId}
                  >
                    {shortKey(userId)}
                  </Anchor>
                  <CopyValue value={walletAddress} display={shortKey(walletAddress)} label="wallet address" />
                </Stack>
              </Table.Td>
              <Table.Td style={NO_WRAP}>
                {ramp.stellarTxHash ? (
                  <CopyValue
                    value={ramp.stellarTxHash}
                    display={shortKey(ramp.stellarTxHash)}
                    label="transaction hash"
                  />
                ) : (
                  <Text size="sm" c="dimmed">
                    None yet
                  </Text>
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

export function RampsPage() {
  const app = useCurrentApp();
  const { searchParams, setFilter, clearFilters } = useFiltersInAddress(['status']);
  const status = STATUSES.find((s) => s.value === searchParams.get('status'))?.value;
  const query = { limit: PAGE_SIZE, ...(status ? { status } : {}) };

  const list = useInfiniteQuery({
    ...listAppRampTransactionsInfiniteOptions({ path: { appId: app.appId }, query }),
    // The first page without a cursor (the query as given); each next one with the cursor the last page handed out.
    initialPageParam: { path: { appId: app.appId } },
    getNextPageParam: (last) => last.content.nextCursor ?? undefined,
  });

  return (
    <>
      <PageHeader
        title="Ramps"
        description="Your users’ purchases and sales of the app’s assets through its ramp providers, newest first, as the service last heard from each provider."
        actions={
          <Button
            variant="default"
            leftSection={<IconRefresh size={16} />}
            onClick={() => void list.refetch()}
            loading={list.isRefetching && !list.isFetchingNextPage}
          >
            Refresh
          </Button>
        }
      />
      <Stack gap="md">
        <FilterBar
          label="Filter ramps"
          cols={{ base: 1, sm: 3 }}
          filtered={status !== undefined}
          onClearFilters={clearFilters}
        >
          <Select
            label="Status"
            placeholder="Any status"
            data={STATUSES.map(({ value, label }) => ({ value, label }))}
            value={status ?? null}
            onChange={(value) => setFilter('status', value)}
            clearable
            clearButtonProps={{ 'aria-label': 'Clear the status filter' }}
          />
        </FilterBar>
        <QueryState
          query={list}
          rows={6}
          isEmpty={(data) => data.pages[0]?.content.transactions.length === 0}
          empty={
            status ? (
              <EmptyMessage title={`No ramps with the status “${STATUSES.find((s) => s.value === status)?.label}”`}>
                <Button variant="light" size="xs" onClick={clearFilters}>
                  Clear filters
                </Button>
              </EmptyMessage>
            ) : (
              <EmptyMessage title="No ramps yet">
                <Text c="dimmed" size="sm" maw={640}>
                  A ramp appears here when one of your users buys or sells an asset through a provider turned on under{' '}
                  <Anchor component={Link} to={`/apps/${app.appId}/settings/ramps`} size="sm">
                    Settings, Ramps
                  </Anchor>
                  : your app gets a quote and starts the ramp for the user with the client library or the SDK API
                  (startRamp).
                </Text>
              </EmptyMessage>
            )
          }
        >
          {(data) => {
            const rows = data.pages.flatMap((page) => page.content.transactions);
            return (
              <Stack gap="sm">
                <RampsTable appId={app.appId} rows={rows} />
                <Group justify="space-between" wrap="wrap">
                  <Text size="sm" c="dimmed">
                    {list.hasNextPage
                      ? `Showing the newest ${rows.length.toLocaleString()} ramps`
                      : `Showing all ${rows.length.toLocaleString()} ${rows.length === 1 ? 'ramp' : 'ramps'}`}
                  </Text>
                  {list.hasNextPage ? (
                    <Button variant="light" onClick={() => void list.fetchNextPage()} loading={list.isFetchingNextPage}>
                      Load more
                    </Button>
                  ) : null}
                </Group>
              </Stack>
            );
          }}
        </QueryState>
      </Stack>
    </>
  );
}
