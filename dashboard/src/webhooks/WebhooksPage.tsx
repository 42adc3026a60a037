// Webhooks: where the service POSTs the app's events and which ones, the signing secret (rotated here, shown once),
// how receivers check signatures, and the event log with every attempt's answer, from which an event can be sent
// again.
import { Fragment, useState, type FormEvent } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  Alert,
  Anchor,
  Badge,
  Button,
  Checkbox,
  Code,
  Group,
  Modal,
  Paper,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconAlertTriangle, IconKey, IconRefresh } from '@tabler/icons-react';
import {
  getWebhookConfigOptions,
  getWebhookConfigQueryKey,
  listWebhookEventsOptions,
  listWebhookEventsQueryKey,
  redeliverWebhookEventMutation,
  rotateWebhookSecretMutation,
  updateWebhookConfigMutation,
} from '../../../generated/dashboard/@tanstack/react-query.gen';
import type { WebhookConfig, WebhookEventName, WebhookEventRecord } from '../../../generated/dashboard/types.gen';
import { failureOf, fieldErrorOf } from '../api/errors';
import { ActionsColumnHeader } from '../components/ActionsColumnHeader';
import { ConfirmButton } from '../components/ConfirmButton';
import { CopyValue } from '../components/CopyValue';
import { CursorPager, useCursorStack } from '../components/CursorPager';
import { ErrorAlert } from '../components/ErrorAlert';
import { formatDate } from '../components/format';
import { PageHeader } from '../components/PageHeader';
import { QueryState } from '../components/QueryState';
import { useCurrentApp } from '../layout/currentApp';

const EVENTS: { name: WebhookEventName; description: string }[] = [
  { name: 'wallet.created', description: 'A user wallet’s address is created' },
  { name: 'wallet.activated', description: 'A user wallet is funded and can transact' },
  { name: 'trustline.added', description: 'A trustline is added to a user wallet' },
  { name: 'payment.sent', description: 'A payment from a user wallet is confirmed on-chain' },
  { name: 'payment.received', description: 'A user wallet receives a payment from any Stellar address' },
  { name: 'sponsor.balance.low', description: 'One of the app’s wallets falls to its minimum (repeated every 24 h)' },
  { name: 'stellar.tx', description: 'Raw data of every transaction of the app’s wallets; sent once, never retried' },
  { name: 'wallet.funded', description: 'Assets pushed from the distribution wallet: not sent yet (coming later)' },
];

/** A secret the service shows once: in a dialog, so it is seen wherever the action was, until it is stored. */
function OneTimeSecret({ secret, note, onDone }: { secret: string; note?: string; onDone: () => void }) {
  return (
    <Modal
      opened
      onClose={onDone}
      title="Copy your new signing secret now"
      centered
      size="lg"
      closeOnClickOutside={false}
      closeOnEscape={false}
    >
      <Stack gap="sm">
        <Alert color="yellow" variant="light" icon={<IconKey size={18} />}>
          It is shown only this once. Store it where your webhook receiver reads it, like a password.
        </Alert>
        {note ? <Text size="sm">{note}</Text> : null}
        <CopyValue value={secret} label="signing secret" block />
        <Group justify="flex-end">
          <Button onClick={onDone}>I have stored it</Button>
        </Group>
      </Stack>
    </Modal>
  );
}

function EndpointStatus({ config }: { config: WebhookConfig }) {
  if (!config.url)
    return (
      <Badge color="gray" variant="light">
        Not configured
      </Badge>
    );
  return config.enabled ? (
    <Badge color="green" variant="light">
      Delivering
    </Badge>
  ) : (
    <Badge color="orange" variant="light">
      Paused
    </Badge>
  );
}

