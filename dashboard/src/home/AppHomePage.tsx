// An app's overview: its activity over a chosen window (transactions, wallets, fees, users, webhooks) as figures and
// charts that refresh every 30 s, and, until the app is set up, the first steps to take.
import { useEffect, useState, type ReactNode } from 'react';
import { Link, useSearchParams } from 'react-router';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import {
  Anchor,
  Badge,
  Group,
  List,
  Paper,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Table,
  Text,
  ThemeIcon,
  Title,
} from '@mantine/core';
import { AreaChart, BarChart } from '@mantine/charts';
import { IconCheck, IconCircleDashed } from '@tabler/icons-react';
import {
  getAppDomainsOptions,
  getAppMetricsOptions,
  listApiKeysOptions,
  listAppUsersOptions,
} from '../../../generated/dashboard/@tanstack/react-query.gen';
import type { GetAppMetricsResponse } from '../../../generated/dashboard/types.gen';
import { ChartCard } from '../components/ChartCard';
import { trimAmount } from '../components/format';
import { PageHeader } from '../components/PageHeader';
import { QueryState } from '../components/QueryState';
import { useCurrentApp } from '../layout/currentApp';

type Metrics = GetAppMetricsResponse['content'];

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const REFRESH_MS = 30_000;

/**
 * The windows offered. Each starts on a bucket boundary (the service buckets by UTC hour up to 48 hours, else by UTC
 * day), so every bar is a whole hour or day and the query stays the same between refreshes until a new bucket opens.
 */
const WINDOWS = {
  '24h': { label: '24 hours', phrase: 'the last 24 hours', start: (now: number) => floorTo(now, HOUR) - 23 * HOUR },
  '7d': { label: '7 days', phrase: 'the last 7 days', start: (now: number) => floorTo(now, DAY) - 6 * DAY },
  '30d': { label: '30 days', phrase: 'the last 30 days', start: (now: number) => floorTo(now, DAY) - 29 * DAY },
  '90d': { label: '90 days', phrase: 'the last 90 days', start: (now: number) => floorTo(now, DAY) - 89 * DAY },
} as const;
type WindowKey = keyof typeof WINDOWS;
const DEFAULT_WINDOW: WindowKey = '24h';

const isWindowKey = (value: string | null): value is WindowKey => value !== null && value in WINDOWS;

function floorTo(ms: number, unit: number): number {
  return Math.floor(ms / unit) * unit;
}

const hourLabel = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
// Day buckets are UTC days: labelled in UTC so a bucket is not shown as the day before west of Greenwich.
const dayLabel = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });
const timeOfDay = new Intl.DateTimeFormat(undefined, { timeStyle: 'medium' });
const count = new Intl.NumberFormat();
const percent = new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 1 });

function bucketLabel(start: string, interval: Metrics['interval']): string {
  return (interval === 'hour' ? hourLabel : dayLabel).format(new Date(start));
}

const plural = (n: number, one: string, many: string) => `${count.format(n)} ${n === 1 ? one : many}`;

function StatCard({ label, value, detail }: { label: string; value: string; detail?: ReactNode }) {
  return (
    <Paper withBorder p="md" radius="md">
      <Text size="sm" c="dimmed" fw={500}>
        {label}
      </Text>
      <Text fz={28} fw={700} lh={1.3}>
        {value}
      </Text>
      {detail ? (
        <Text size="xs" c="dimmed">
          {detail}
        </Text>
      ) : null}
    </Paper>
  );
}

function Stats({ metrics }: { metrics: Metrics }) {
  const { transactions: tx, wallets, webhooks } = metrics;
  return (
    <SimpleGrid cols={{ base: 1, xs: 2, md: 3 }} spacing="md">
      <StatCard
        label="Transactions"
        value={count.format(tx.total)}
        detail={`${count.format(tx.success)} succeeded · ${count.format(tx.failed)} failed · ${count.format(tx.pending)} pending`}
      />
      <StatCard
        label="Wallets activated"
        value={count.format(wallets.funded)}
        detail={`${plural(wallets.created, 'wallet', 'wallets')} created`}
      />
      <StatCard
        label="Active users"
        value={count.format(metrics.activeUsers)}
        detail="Signed in, renewed a session or transacted"
      />
      <StatCard
        label="Fees sponsored"
        value={`${trimAmount(metrics.sponsoredFeesXlm)} XLM`}
        detail="Paid by the gas wallet"
      />
      <StatCard
        label="Reserve locked"
        value={`${trimAmount(metrics.lockedReserveXlm)} XLM`}
        detail="Held now for sponsored wallets and trustlines (all time)"
      />
      <StatCard
        label="Webhook success rate"
        value={webhooks.successRate === null ? '—' : percent.format(webhooks.successRate)}
        detail={`${count.format(webhooks.delivered)} delivered · ${count.format(webhooks.failed)} failed · ${count.format(webhooks.pending)} pending`}
      />
    </SimpleGrid>
  );
}

