// The Distribution page's Pushes tab: the app's pushes, newest first, each with its progress; read again every 2 s
// while any push on screen is running. A push opens on its own page (PushDetailPage.tsx); New push is in
// NewPushDialog.tsx.
import { Link } from 'react-router';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Anchor, Stack, Table, Text } from '@mantine/core';
import { listDistributionPushesOptions } from '../../../generated/dashboard/@tanstack/react-query.gen';
import type { App, DistributionPush } from '../../../generated/dashboard/types.gen';
import { CursorPager, useCursorStack } from '../components/CursorPager';
import { EmptyMessage } from '../components/EmptyMessage';
import { formatDate, trimAmount } from '../components/format';
import { QueryState } from '../components/QueryState';
import { AssetCell, assetCode } from './common';
import { PushProgress, PushStatusBadge, RUNNING_REFRESH_MS } from './pushParts';

const PAGE_SIZE = 20;

function PushesTable({ app, pushes }: { app: App; pushes: DistributionPush[] }) {
  return (
    <Table.ScrollContainer minWidth={900}>
      <Table verticalSpacing="sm" highlightOnHover>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Name</Table.Th>
            <Table.Th>Asset</Table.Th>
            <Table.Th>Each recipient</Table.Th>
            <Table.Th>Progress</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th>Created</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {pushes.map((push) => (
            <Table.Tr key={push.pushId}>
              <Table.Td>
                <Anchor component={Link} to={`/apps/${app.appId}/distribution/pushes/${push.pushId}`} fw={500}>
                  {push.name}
                </Anchor>
              </Table.Td>
              <Table.Td>
                <AssetCell app={app} asset={push.asset} />
              </Table.Td>
              <Table.Td style={{ whiteSpace: 'nowrap' }}>
                {trimAmount(push.amount)} {assetCode(push.asset)}
              </Table.Td>
              <Table.Td>
                <PushProgress push={push} />
              </Table.Td>
              <Table.Td>
                <PushStatusBadge push={push} />
              </Table.Td>
              <Table.Td style={{ whiteSpace: 'nowrap' }}>{formatDate(push.createdAt)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

export function PushesPanel({ app }: { app: App }) {
  const pages = useCursorStack([]);
  const pushes = useQuery({
    ...listDistributionPushesOptions({
      path: { appId: app.appId },
      query: { limit: PAGE_SIZE, ...(pages.cursor ? { cursor: pages.cursor } : {}) },
    }),
    placeholderData: keepPreviousData,
    refetchInterval: (query) =>
      query.state.data?.content.pushes.some((push) => push.status === 'running') ? RUNNING_REFRESH_MS : false,
  });
  return (
    <QueryState
      query={pushes}
      rows={4}
      isEmpty={(data) => data.content.pushes.length === 0 && pages.pagesBefore === 0}
      empty={
        <EmptyMessage title="No pushes yet">
          A push pays an amount of XLM or one of the app’s assets to a list of your users at once (an airdrop, a reward
          for an event), from the distribution wallet. Start one with New push: the list comes from a CSV file or pasted
          lines.
        </EmptyMessage>
      }
    >
      {({ content }) => (
        <Stack gap="sm" style={{ opacity: pushes.isPlaceholderData ? 0.6 : 1 }}>
          <PushesTable app={app} pushes={content.pushes} />
          {pages.pagesBefore > 0 || content.nextCursor ? (
            <CursorPager
              pages={pages}
              pageSize={PAGE_SIZE}
              shown={content.pushes.length}
              nextCursor={content.nextCursor}
              busy={pushes.isPlaceholderData}
              noun={['push', 'pushes']}
            />
          ) : (
            <Text size="xs" c="dimmed">
              Newest first. A running push’s progress updates every few seconds.
            </Text>
          )}
        </Stack>
      )}
    </QueryState>
  );
}