function EndpointForm({ config, onSecret }: { config: WebhookConfig; onSecret: (secret: string) => void }) {
  const app = useCurrentApp();
  const queryClient = useQueryClient();
  const [url, setUrl] = useState(config.url ?? '');
  const [enabled, setEnabled] = useState(config.enabled);
  const [events, setEvents] = useState<string[]>(config.events);
  const [asymmetric, setAsymmetric] = useState(config.asymmetricSignature);
  const key = getWebhookConfigQueryKey({ path: { appId: app.appId } });
  const update = useMutation({
    ...updateWebhookConfigMutation(),
    onSuccess: async (data) => {
      if (data.content.secret) onSecret(data.content.secret);
      const { secret: _shownOnce, ...content } = data.content;
      queryClient.setQueryData(key, { content, code: 'WEBHOOK_CONFIG_FETCHED' as const, success: true as const });
      setUrl(content.url ?? '');
      setEnabled(content.enabled);
      setEvents(content.events);
      setAsymmetric(content.asymmetricSignature);
      await queryClient.invalidateQueries({ queryKey: key });
      notifications.show({
        color: 'green',
        message: content.url ? 'The webhook settings are saved.' : 'The endpoint is removed.',
      });
    },
  });
  const body = (overrides: { url?: string | null; enabled?: boolean } = {}) => ({
    url: url.trim() || null,
    enabled: enabled && Boolean(url.trim()),
    events: EVENTS.map((e) => e.name).filter((name) => events.includes(name)),
    asymmetricSignature: asymmetric,
    ...overrides,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    update.mutate({ path: { appId: app.appId }, body: body() });
  };
  const errors = {
    url: fieldErrorOf(update.error, 'url', { withNested: true }),
    enabled: fieldErrorOf(update.error, 'enabled', { withNested: true }),
    events: fieldErrorOf(update.error, 'events', { withNested: true }),
  };
  const urlError =
    errors.url ??
    (failureOf(update.error).code === 'WEBHOOK_URL_NOT_ALLOWED' ? failureOf(update.error).message : undefined);
  const general =
    update.error &&
    !urlError &&
    !errors.enabled &&
    !errors.events &&
    !fieldErrorOf(update.error, 'asymmetricSignature', { withNested: true });
  const dirty =
    (url.trim() || null) !== config.url ||
    enabled !== config.enabled ||
    asymmetric !== config.asymmetricSignature ||
    [...events].sort().join() !== [...config.events].sort().join();

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="md">
        <TextInput
          label="Endpoint URL"
          description="An https address of your backend that answers 2xx within 10 s. Private and loopback addresses are refused."
          placeholder="https://api.example.com/hooks/onboard"
          type="url"
          maxLength={2048}
          value={url}
          onChange={(e) => setUrl(e.currentTarget.value)}
          error={urlError}
        />
        <Switch
          label="Deliver events"
          description={url.trim() ? 'Off: events are logged as skipped and not sent.' : 'Needs an endpoint URL.'}
          checked={enabled && Boolean(url.trim())}
          disabled={!url.trim()}
          onChange={(e) => setEnabled(e.currentTarget.checked)}
          error={errors.enabled}
        />
        <Checkbox.Group
          label="Events to deliver"
          description="Events of other types are logged as skipped."
          value={events}
          onChange={setEvents}
          error={errors.events}
        >
          <SimpleGrid cols={{ base: 1, md: 2 }} mt="xs" spacing="xs">
            {EVENTS.map((e) => (
              <Checkbox key={e.name} value={e.name} label={<Code>{e.name}</Code>} description={e.description} />
            ))}
          </SimpleGrid>
        </Checkbox.Group>
        <Switch
          label="Also sign with the app’s Ed25519 key"
          description="Adds a v1a signature that receivers check with the app’s public key, so they hold no secret."
          checked={asymmetric}
          onChange={(e) => setAsymmetric(e.currentTarget.checked)}
        />
        {general ? <ErrorAlert error={update.error} /> : null}
        <Group gap="sm" wrap="wrap">
          <Button type="submit" loading={update.isPending && update.variables?.body.url !== null} disabled={!dirty}>
            Save webhook settings
          </Button>
          {config.url ? (
            <ConfirmButton
              label="Remove endpoint"
              title="Remove the webhook endpoint?"
              message="No more events are sent; new events are logged as skipped. The signing secret is kept for when you set a URL again."
              confirmLabel="Remove endpoint"
              onConfirm={() =>
                update.mutateAsync({ path: { appId: app.appId }, body: body({ url: null, enabled: false }) })
              }
            />
          ) : null}
        </Group>
      </Stack>
    </form>
  );
}

