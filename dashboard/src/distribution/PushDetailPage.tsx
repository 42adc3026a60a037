// One push (Distribution, Pushes): what it pays, its progress and its recipients by status, read again every 2 s while
// it runs; its recipients one by one, filtered by status and paged, each with the wallet paid, the transaction and,
// for a failed or skipped one, why. "Retry failed" sends the failed recipients again, after a confirmation.
import { useEffect, useRef, type ReactNode } from 'react';
import { Link, useParams } from 'react-router';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Anchor, Badge, Button, Card, Group, Select, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconArrowLeft } from '@tabler/icons-react';
import {
  getDistributionPushOptions,
  getDistributionPushQueryKey,
  listDistributionPushesQueryKey,
  listDistributionPushRecipientsOptions,
  listDistributionPushRecipientsQueryKey,
  retryDistributionPushMutation,
} from '../../../generated/dashboard/@tanstack/react-query.gen';
import type { App, DistributionPush, DistributionPushRecipient } from '../../../generated/dashboard/types.gen';
import { ConfirmButton } from '../components/ConfirmButton';
import { CopyValue } from '../components/CopyValue';
import { CursorPager, useCursorStack } from '../components/CursorPager';
import { FilteredEmptyState } from '../components/FilteredEmptyState';
import { formatDate, shortKey, trimAmount } from '../components/format';
import { PageHeader } from '../components/PageHeader';
import { QueryState } from '../components/QueryState';
import { useCurrentApp } from '../layout/currentApp';
import { useFiltersInAddress } from '../monitor/useFiltersInAddress';
import { AssetCell, assetCode } from './common';
import { PushProgress, PushStatusBadge, RUNNING_REFRESH_MS } from './pushParts';

type RecipientStatus = DistributionPushRecipient['status'];

const PAGE_SIZE = 25;

const STATUSES: Record<RecipientStatus, { label: string; color: string; meaning: string }> = {
  pending: { label: 'Pending', color: 'gray', meaning: 'waiting to be sent' },
  submitted: { label: 'Submitted', color: 'blue', meaning: 'in a transaction not confirmed yet' },
  paid: { label: 'Paid', color: 'green', meaning: 'paid' },
  failed: { label: 'Failed', color: 'red', meaning: 'not paid; Retry failed sends them again' },
  skipped: { label: 'Skipped', color: 'orange', meaning: 'never sent: no such user, or named twice' },
};
const isStatus = (value: string | null): value is RecipientStatus => value !== null && value in STATUSES;

const KIND_LABELS: Record<DistributionPushRecipient['recipient']['kind'], string> = {
  userId: 'User id',
  externalId: 'External id',
  walletAddress: 'Wallet address',
};

/** Why a recipient failed or was skipped, in words (DistributionPushRecipient.yaml's codes, Stellar result codes). */
const FAILURES: Record<string, string> = {
  RECIPIENT_NOT_FOUND: 'No user or wallet of the app matches.',
  DUPLICATE_RECIPIENT: 'This wallet is already named earlier in the push.',
  WALLET_NOT_FUNDED: 'The wallet is not activated yet: fund it (Users), then retry.',
  DISTRIBUTION_NO_DISTRIBUTION_WALLET: 'The app has no distribution wallet: set one up on the Treasury page.',
  INSUFFICIENT_FUNDS_FOR_TRUSTLINE: 'The funding wallet holds too little XLM to sponsor the wallet’s trustline.',
  TX_POLICY_GAS_BALANCE_LOW: 'The gas wallet holds too little XLM to pay the network fee.',
  op_underfunded: 'The distribution wallet holds too little of the asset: top it up, then retry.',
  op_no_trust: 'The wallet has no trustline for the asset.',
  op_not_authorized: 'The asset’s issuer has not authorized this wallet.',
  op_line_full: 'The wallet cannot hold more of this asset (its trustline limit).',
  op_no_destination: 'The wallet’s account does not exist on the network.',
  tx_too_late: 'The transaction expired before the network took it in.',
  tx_insufficient_fee: 'The network fee offered was too low at the time.',
  tx_bad_seq: 'The transaction’s sequence number was out of date.',
};

function FailureCell({ code }: { code: string | null | undefined }) {
  if (!code) return <Text size="sm">—</Text>;
  return (
    <Stack gap={0} maw={260}>
      <Text size="sm">{FAILURES[code] ?? 'Refused by the network.'}</Text>
      <Text size="xs" c="dimmed" ff="monospace">
        {code}
      </Text>
    </Stack>
  );
}

