// The app's audit log, newest first: every decryption of a wallet key, every fee-bump the policy refused, and the
// operators' changes to keys, team, webhooks and policy, filtered by action or wallet (kept in the address), with each
// entry's details a click away.
import { useState, type FormEvent, type ReactNode } from 'react';
import { Link } from 'react-router';
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import {
  ActionIcon,
  Anchor,
  Box,
  Button,
  Code,
  Group,
  Select,
  SimpleGrid,
  Stack,
  Table,
  Text,
  TextInput,
  VisuallyHidden,
} from '@mantine/core';
import { IconChevronDown, IconChevronRight } from '@tabler/icons-react';
import {
  listApiKeysOptions,
  listAuditLogInfiniteOptions,
  listMembersOptions,
} from '../../../generated/dashboard/@tanstack/react-query.gen';
import type { ListAuditLogData, ListAuditLogResponse } from '../../../generated/dashboard/types.gen';
import { failureOf } from '../api/errors';
import { CopyValue } from '../components/CopyValue';
import { FilterBar } from '../components/FilterBar';
import { FilteredEmptyState } from '../components/FilteredEmptyState';
import { formatDate, shortKey } from '../components/format';
import { LoadMoreFooter } from '../components/LoadMoreFooter';
import { PageHeader } from '../components/PageHeader';
import { QueryState } from '../components/QueryState';
import { useCurrentApp } from '../layout/currentApp';
import { useFiltersInAddress } from './useFiltersInAddress';

type Entry = ListAuditLogResponse['content']['entries'][number];
type AuditQuery = NonNullable<ListAuditLogData['query']>;

/** The actions the service records (listAuditLog's description), in words for the table. */
const ACTIONS: Record<string, string> = {
  'key.decrypt': 'Wallet key decrypted',
  'tx.policy_denied': 'Fee-bump refused by the policy',
  'wallet.funded': 'Wallet funded',
  'api_key.created': 'API key created',
  'api_key.rotated': 'API key rotated',
  'api_key.revoked': 'API key revoked',
  'member.added': 'Member added',
  'member.removed': 'Member removed',
  'fee_policy.updated': 'Fee policy changed',
  'webhook.updated': 'Webhook changed',
  'webhook.secret_rotated': 'Webhook secret rotated',
  'auth_policy_row.created': 'Soroban auth row added',
  'auth_policy_row.updated': 'Soroban auth row changed',
  'auth_policy_row.deleted': 'Soroban auth row deleted',
  'distribution_rule.created': 'Distribution rule added',
  'distribution_rule.updated': 'Distribution rule changed',
  'distribution_rule.deleted': 'Distribution rule deleted',
  'distribution_push.created': 'Distribution push started',
  'distribution_push.retried': 'Distribution push retried',
  'kyc_settings.updated': 'KYC providers changed',
  'ramp_settings.updated': 'Ramp providers changed',
};

/** Why a key was decrypted, for the purposes the service names. */
const PURPOSES: Record<string, string> = {
  'tx.sign': 'to sign a user’s transaction',
  'tx.fee_bump': 'to fee-bump a transaction (gas wallet)',
  'auth_entry.sign': 'to sign a Soroban authorization entry',
  'trustline.sponsor': 'to sponsor a trustline',
  'wallet.activate': 'to activate a wallet',
  'ramp.sep10': 'to sign in to a ramp anchor (SEP-10)',
};

const ACTION_PATTERN = /^[a-z_]+(\.[a-z_]+)+$/;
const WALLET_PATTERN = /^wal_[0-9A-Za-z]+$/;

const ACTOR_TYPES: Record<Entry['actor']['type'], string> = {
  operator: 'Operator',
  user: 'User',
  api_key: 'API key',
  system: 'Onboard',
};

interface Names {
  operators: Map<string, string>;
  apiKeys: Map<string, string>;
}

/** Who did it, by name where the app's members and keys say (a removed member or deleted key keeps its id). */
function Actor({ actor, names, appId }: { actor: Entry['actor']; names: Names; appId: string }) {
  if (actor.type === 'system' || actor.id === null) return <Text size="sm">Onboard (background work)</Text>;
  const kind = ACTOR_TYPES[actor.type];
  if (actor.type === 'user') {
    return (
      <Text size="sm">
        {kind}{' '}
        <Anchor component={Link} to={`/apps/${appId}/users/${actor.id}`} size="sm" ff="monospace">
          {shortKey(actor.id)}
        </Anchor>
      </Text>
    );
  }
  const name = (actor.type === 'operator' ? names.operators : names.apiKeys).get(actor.id);
  return (
    <Text size="sm" title={actor.id}>
      {kind} {name ?? <Code>{shortKey(actor.id)}</Code>}
    </Text>
  );
}