const OVERLAPS = [
  { value: '86400', label: 'One day (default)' },
  { value: '3600', label: 'One hour' },
  { value: '604800', label: 'Seven days' },
  { value: '0', label: 'Not at all: the old secret leaked' },
];

function SecretSection({
  config,
  onSecret,
}: {
  config: WebhookConfig;
  onSecret: (secret: string, note?: string) => void;
}) {
  const app = useCurrentApp();
  const queryClient = useQueryClient();
  const [overlap, setOverlap] = useState('86400');
  const rotate = useMutation({
    ...rotateWebhookSecretMutation(),
    onSuccess: async (data) => {
      onSecret(
        data.content.secret,
        data.content.previousSecretExpiresAt
          ? `The old secret keeps signing until ${formatDate(data.content.previousSecretExpiresAt)}: accept either until then.`
          : 'The old secret no longer signs anything.',
      );
      await queryClient.invalidateQueries({ queryKey: getWebhookConfigQueryKey({ path: { appId: app.appId } }) });
      notifications.show({ color: 'green', message: 'The signing secret was rotated.' });
    },
  });
  const overlapLabel = OVERLAPS.find((o) => o.value === overlap)?.label ?? '';
  return (
    <Stack gap="sm">
      <Text size="sm">
        {config.secretSet && config.secretPrefix ? (
          <>
            The current secret starts with <Code>{config.secretPrefix}</Code>.
          </>
        ) : (
          'No secret yet: it is created, and shown once, when you first save an endpoint URL.'
        )}
      </Text>
      <Group align="flex-end" gap="sm" wrap="wrap">
        <Select
          label="Old secret keeps working for"
          data={OVERLAPS}
          value={overlap}
          onChange={(v) => v && setOverlap(v)}
          allowDeselect={false}
          w={280}
          disabled={!config.url}
          comboboxProps={{ withinPortal: true }}
        />
        <ConfirmButton
          label="Rotate secret"
          color={overlap === '0' ? 'red' : 'orange'}
          disabled={!config.url}
          title="Rotate the signing secret?"
          message={
            <Stack gap="xs">
              <Text size="sm">A new secret is created and shown once. Update your receiver with it.</Text>
              <Text size="sm" fw={500}>
                {overlap === '0'
                  ? 'The old secret stops at once: deliveries fail your receiver’s check until it has the new one.'
                  : `The old secret keeps signing for ${overlapLabel.replace(' (default)', '').toLowerCase()}, so your receiver has that long to switch.`}
              </Text>
            </Stack>
          }
          confirmLabel="Rotate secret"
          onConfirm={() =>
            rotate.mutateAsync({ path: { appId: app.appId }, body: { overlapSeconds: Number(overlap) } })
          }
        />
      </Group>
      {!config.url ? (
        <Text size="xs" c="dimmed">
          Set an endpoint URL first.
        </Text>
      ) : null}
    </Stack>
  );
}

function SigningHelp({ config }: { config: WebhookConfig }) {
  return (
    <Stack gap="sm">
      <Text size="sm">
        Every delivery is a POST of <Code>{'{ id, event, timestamp, data }'}</Code> signed with{' '}
        {config.signing.algorithm}. Check the signature on the raw body before trusting it, reject timestamps more than{' '}
        {config.signing.toleranceSeconds} s away, and drop repeated <Code>webhook-id</Code>s (delivery is at least
        once). The SDK’s <Code>verifyWebhook(rawBody, headers, secrets)</Code> does all three.
      </Text>
      <Stack gap="xs" component="dl" m={0}>
        {config.signing.headers.map((h) => (
          <div key={h.name}>
            <Text component="dt" size="sm" fw={600}>
              <Code>{h.name}</Code>
            </Text>
            <Text component="dd" size="sm" ms={0} style={{ overflowWrap: 'anywhere' }}>
              {h.value}
            </Text>
          </div>
        ))}
      </Stack>
      {config.asymmetricSignature && config.publicKey ? (
        <Stack gap={4}>
          <Text size="sm" fw={500}>
            Public key for v1a signatures
          </Text>
          <CopyValue value={config.publicKey} label="webhook public key" />
        </Stack>
      ) : null}
    </Stack>
  );
}