/** The busiest bucket of a series, for the charts' text summaries; undefined when every bucket is empty. */
function busiest<T>(buckets: T[], value: (b: T) => number): T | undefined {
  let best: T | undefined;
  for (const b of buckets) if (value(b) > 0 && (best === undefined || value(b) > value(best))) best = b;
  return best;
}

function TransactionsChart({ metrics, phrase }: { metrics: Metrics; phrase: string }) {
  const { transactions: tx, interval, series } = metrics;
  const unit = interval === 'hour' ? 'hour' : 'day';
  const top = busiest(series, (b) => b.transactions);
  const summary =
    `${plural(tx.total, 'transaction', 'transactions')} in ${phrase}: ${count.format(tx.success)} succeeded, ` +
    `${count.format(tx.failed)} failed, ${count.format(tx.pending)} pending.` +
    (top ? ` Busiest ${unit}: ${bucketLabel(top.start, interval)}, with ${count.format(top.transactions)}.` : '');
  const data = series.map((b) => ({
    bucket: bucketLabel(b.start, interval),
    'Succeeded or pending': b.transactions - b.failed,
    Failed: b.failed,
  }));
  return (
    <ChartCard
      id="transactions-chart-title"
      title={`Transactions per ${unit}`}
      summary={summary}
      testId="transactions-chart"
    >
      <BarChart
        h={240}
        data={data}
        dataKey="bucket"
        type="stacked"
        withLegend
        legendProps={{ verticalAlign: 'bottom' }}
        series={[
          { name: 'Succeeded or pending', color: 'indigo.6' },
          { name: 'Failed', color: 'red.6' },
        ]}
        yAxisProps={{ allowDecimals: false, width: 40 }}
        accessibilityLayer={false}
      />
    </ChartCard>
  );
}

function WalletsChart({ metrics, phrase }: { metrics: Metrics; phrase: string }) {
  const { wallets, interval, series } = metrics;
  const unit = interval === 'hour' ? 'hour' : 'day';
  const top = busiest(series, (b) => b.walletsCreated);
  const summary =
    `${plural(wallets.created, 'wallet', 'wallets')} created and ${count.format(wallets.funded)} activated in ${phrase}.` +
    (top ? ` Busiest ${unit}: ${bucketLabel(top.start, interval)}, with ${count.format(top.walletsCreated)}.` : '');
  const data = series.map((b) => ({ bucket: bucketLabel(b.start, interval), 'Wallets created': b.walletsCreated }));
  return (
    <ChartCard id="wallets-chart-title" title={`Wallets created per ${unit}`} summary={summary}>
      <AreaChart
        h={240}
        data={data}
        dataKey="bucket"
        series={[{ name: 'Wallets created', color: 'teal.6' }]}
        curveType="linear"
        withDots={false}
        yAxisProps={{ allowDecimals: false, width: 40 }}
        accessibilityLayer={false}
      />
    </ChartCard>
  );
}