function Details({ entry, names, appId }: { entry: Entry; names: Names; appId: string }) {
  const rows: [string, ReactNode][] = [
    ['Entry', <CopyValue key="id" value={entry.auditId} label="entry id" />],
    ['Action', <Code key="action">{entry.action}</Code>],
    ['By', <Actor key="actor" actor={entry.actor} names={names} appId={appId} />],
  ];
  if (entry.actor.id) rows.push(['Actor id', <CopyValue key="actor-id" value={entry.actor.id} label="actor id" />]);
  if (entry.walletId) {
    rows.push([
      'Wallet',
      <Stack key="wallet" gap={2}>
        <CopyValue value={entry.walletId} label="wallet id" />
        <Anchor component={Link} to={`?walletId=${encodeURIComponent(entry.walletId)}`} size="sm">
          Every entry for this wallet
        </Anchor>
      </Stack>,
    ]);
  }
  if (entry.purpose) {
    const why = PURPOSES[entry.purpose];
    rows.push([
      'Purpose',
      <Text key="purpose" size="sm">
        <Code>{entry.purpose}</Code>
        {why ? ` ${why}` : ''}
      </Text>,
    ]);
  }
  rows.push(['IP address', entry.ip ? <Code key="ip">{entry.ip}</Code> : 'None (background work)']);
  rows.push(['Time (UTC)', <Code key="time">{entry.createdAt}</Code>]);
  return (
    <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="xs" verticalSpacing={4} component="dl" m={0}>
      {rows.map(([label, value]) => (
        <Group key={label} gap="xs" wrap="nowrap" align="flex-start">
          <Text component="dt" size="sm" c="dimmed" w={96} style={{ flexShrink: 0 }}>
            {label}
          </Text>
          <Text component="dd" size="sm" m={0} style={{ minWidth: 0 }}>
            {value}
          </Text>
        </Group>
      ))}
    </SimpleGrid>
  );
}

function EntryRows({ entry, names, appId }: { entry: Entry; names: Names; appId: string }) {
  const [open, setOpen] = useState(false);
  const detailsId = `audit-details-${entry.auditId}`;
  return (
    <>
      <Table.Tr>
        <Table.Td w={44}>
          {/* First, so it is on screen without scrolling the table sideways on a phone. */}
          <ActionIcon
            variant="subtle"
            aria-label={open ? 'Hide the entry’s details' : 'Show the entry’s details'}
            aria-expanded={open}
            aria-controls={open ? detailsId : undefined}
            onClick={() => setOpen((o) => !o)}
          >
            {open ? <IconChevronDown size={16} /> : <IconChevronRight size={16} />}
          </ActionIcon>
        </Table.Td>
        <Table.Td style={{ whiteSpace: 'nowrap' }}>{formatDate(entry.createdAt)}</Table.Td>
        <Table.Td>
          <Text size="sm">{ACTIONS[entry.action] ?? entry.action}</Text>
          <Text size="xs" c="dimmed" ff="monospace">
            {entry.purpose ? `${entry.action} · ${entry.purpose}` : entry.action}
          </Text>
        </Table.Td>
        <Table.Td>
          <Actor actor={entry.actor} names={names} appId={appId} />
        </Table.Td>
        <Table.Td style={{ whiteSpace: 'nowrap' }}>
          {entry.walletId ? (
            <CopyValue value={entry.walletId} display={shortKey(entry.walletId)} label="wallet id" />
          ) : (
            '—'
          )}
        </Table.Td>
      </Table.Tr>
      {open ? (
        <Table.Tr id={detailsId}>
          <Table.Td colSpan={5}>
            {/* Kept in view when the table scrolls sideways on a narrow screen. */}
            <Box pos="sticky" left={0} maw="calc(100vw - 2 * var(--mantine-spacing-md))">
              <Details entry={entry} names={names} appId={appId} />
            </Box>
          </Table.Td>
        </Table.Tr>
      ) : null}
    </>
  );
}

/** The wallet filter, applied on submit: a half-typed id is not a filter the API accepts. */
function WalletFilter({
  value,
  onApply,
  serverError,
}: {
  value: string;
  onApply: (v: string | null) => void;
  serverError?: string;
}) {
  const [draft, setDraft] = useState(value);
  const [touched, setTouched] = useState(false);
  const trimmed = draft.trim();
  const invalid = trimmed !== '' && !WALLET_PATTERN.test(trimmed);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setTouched(true);
    if (!invalid) onApply(trimmed || null);
  };
  return (
    <form onSubmit={submit} noValidate>
      <Group gap="xs" align="flex-end" wrap="nowrap">
        <TextInput
          label="Wallet"
          placeholder="wal_…"
          description="A wallet id, to see every decryption of its key"
          value={draft}
          onChange={(e) => setDraft(e.currentTarget.value)}
          error={(touched && invalid ? 'A wallet id starts with wal_' : undefined) ?? serverError}
          style={{ flex: 1 }}
        />
        <Button type="submit" variant="light">
          Filter
        </Button>
      </Group>
    </form>
  );
}