// ---------------------------------------------------------------------------------------------------------------
// The event log

const STATUS_BADGE: Record<WebhookEventRecord['status'], { color: string; label: string }> = {
  pending: { color: 'blue', label: 'Pending' },
  delivered: { color: 'green', label: 'Delivered' },
  failed: { color: 'red', label: 'Failed' },
  skipped: { color: 'gray', label: 'Skipped' },
};

const PAGE_SIZE = 20;

function lastAnswer(event: WebhookEventRecord): string {
  if (event.lastStatusCode !== null && event.lastError === null) return `HTTP ${event.lastStatusCode}`;
  if (event.lastError) return event.lastError;
  if (event.lastStatusCode !== null) return `HTTP ${event.lastStatusCode}`;
  return '—';
}

function AttemptLog({ event }: { event: WebhookEventRecord }) {
  if (event.attemptLog.length === 0)
    return (
      <Text size="sm" c="dimmed">
        No attempt yet
        {event.status === 'skipped' ? ': no enabled endpoint subscribed to this event type when it happened' : ''}.
      </Text>
    );
  return (
    <Table verticalSpacing={4} withTableBorder aria-label={`Attempts for ${event.eventId}`}>
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Attempt</Table.Th>
          <Table.Th>Time</Table.Th>
          <Table.Th>Answer</Table.Th>
          <Table.Th>Latency</Table.Th>
          <Table.Th>Response or error</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {event.attemptLog.map((a, i) => (
          <Table.Tr key={`${a.attemptedAt}-${i}`}>
            <Table.Td>#{a.attempt}</Table.Td>
            <Table.Td>{formatDate(a.attemptedAt)}</Table.Td>
            <Table.Td>{a.statusCode === null ? 'No answer' : `HTTP ${a.statusCode}`}</Table.Td>
            <Table.Td>{a.latencyMs} ms</Table.Td>
            <Table.Td>
              {a.error ? <Text size="sm">{a.error}</Text> : null}
              {a.responseExcerpt ? (
                <Code
                  block
                  style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all', maxHeight: 120, overflow: 'auto' }}
                >
                  {a.responseExcerpt}
                </Code>
              ) : null}
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

function RedeliverButton({ event, canDeliver }: { event: WebhookEventRecord; canDeliver: boolean }) {
  const app = useCurrentApp();
  const queryClient = useQueryClient();
  const redeliver = useMutation({
    ...redeliverWebhookEventMutation(),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: listWebhookEventsQueryKey({ path: { appId: app.appId } }) });
      notifications.show({ color: 'green', message: `${event.event} is queued for delivery again.` });
    },
  });
  return (
    <ConfirmButton
      label="Redeliver"
      color="indigo"
      size="xs"
      disabled={!canDeliver}
      title={`Send ${event.event} again?`}
      message={
        <Stack gap="xs">
          <Text size="sm">
            It is sent at once to the current URL with the current secret, then retried on the usual schedule
            {event.event === 'stellar.tx' ? ' (stellar.tx: once)' : ' (up to 5 attempts)'}.
          </Text>
          <Text size="sm">
            The body and <Code>webhook-id</Code> are the original ones, so a receiver that drops duplicates will ignore
            it if it already processed the event.
          </Text>
        </Stack>
      }
      confirmLabel="Redeliver"
      onConfirm={() => redeliver.mutateAsync({ path: { appId: app.appId, eventId: event.eventId } })}
    />
  );
}

function EventLog({ config }: { config: WebhookConfig }) {
  const app = useCurrentApp();
  const [status, setStatus] = useState<WebhookEventRecord['status'] | null>(null);
  const [eventType, setEventType] = useState<WebhookEventName | null>(null);
  // A new filter starts at its first page.
  const pages = useCursorStack([status, eventType]);
  const [open, setOpen] = useState<Set<string>>(new Set());
  const events = useQuery({
    ...listWebhookEventsOptions({
      path: { appId: app.appId },
      query: {
        limit: PAGE_SIZE,
        ...(status ? { status } : {}),
        ...(eventType ? { event: eventType } : {}),
        ...(pages.cursor ? { cursor: pages.cursor } : {}),
      },
    }),
    placeholderData: keepPreviousData,
    // Pending deliveries change on their own: follow them while any is on screen.
    refetchInterval: (query) => (query.state.data?.content.events.some((e) => e.status === 'pending') ? 10_000 : false),
  });
  const canDeliver = Boolean(config.url && config.enabled);
  const toggle = (id: string) =>
    setOpen((current) => {
      const next = new Set(current);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  const filtered = Boolean(status || eventType);

  return (
    <Stack gap="sm">
      <Group align="flex-end" gap="sm" wrap="wrap">
        <Select
          label="Status"
          placeholder="Any status"
          data={Object.entries(STATUS_BADGE).map(([value, { label }]) => ({ value, label }))}
          value={status}
          onChange={(v) => setStatus(v as WebhookEventRecord['status'] | null)}
          clearable
          w={180}
          comboboxProps={{ withinPortal: true }}
        />
        <Select
          label="Event type"
          placeholder="Any event"
          data={EVENTS.map((e) => e.name)}
          value={eventType}
          onChange={(v) => setEventType(v)}
          clearable
          w={220}
          comboboxProps={{ withinPortal: true }}
        />
        <Button
          variant="default"
          leftSection={<IconRefresh size={16} />}
          onClick={() => void events.refetch()}
          loading={events.isFetching && !events.isPlaceholderData}
        >
          Refresh
        </Button>
      </Group>
      {!canDeliver ? (
        <Text size="sm" c="dimmed">
          Redelivery needs an endpoint URL with deliveries on.
        </Text>
      ) : null}
      <QueryState
        query={events}
        rows={6}
        isEmpty={(data) => data.content.events.length === 0}
        empty={
          filtered
            ? 'No event matches these filters.'
            : 'No events yet. They are logged as they happen: a user wallet created, a payment, a low sponsor wallet…'
        }
      >
        {({ content }) => (
          <Stack gap="sm" style={{ opacity: events.isPlaceholderData ? 0.6 : 1 }}>
            <Table.ScrollContainer minWidth={1040}>
              <Table verticalSpacing="sm">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Event</Table.Th>
                    <Table.Th miw={120}>Status</Table.Th>
                    <Table.Th>Attempts</Table.Th>
                    <Table.Th>Last answer</Table.Th>
                    <Table.Th>Next retry</Table.Th>
                    <Table.Th>Created</Table.Th>
                    <ActionsColumnHeader />
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {content.events.map((event) => {
                    const badge = STATUS_BADGE[event.status];
                    const expanded = open.has(event.eventId);
                    return (
                      <Fragment key={event.eventId}>
                        <Table.Tr>
                          <Table.Td>
                            <Code>{event.event}</Code>
                            <Text size="xs" c="dimmed" ff="monospace">
                              {event.eventId}
                            </Text>
                          </Table.Td>
                          <Table.Td>
                            <Badge color={badge.color} variant="light">
                              {badge.label}
                            </Badge>
                            {event.deliveredAt ? (
                              <Text size="xs" c="dimmed">
                                {formatDate(event.deliveredAt)}
                              </Text>
                            ) : null}
                          </Table.Td>
                          <Table.Td>
                            {event.attempts} of {event.event === 'stellar.tx' ? 1 : 5}
                          </Table.Td>
                          <Table.Td maw={260}>
                            <Text size="sm" lineClamp={2} title={event.lastError ?? undefined}>
                              {lastAnswer(event)}
                            </Text>
                          </Table.Td>
                          <Table.Td>{event.nextAttemptAt ? formatDate(event.nextAttemptAt) : '—'}</Table.Td>
                          <Table.Td>{formatDate(event.createdAt)}</Table.Td>
                          <Table.Td>
                            <Group gap="xs" wrap="nowrap" justify="flex-end">
                              <Anchor
                                component="button"
                                type="button"
                                size="sm"
                                aria-expanded={expanded}
                                aria-controls={`attempts-${event.eventId}`}
                                style={{ whiteSpace: 'nowrap' }}
                                onClick={() => toggle(event.eventId)}
                              >
                                {expanded ? 'Hide attempts' : `Attempts (${event.attemptLog.length})`}
                              </Anchor>
                              <RedeliverButton event={event} canDeliver={canDeliver} />
                            </Group>
                          </Table.Td>
                        </Table.Tr>
                        {expanded ? (
                          <Table.Tr id={`attempts-${event.eventId}`}>
                            <Table.Td colSpan={7} bg="var(--mantine-color-default-hover)">
                              <AttemptLog event={event} />
                            </Table.Td>
                          </Table.Tr>
                        ) : null}
                      </Fragment>
                    );
                  })}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
            <CursorPager
              pages={pages}
              pageSize={PAGE_SIZE}
              shown={content.events.length}
              total={content.total}
              nextCursor={content.nextCursor}
              busy={events.isFetching}
              noun={['event', 'events']}
            />
          </Stack>
        )}
      </QueryState>
    </Stack>
  );
}

// ---------------------------------------------------------------------------------------------------------------

function Webhooks({ config }: { config: WebhookConfig }) {
  const [shown, setShown] = useState<{ secret: string; note?: string } | undefined>();
  return (
    <Stack gap="lg">
      {shown ? (
        <OneTimeSecret
          secret={shown.secret}
          {...(shown.note ? { note: shown.note } : {})}
          onDone={() => setShown(undefined)}
        />
      ) : null}
      {config.disabledReason === 'gone' ? (
        <Alert color="red" variant="light" icon={<IconAlertTriangle size={18} />} title="Deliveries were turned off">
          Your endpoint answered 410 Gone, so the service stopped sending events. Fix the endpoint, then turn “Deliver
          events” on again and save.
        </Alert>
      ) : null}
      <Paper withBorder radius="md" p="lg">
        <Group justify="space-between" mb="sm" wrap="wrap" gap="xs">
          <Title order={2} size="h3">
            Endpoint
          </Title>
          <EndpointStatus config={config} />
        </Group>
        <EndpointForm config={config} onSecret={(secret) => setShown({ secret })} />
      </Paper>
      <SimpleGrid cols={{ base: 1, lg: 2 }}>
        <Paper withBorder radius="md" p="lg">
          <Title order={2} size="h3" mb="sm">
            Signing secret
          </Title>
          <SecretSection config={config} onSecret={(secret, note) => setShown({ secret, ...(note ? { note } : {}) })} />
        </Paper>
        <Paper withBorder radius="md" p="lg">
          <Title order={2} size="h3" mb="sm">
            Checking signatures
          </Title>
          <SigningHelp config={config} />
        </Paper>
      </SimpleGrid>
      <div>
        <Title order={2} size="h3" mb={4}>
          Event log
        </Title>
        <Text size="sm" c="dimmed" mb="sm">
          Newest first. A delivery succeeds on any 2xx answer within 10 s; otherwise it is retried after 1 min, 10 min,
          1 h and 24 h, then marked failed. A 410 Gone answer turns deliveries off.
        </Text>
        <EventLog config={config} />
      </div>
    </Stack>
  );
}

export function WebhooksPage() {
  const app = useCurrentApp();
  const config = useQuery(getWebhookConfigOptions({ path: { appId: app.appId } }));
  return (
    <>
      <PageHeader
        title="Webhooks"
        description="Your backend learns what happens to your users’ wallets as it happens."
      />
      <QueryState query={config} rows={6}>
        {({ content }) => <Webhooks config={content} />}
      </QueryState>
    </>
  );
}