function RetryFailedButton({ app, push }: { app: App; push: DistributionPush }) {
  const queryClient = useQueryClient();
  const retry = useMutation({ ...retryDistributionPushMutation() });
  // One key per intended retry, kept across repeats of it after a lost answer.
  const idempotencyKey = useRef(crypto.randomUUID());
  const path = { appId: app.appId, pushId: push.pushId };
  const failed = push.counts.failed;
  return (
    <ConfirmButton
      label="Retry failed"
      color="indigo"
      variant="filled"
      title={`Retry the failed recipients of “${push.name}”?`}
      message={`${failed.toLocaleString()} failed ${failed === 1 ? 'recipient is' : 'recipients are'} sent ${trimAmount(push.amount)} ${assetCode(push.asset)} again from the distribution wallet. Fix what made them fail first (a wallet to activate, a wallet to top up). Skipped recipients are never sent.`}
      confirmLabel="Retry failed"
      onConfirm={async () => {
        const { content } = await retry.mutateAsync({ path, headers: { 'Idempotency-Key': idempotencyKey.current } });
        idempotencyKey.current = crypto.randomUUID();
        await Promise.all([
          queryClient.invalidateQueries({ queryKey: getDistributionPushQueryKey({ path }) }),
          queryClient.invalidateQueries({ queryKey: listDistributionPushRecipientsQueryKey({ path }) }),
          queryClient.invalidateQueries({ queryKey: listDistributionPushesQueryKey({ path: { appId: app.appId } }) }),
        ]);
        notifications.show({
          color: 'green',
          message: `${content.retried.toLocaleString()} ${content.retried === 1 ? 'recipient' : 'recipients'} sent again`,
        });
      }}
    />
  );
}

function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Stack gap={2}>
      <Text size="xs" c="dimmed" fw={500}>
        {label}
      </Text>
      {typeof children === 'string' ? <Text size="sm">{children}</Text> : children}
    </Stack>
  );
}

function PushSummary({ app, push }: { app: App; push: DistributionPush }) {
  return (
    <Card withBorder radius="md" padding="lg">
      <Stack gap="md">
        <SimpleGrid cols={{ base: 2, sm: 3, xl: 6 }} spacing="md">
          <Fact label="Status">
            <Group>
              <PushStatusBadge push={push} />
            </Group>
          </Fact>
          <Fact label="Asset">
            <AssetCell app={app} asset={push.asset} />
          </Fact>
          <Fact label="Each recipient">{`${trimAmount(push.amount)} ${assetCode(push.asset)}`}</Fact>
          <Fact label="Paid so far">{`${trimAmount(push.paidAmount)} ${assetCode(push.asset)}`}</Fact>
          <Fact label="Created">{formatDate(push.createdAt)}</Fact>
          <Fact label="Completed">{push.completedAt ? formatDate(push.completedAt) : 'Not yet'}</Fact>
        </SimpleGrid>
        <PushProgress push={push} withUnpaid={false} />
        <Group gap="xs" wrap="wrap" aria-label="Recipients by status" role="list">
          {(Object.keys(STATUSES) as RecipientStatus[]).map((status) => (
            <Badge key={status} role="listitem" color={STATUSES[status].color} variant="light" size="lg">
              {STATUSES[status].label}: {push.counts[status].toLocaleString()}
            </Badge>
          ))}
        </Group>
        {push.counts.failed > 0 ? (
          <Group justify="space-between" wrap="wrap" gap="xs">
            <Text size="sm">
              {push.counts.failed.toLocaleString()} {push.counts.failed === 1 ? 'recipient' : 'recipients'} failed: the
              table below says why.
            </Text>
            <RetryFailedButton app={app} push={push} />
          </Group>
        ) : null}
      </Stack>
    </Card>
  );
}

/** A wallet address or hash, shortened with a copy button; a dash when there is none (yet). */
function KeyCell({ value, label }: { value: string | null | undefined; label: string }) {
  return value ? <CopyValue value={value} label={label} display={shortKey(value)} /> : <Text size="sm">—</Text>;
}