export function AuditLogPage() {
  const app = useCurrentApp();
  const { searchParams, setFilter, clearFilters } = useFiltersInAddress(['action', 'walletId']);
  const actionParam = searchParams.get('action') ?? '';
  const walletParam = searchParams.get('walletId') ?? '';
  const query: AuditQuery = {
    ...(ACTION_PATTERN.test(actionParam) ? { action: actionParam } : {}),
    ...(WALLET_PATTERN.test(walletParam) ? { walletId: walletParam } : {}),
  };
  const filtered = query.action !== undefined || query.walletId !== undefined;

  const log = useInfiniteQuery({
    ...listAuditLogInfiniteOptions({ path: { appId: app.appId }, query }),
    initialPageParam: 0,
    getNextPageParam: (last) =>
      last.content.nextCursor ? { path: { appId: app.appId }, query: { cursor: last.content.nextCursor } } : undefined,
  });

  // Names for the ids in the log; best effort (a failure leaves the ids).
  const members = useQuery(listMembersOptions({ path: { appId: app.appId } }));
  const keys = useQuery({ ...listApiKeysOptions({ path: { appId: app.appId } }), enabled: app.status === 'active' });
  const names: Names = {
    operators: new Map(
      (members.data?.content.members ?? []).map((m) => [m.operatorId, m.email ?? shortKey(m.operatorId)]),
    ),
    apiKeys: new Map(
      (keys.data?.content.keys ?? []).map((k) => [k.keyId, k.label ? `${k.label} (${k.prefix}…)` : `${k.prefix}…`]),
    ),
  };

  const actionOptions = [
    ...Object.entries(ACTIONS).map(([value, label]) => ({ value, label: `${label} (${value})` })),
    ...(query.action && !(query.action in ACTIONS) ? [{ value: query.action, label: query.action }] : []),
  ];

  return (
    <>
      <PageHeader
        title="Audit log"
        description="Security-relevant actions on this app, newest first. Entries cannot be changed or deleted."
      />
      <Stack gap="md">
        <FilterBar
          label="Filter the audit log"
          cols={{ base: 1, sm: 2 }}
          filtered={filtered}
          onClearFilters={clearFilters}
        >
          <Select
            label="Action"
            placeholder="Any action"
            description="What happened"
            data={actionOptions}
            value={query.action ?? null}
            onChange={(value) => setFilter('action', value)}
            searchable
            clearable
            clearButtonProps={{ 'aria-label': 'Clear the action filter' }}
            nothingFoundMessage="No action by that name"
          />
          <WalletFilter
            key={query.walletId ?? ''}
            value={query.walletId ?? ''}
            onApply={(value) => setFilter('walletId', value)}
            serverError={failureOf(log.error).fieldErrors['query.walletId']?.join('; ')}
          />
        </FilterBar>
        <QueryState
          query={log}
          rows={8}
          isEmpty={(data) => data.pages[0]?.content.total === 0}
          empty={
            <FilteredEmptyState
              filtered={filtered}
              noMatch="No entries match these filters"
              onClearFilters={clearFilters}
              nothingYet="Nothing recorded yet"
              hint="Entries appear when a wallet key is used, or when someone changes keys, members, webhooks or the fee policy."
            />
          }
        >
          {(data) => {
            const entries = data.pages.flatMap((page) => page.content.entries);
            const total = data.pages[0]?.content.total ?? 0;
            return (
              <Stack gap="sm">
                <Table.ScrollContainer minWidth={820}>
                  <Table verticalSpacing="xs">
                    <Table.Thead>
                      <Table.Tr>
                        <Table.Th>
                          <VisuallyHidden>Details</VisuallyHidden>
                        </Table.Th>
                        <Table.Th>Time</Table.Th>
                        <Table.Th>Action</Table.Th>
                        <Table.Th>By</Table.Th>
                        <Table.Th>Wallet</Table.Th>
                      </Table.Tr>
                    </Table.Thead>
                    <Table.Tbody>
                      {entries.map((entry) => (
                        <EntryRows key={entry.auditId} entry={entry} names={names} appId={app.appId} />
                      ))}
                    </Table.Tbody>
                  </Table>
                </Table.ScrollContainer>
                <LoadMoreFooter shown={entries.length} total={total} list={log} />
              </Stack>
            );
          }}
        </QueryState>
      </Stack>
    </>
  );
}
