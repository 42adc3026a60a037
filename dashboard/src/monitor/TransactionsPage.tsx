// The app's transactions, newest first: filtered by status, operation type, asset and dates (kept in the address, so
// a filtered view can be shared and survives a reload), paged with "Load more", and exported as CSV with the same
// filters.
import { useInfiniteQuery, useMutation } from '@tanstack/react-query';
import { Badge, Button, Select, Stack, Table, Text, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconDownload, IconRefresh } from '@tabler/icons-react';
import { listAppTransactionsInfiniteOptions } from '../../../generated/dashboard/@tanstack/react-query.gen';
import { listAppTransactions } from '../../../generated/dashboard/sdk.gen';
import type {
  ListAppTransactionsData,
  ListAppTransactionsResponse,
  StellarOperationType,
} from '../../../generated/dashboard/types.gen';
import { messageOf } from '../api/errors';
import { CopyValue } from '../components/CopyValue';
import { FilterBar } from '../components/FilterBar';
import { FilteredEmptyState } from '../components/FilteredEmptyState';
import { formatDate, shortKey, trimAmount } from '../components/format';
import { LoadMoreFooter } from '../components/LoadMoreFooter';
import { PageHeader } from '../components/PageHeader';
import { EmptyState, QueryState } from '../components/QueryState';
import { useCurrentApp } from '../layout/currentApp';
import { useFiltersInAddress } from './useFiltersInAddress';

type Transaction = ListAppTransactionsResponse['content']['transactions'][number];
type Status = Transaction['status'];
type TransactionsQuery = NonNullable<ListAppTransactionsData['query']>;

const STATUSES: { value: Status; label: string; color: string }[] = [
  { value: 'SUCCESS', label: 'Succeeded', color: 'green' },
  { value: 'FAILED', label: 'Failed', color: 'red' },
  { value: 'PENDING', label: 'Pending', color: 'yellow' },
];

/** Every StellarOperationType; the ones the service builds most (activations, payments, trustlines) first. */
const OPERATION_TYPES: StellarOperationType[] = [
  'createAccount',
  'payment',
  'pathPaymentStrictSend',
  'pathPaymentStrictReceive',
  'changeTrust',
  'invokeHostFunction',
  'manageSellOffer',
  'manageBuyOffer',
  'createPassiveSellOffer',
  'setOptions',
  'allowTrust',
  'setTrustLineFlags',
  'accountMerge',
  'manageData',
  'bumpSequence',
  'createClaimableBalance',
  'claimClaimableBalance',
  'beginSponsoringFutureReserves',
  'endSponsoringFutureReserves',
  'revokeSponsorship',
  'clawback',
  'clawbackClaimableBalance',
  'liquidityPoolDeposit',
  'liquidityPoolWithdraw',
  'extendFootprintTtl',
  'restoreFootprint',
  'inflation',
];

const ASSET_PATTERN = /^(native|[A-Za-z0-9]{1,12}:G[A-Z2-7]{55})$/;
const DATE_PATTERN = /^\d{4}-\d{2}-\d{2}$/;
/** Shortened ids and addresses stay on one line: a broken hash reads as two values. */
const NO_WRAP = { whiteSpace: 'nowrap' } as const;
/** What one CSV export holds at most (the operation's limit). */
const EXPORT_LIMIT = 10_000;

/** The filters as the address holds them; a value the address holds but the API would refuse is ignored. */
interface Filters {
  status?: Status;
  type?: StellarOperationType;
  asset?: string;
  /** Days (YYYY-MM-DD) in the operator's time zone, both included. */
  fromDay?: string;
  toDay?: string;
}
const FILTER_NAMES = ['status', 'type', 'asset', 'from', 'to'] as const;

function readFilters(params: URLSearchParams): Filters {
  const status = STATUSES.find((s) => s.value === params.get('status'))?.value;
  const type = OPERATION_TYPES.find((t) => t === params.get('type'));
  const asset = params.get('asset') ?? '';
  const day = (name: string) => {
    const value = params.get(name) ?? '';
    return DATE_PATTERN.test(value) && !Number.isNaN(startOfDay(value).getTime()) ? value : undefined;
  };
  const fromDay = day('from');
  const toDay = day('to');
  return {
    ...(status ? { status } : {}),
    ...(type ? { type } : {}),
    ...(ASSET_PATTERN.test(asset) ? { asset } : {}),
    ...(fromDay ? { fromDay } : {}),
    ...(toDay ? { toDay } : {}),
  };
}

/** Local midnight starting `day`. */
function startOfDay(day: string): Date {
  return new Date(`${day}T00:00:00`);
}

/** The API's query: `to` is exclusive, so the last chosen day runs to the next local midnight. */
function queryOf(filters: Filters): TransactionsQuery {
  const query: TransactionsQuery = {};
  if (filters.status) query.status = filters.status;
  if (filters.type) query.type = filters.type;
  if (filters.asset) query.asset = filters.asset;
  if (filters.fromDay) query.from = startOfDay(filters.fromDay).toISOString();
  if (filters.toDay) {
    const end = startOfDay(filters.toDay);
    end.setDate(end.getDate() + 1);
    query.to = end.toISOString();
  }
  return query;
}