function RecipientsTable({ appId, recipients }: { appId: string; recipients: DistributionPushRecipient[] }) {
  return (
    <Table.ScrollContainer minWidth={1000}>
      <Table verticalSpacing="sm">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>As named</Table.Th>
            <Table.Th>User</Table.Th>
            <Table.Th>Wallet</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th>Transaction</Table.Th>
            <Table.Th>Why not paid</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {recipients.map((r, i) => (
            <Table.Tr key={`${r.recipient.kind}:${r.recipient.value}:${i}`}>
              <Table.Td>
                <Text size="xs" c="dimmed">
                  {KIND_LABELS[r.recipient.kind]}
                </Text>
                <Text size="sm" ff="monospace" title={r.recipient.value} maw={260} truncate="end">
                  {r.recipient.kind === 'walletAddress' ? shortKey(r.recipient.value) : r.recipient.value}
                </Text>
              </Table.Td>
              <Table.Td style={{ whiteSpace: 'nowrap' }}>
                {r.userId ? (
                  <Anchor
                    component={Link}
                    to={`/apps/${appId}/users/${r.userId}`}
                    size="sm"
                    ff="monospace"
                    title={r.userId}
                  >
                    {shortKey(r.userId)}
                  </Anchor>
                ) : (
                  <Text size="sm">—</Text>
                )}
              </Table.Td>
              <Table.Td style={{ whiteSpace: 'nowrap' }}>
                <KeyCell value={r.walletAddress} label="wallet address" />
              </Table.Td>
              <Table.Td style={{ whiteSpace: 'nowrap' }}>
                <Badge color={STATUSES[r.status].color} variant="light" style={{ flex: 'none' }}>
                  {STATUSES[r.status].label}
                </Badge>
                <Text size="xs" c="dimmed" title="Last change">
                  {formatDate(r.updatedAt)}
                </Text>
              </Table.Td>
              <Table.Td style={{ whiteSpace: 'nowrap' }}>
                <KeyCell value={r.txHash} label="transaction hash" />
              </Table.Td>
              <Table.Td>
                <FailureCell code={r.failureCode} />
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

function Recipients({ app, push }: { app: App; push: DistributionPush }) {
  const { searchParams, setFilter, clearFilters } = useFiltersInAddress(['status']);
  const requested = searchParams.get('status');
  const status = isStatus(requested) ? requested : null;
  // A new filter starts at its first page.
  const pages = useCursorStack([status]);
  const queryClient = useQueryClient();
  // The push is read every 2 s while it runs: its recipients are read again whenever its counts or status move, the
  // last time included (a poll of their own would stop a step early, on the push's last running answer).
  const progress = [push.status, ...Object.values(push.counts)].join(':');
  const shownProgress = useRef(progress);
  useEffect(() => {
    if (shownProgress.current === progress) return;
    shownProgress.current = progress;
    void queryClient.invalidateQueries({
      queryKey: listDistributionPushRecipientsQueryKey({ path: { appId: app.appId, pushId: push.pushId } }),
    });
  }, [progress, queryClient, app.appId, push.pushId]);
  const recipients = useQuery({
    ...listDistributionPushRecipientsOptions({
      path: { appId: app.appId, pushId: push.pushId },
      query: {
        limit: PAGE_SIZE,
        ...(status ? { status } : {}),
        ...(pages.cursor ? { cursor: pages.cursor } : {}),
      },
    }),
    placeholderData: keepPreviousData,
  });
  return (
    <Stack gap="sm" component="section" aria-labelledby="recipients-title">
      <Group justify="space-between" align="flex-end" wrap="wrap" gap="sm">
        <Title order={2} size="h3" id="recipients-title">
          Recipients
        </Title>
        <Select
          label="Status"
          placeholder="Any status"
          data={(Object.keys(STATUSES) as RecipientStatus[]).map((value) => ({
            value,
            label: `${STATUSES[value].label} (${push.counts[value].toLocaleString()})`,
          }))}
          value={status}
          onChange={(value) => setFilter('status', value)}
          clearable
          w={200}
          comboboxProps={{ withinPortal: true }}
        />
      </Group>
      {status ? (
        <Text size="sm" c="dimmed">
          {STATUSES[status].label}: {STATUSES[status].meaning}.
        </Text>
      ) : null}
      <QueryState
        query={recipients}
        rows={5}
        isEmpty={(data) => data.content.recipients.length === 0 && pages.pagesBefore === 0}
        empty={
          <FilteredEmptyState
            filtered={status !== null}
            noMatch={`No recipient is ${status ? STATUSES[status].label.toLowerCase() : ''}`}
            onClearFilters={clearFilters}
            nothingYet="No recipients"
            hint="This push names no recipient."
          />
        }
      >
        {({ content }) => (
          <Stack gap="sm" style={{ opacity: recipients.isPlaceholderData ? 0.6 : 1 }}>
            <RecipientsTable appId={app.appId} recipients={content.recipients} />
            <CursorPager
              pages={pages}
              pageSize={PAGE_SIZE}
              shown={content.recipients.length}
              total={status ? push.counts[status] : push.counts.total}
              nextCursor={content.nextCursor}
              busy={recipients.isPlaceholderData}
              noun={['recipient', 'recipients']}
            />
          </Stack>
        )}
      </QueryState>
    </Stack>
  );
}

export function PushDetailPage() {
  const app = useCurrentApp();
  const { pushId = '' } = useParams();
  const push = useQuery({
    ...getDistributionPushOptions({ path: { appId: app.appId, pushId } }),
    refetchInterval: (query) => (query.state.data?.content.status === 'running' ? RUNNING_REFRESH_MS : false),
  });
  const content = push.data?.content;
  return (
    <>
      <PageHeader
        title={content?.name ?? 'Push'}
        description={
          content
            ? `A push of ${trimAmount(content.amount)} ${assetCode(content.asset)} to each of ${content.counts.total.toLocaleString()} ${content.counts.total === 1 ? 'recipient' : 'recipients'}, paid from the distribution wallet on ${app.network}.`
            : `A push from the distribution wallet on ${app.network}.`
        }
        actions={
          <Button
            component={Link}
            to={`/apps/${app.appId}/distribution/pushes`}
            variant="default"
            leftSection={<IconArrowLeft size={16} />}
          >
            All pushes
          </Button>
        }
      />
      <QueryState query={push} rows={6}>
        {({ content: loaded }) => (
          <Stack gap="lg">
            <PushSummary app={app} push={loaded} />
            <Recipients app={app} push={loaded} />
          </Stack>
        )}
      </QueryState>
    </>
  );
}