function FailuresByCode({ metrics }: { metrics: Metrics }) {
  if (metrics.failuresByCode.length === 0) return null;
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="failures-title">
      <Title order={2} size="h4" id="failures-title" mb="xs">
        Failures by result code
      </Title>
      <Table.ScrollContainer minWidth={320}>
        <Table>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Stellar result code</Table.Th>
              <Table.Th ta="right">Failed transactions</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {metrics.failuresByCode.map((f) => (
              <Table.Tr key={f.code}>
                <Table.Td>
                  <Text ff="monospace" size="sm">
                    {f.code}
                  </Text>
                </Table.Td>
                <Table.Td ta="right">{count.format(f.count)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Paper>
  );
}

/** The first steps of a new app, each checked off from what the service already holds. */
function GetStarted({ appId }: { appId: string }) {
  const keys = useQuery(listApiKeysOptions({ path: { appId } }));
  const domains = useQuery(getAppDomainsOptions({ path: { appId } }));
  const users = useQuery(listAppUsersOptions({ path: { appId }, query: { limit: 1 } }));
  // A helper, not the page's content: shown only once every step's state is known.
  if (!keys.data || !domains.data || !users.data) return null;
  const steps = [
    {
      done: keys.data.content.keys.some((k) => k.status === 'active' || k.status === 'rotating'),
      title: 'Create an API key',
      text: 'A publishable key for your web or mobile app, a secret key for your server.',
      to: `/apps/${appId}/keys`,
      link: 'API keys',
    },
    {
      done: domains.data.content.origins.length > 0 || domains.data.content.redirectUris.length > 0,
      title: 'Set your domains',
      text: 'The origins your app runs on and the redirect URIs its sign-in returns to.',
      to: `/apps/${appId}/domains`,
      link: 'Domains',
    },
    {
      done: users.data.content.total > 0,
      title: 'Sign a user in',
      text: 'Sign in from your app with the client library and the publishable key; the user gets a wallet.',
      to: `/apps/${appId}/users`,
      link: 'Users',
    },
  ];
  if (steps.every((s) => s.done)) return null;
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="get-started-title">
      <Title order={2} size="h4" id="get-started-title" mb="sm">
        Get started
      </Title>
      <List spacing="sm" center={false} listStyleType="none">
        {steps.map((step) => (
          <List.Item
            key={step.title}
            icon={
              <ThemeIcon color={step.done ? 'teal' : 'gray'} variant="light" radius="xl" size={24}>
                {step.done ? <IconCheck size={14} /> : <IconCircleDashed size={14} />}
              </ThemeIcon>
            }
          >
            <Group gap="xs" wrap="wrap">
              <Text fw={500}>{step.title}</Text>
              <Badge size="sm" variant="dot" color={step.done ? 'teal' : 'gray'}>
                {step.done ? 'Done' : 'To do'}
              </Badge>
            </Group>
            <Text size="sm" c="dimmed">
              {step.text}{' '}
              <Anchor component={Link} to={step.to} size="sm" underline="always">
                Go to {step.link}
              </Anchor>
            </Text>
          </List.Item>
        ))}
      </List>
    </Paper>
  );
}

export function AppHomePage() {
  const app = useCurrentApp();
  const [searchParams, setSearchParams] = useSearchParams();
  const requested = searchParams.get('window');
  const windowKey: WindowKey = isWindowKey(requested) ? requested : DEFAULT_WINDOW;
  const span = WINDOWS[windowKey];

  // The clock the window is measured from; it moves with the refresh so a new hour or day gets its bucket.
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), REFRESH_MS);
    return () => clearInterval(timer);
  }, []);
  const from = new Date(span.start(now)).toISOString();

  const metrics = useQuery({
    ...getAppMetricsOptions({ path: { appId: app.appId }, query: { from } }),
    refetchInterval: REFRESH_MS,
    // A new window (or a new bucket) keeps the last figures on screen until the new ones arrive.
    placeholderData: keepPreviousData,
  });

  const chooseWindow = (value: string) => {
    setSearchParams(
      (current) => {
        const next = new URLSearchParams(current);
        if (value === DEFAULT_WINDOW) next.delete('window');
        else next.set('window', value);
        return next;
      },
      { replace: true },
    );
  };

  return (
    <>
      <PageHeader
        title={app.name}
        description="Activity and spend for this app. Figures refresh every 30 seconds."
        actions={
          <Stack gap={4}>
            <Text size="sm" fw={500} id="window-label">
              Window
            </Text>
            <SegmentedControl
              aria-labelledby="window-label"
              value={windowKey}
              onChange={chooseWindow}
              data={Object.entries(WINDOWS).map(([value, w]) => ({ value, label: w.label }))}
            />
          </Stack>
        }
      />
      <Stack gap="md">
        {app.status === 'active' ? <GetStarted appId={app.appId} /> : null}
        <QueryState query={metrics} rows={6}>
          {(data) => (
            <Stack gap="md">
              <Group justify="space-between" wrap="wrap" gap="xs">
                <Text size="sm" c="dimmed">
                  Figures for {span.phrase}
                  {data.content.interval === 'day' ? ' (days in UTC, today included)' : ''}.
                </Text>
                <Text size="xs" c="dimmed">
                  {metrics.isFetching ? 'Updating…' : `Updated at ${timeOfDay.format(metrics.dataUpdatedAt)}`}
                </Text>
              </Group>
              <Stats metrics={data.content} />
              <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="md">
                <TransactionsChart metrics={data.content} phrase={span.phrase} />
                <WalletsChart metrics={data.content} phrase={span.phrase} />
              </SimpleGrid>
              <FailuresByCode metrics={data.content} />
            </Stack>
          )}
        </QueryState>
      </Stack>
    </>
  );
}