function assetLabel(asset: string): string {
  if (asset === 'native') return 'XLM';
  const [code = asset, issuer = ''] = asset.split(':');
  return issuer ? `${code} (${shortKey(issuer)})` : code;
}

/** True for "0", "0.0000000": the gas wallet paid nothing. */
const isZero = (amount: string) => /^0*(\.0*)?$/.test(amount);

/** The file name a Content-Disposition header offers (RFC 6266), without any path. */
function fileNameOf(disposition: string | null): string | undefined {
  if (!disposition) return undefined;
  const extended = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(disposition)?.[1];
  const plain = /filename\s*=\s*"?([^";]+)"?/.exec(disposition)?.[1];
  let name = plain?.trim();
  if (extended) {
    try {
      name = decodeURIComponent(extended.trim());
    } catch {
      // A malformed extended name: the plain one (or the default) will do.
    }
  }
  const base = name?.split(/[\\/]/).pop();
  return base ? base : undefined;
}

/** Hands a file to the browser's downloads through a temporary link. */
function saveFile(file: Blob, name: string) {
  const url = URL.createObjectURL(file);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.style.display = 'none';
  document.body.append(link);
  link.click();
  link.remove();
  // Some browsers start reading the URL only after click() returns.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

function ExportButton({ appId, query, disabled }: { appId: string; query: TransactionsQuery; disabled: boolean }) {
  const exportCsv = useMutation({
    mutationFn: async () => {
      const { data, response } = await listAppTransactions({
        path: { appId },
        query: { ...query, format: 'csv' },
        parseAs: 'blob',
        throwOnError: true,
      });
      // The generated type is the JSON page's: with format=csv and parseAs 'blob' the answer is the file.
      if (!(data instanceof Blob)) throw new Error('The export did not arrive as a file. Try again.');
      const name = fileNameOf(response.headers.get('Content-Disposition')) ?? `transactions-${appId}.csv`;
      saveFile(data, name);
      return name;
    },
    onSuccess: (name) => notifications.show({ color: 'green', message: `Saved ${name}` }),
    onError: (error) => notifications.show({ color: 'red', title: 'The export failed', message: messageOf(error) }),
  });
  return (
    <Button
      leftSection={<IconDownload size={16} />}
      onClick={() => exportCsv.mutate()}
      loading={exportCsv.isPending}
      disabled={disabled}
    >
      Export CSV
    </Button>
  );
}

function StatusBadge({ tx }: { tx: Transaction }) {
  const status = STATUSES.find((s) => s.value === tx.status);
  return (
    <Stack gap={2} align="flex-start">
      <Badge color={status?.color ?? 'gray'} variant="dot" miw="max-content">
        {status?.label ?? tx.status}
      </Badge>
      {tx.status === 'FAILED' && tx.resultCode ? (
        <Text size="xs" ff="monospace" c="dimmed">
          {tx.resultCode}
        </Text>
      ) : null}
    </Stack>
  );
}

function TransactionsTable({ transactions }: { transactions: Transaction[] }) {
  return (
    <Table.ScrollContainer minWidth={1180}>
      <Table verticalSpacing="xs" highlightOnHover>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Hash</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th>Type</Table.Th>
            <Table.Th>Asset</Table.Th>
            <Table.Th ta="right">Amount</Table.Th>
            <Table.Th>From</Table.Th>
            <Table.Th>To</Table.Th>
            <Table.Th ta="right">Fee sponsored</Table.Th>
            <Table.Th ta="right">Ledger</Table.Th>
            <Table.Th>Time</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {transactions.map((tx) => (
            <Table.Tr key={tx.id}>
              <Table.Td style={NO_WRAP}>
                <CopyValue value={tx.hash} display={shortKey(tx.hash)} label="transaction hash" />
              </Table.Td>
              <Table.Td style={NO_WRAP}>
                <StatusBadge tx={tx} />
              </Table.Td>
              <Table.Td>
                <Text size="sm" ff="monospace">
                  {tx.type}
                </Text>
              </Table.Td>
              <Table.Td style={NO_WRAP}>
                {tx.asset ? (
                  <Text size="sm" title={tx.asset}>
                    {assetLabel(tx.asset)}
                  </Text>
                ) : (
                  '—'
                )}
              </Table.Td>
              <Table.Td ta="right">{tx.amount ? trimAmount(tx.amount) : '—'}</Table.Td>
              <Table.Td style={NO_WRAP}>
                <CopyValue value={tx.from} display={shortKey(tx.from)} label="source account" />
              </Table.Td>
              <Table.Td style={NO_WRAP}>
                {tx.to ? <CopyValue value={tx.to} display={shortKey(tx.to)} label="destination" /> : '—'}
              </Table.Td>
              <Table.Td ta="right">
                {isZero(tx.feeSponsoredXlm) ? (
                  <Text size="sm" c="dimmed">
                    Not sponsored
                  </Text>
                ) : (
                  `${trimAmount(tx.feeSponsoredXlm)} XLM`
                )}
              </Table.Td>
              <Table.Td ta="right">{tx.ledger ?? '—'}</Table.Td>
              <Table.Td style={NO_WRAP}>{formatDate(tx.createdAt)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

export function TransactionsPage() {
  const app = useCurrentApp();
  const { searchParams, setFilter, clearFilters } = useFiltersInAddress(FILTER_NAMES);
  const filters = readFilters(searchParams);
  const filtered = Object.keys(filters).length > 0;
  const rangeInvalid = Boolean(filters.fromDay && filters.toDay && filters.toDay < filters.fromDay);
  const query = queryOf(filters);

  const list = useInfiniteQuery({
    ...listAppTransactionsInfiniteOptions({ path: { appId: app.appId }, query }),
    initialPageParam: 0,
    // Cursor paging costs the same at any depth; the first page is offset 0.
    getNextPageParam: (last) =>
      last.content.nextCursor ? { path: { appId: app.appId }, query: { cursor: last.content.nextCursor } } : undefined,
    enabled: !rangeInvalid,
  });

  const assetOptions = ['native', ...app.assets, ...(filters.asset ? [filters.asset] : [])]
    .filter((asset, i, all) => all.indexOf(asset) === i)
    .map((asset) => ({ value: asset, label: asset === 'native' ? 'XLM (native)' : assetLabel(asset) }));

  return (
    <>
      <PageHeader
        title="Transactions"
        description="Every transaction Onboard built, submitted or sponsored for this app, newest first."
        actions={
          <>
            <Button
              variant="default"
              leftSection={<IconRefresh size={16} />}
              onClick={() => void list.refetch()}
              loading={list.isRefetching && !list.isFetchingNextPage}
              disabled={rangeInvalid}
            >
              Refresh
            </Button>
            <ExportButton appId={app.appId} query={query} disabled={rangeInvalid} />
          </>
        }
      />
      <Stack gap="md">
        <FilterBar
          label="Filter transactions"
          cols={{ base: 2, md: 5 }}
          filtered={filtered}
          onClearFilters={clearFilters}
        >
          <Select
            label="Status"
            placeholder="Any status"
            data={STATUSES.map(({ value, label }) => ({ value, label }))}
            value={filters.status ?? null}
            onChange={(value) => setFilter('status', value)}
            clearable
            clearButtonProps={{ 'aria-label': 'Clear the status filter' }}
          />
          <Select
            label="Type"
            placeholder="Any type"
            data={OPERATION_TYPES}
            value={filters.type ?? null}
            onChange={(value) => setFilter('type', value)}
            searchable
            clearable
            clearButtonProps={{ 'aria-label': 'Clear the type filter' }}
            nothingFoundMessage="No operation type by that name"
          />
          <Select
            label="Asset"
            placeholder="Any asset"
            data={assetOptions}
            value={filters.asset ?? null}
            onChange={(value) => setFilter('asset', value)}
            clearable
            clearButtonProps={{ 'aria-label': 'Clear the asset filter' }}
          />
          <TextInput
            label="From"
            type="date"
            value={filters.fromDay ?? ''}
            onChange={(e) => setFilter('from', e.currentTarget.value || null)}
          />
          <TextInput
            label="To"
            type="date"
            value={filters.toDay ?? ''}
            onChange={(e) => setFilter('to', e.currentTarget.value || null)}
            error={rangeInvalid ? 'On or after the From day' : undefined}
          />
        </FilterBar>
        {rangeInvalid ? (
          <EmptyState>Choose a To day on or after the From day.</EmptyState>
        ) : (
          <QueryState
            query={list}
            rows={8}
            isEmpty={(data) => data.pages[0]?.content.total === 0}
            empty={
              <FilteredEmptyState
                filtered={filtered}
                noMatch="No transactions match these filters"
                onClearFilters={clearFilters}
                nothingYet="No transactions yet"
                hint="They appear here when your users’ wallets are activated and when they send payments."
              />
            }
          >
            {(data) => {
              const transactions = data.pages.flatMap((page) => page.content.transactions);
              const total = data.pages[0]?.content.total ?? 0;
              return (
                <Stack gap="sm">
                  <TransactionsTable transactions={transactions} />
                  <LoadMoreFooter
                    shown={transactions.length}
                    total={total}
                    list={list}
                    note={
                      total > EXPORT_LIMIT
                        ? `. An export holds the newest ${EXPORT_LIMIT.toLocaleString()}: narrow the dates to export the rest.`
                        : ''
                    }
                  />
                </Stack>
              );
            }}
          </QueryState>
        )}
      </Stack>
    </>
  );
}
