// An app's API keys: list them by prefix, generate one (its full key is shown once, here), rotate one with an
// overlap in which both keys work, and revoke one. Keys follow the app's network; any member may manage them.
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  Alert,
  Badge,
  Button,
  Checkbox,
  Code,
  Group,
  Modal,
  NativeSelect,
  Paper,
  Radio,
  SimpleGrid,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconAlertTriangle } from '@tabler/icons-react';
import {
  createApiKeyMutation,
  listApiKeysOptions,
  listApiKeysQueryKey,
  revokeApiKeyMutation,
  rotateApiKeyMutation,
} from '../../../generated/dashboard/@tanstack/react-query.gen';
import type { ApiKey, ApiKeyWithSecret, RotateApiKeyResponse } from '../../../generated/dashboard/types.gen';
import { useIdempotencyKeyPerBody } from '../api/idempotency';
import { fieldErrorOf } from '../api/errors';
import { ActionsColumnHeader } from '../components/ActionsColumnHeader';
import { ConfirmButton } from '../components/ConfirmButton';
import { CopyValue } from '../components/CopyValue';
import { EmptyMessage } from '../components/EmptyMessage';
import { ErrorAlert } from '../components/ErrorAlert';
import { formatDate } from '../components/format';
import { PageHeader } from '../components/PageHeader';
import { QueryState } from '../components/QueryState';
import { useCurrentApp } from '../layout/currentApp';

type KeyType = ApiKey['type'];

/** A full key just generated or rotated in, with the key it replaces when it came from a rotation. */
interface RevealedKey {
  key: ApiKeyWithSecret;
  previous?: { prefix: string; expiresAt: string; status: RotateApiKeyResponse['content']['previousKey']['status'] };
}

const TYPE_HELP: Record<KeyType, string> = {
  publishable:
    'For your frontend (pub_…): safe in client code, and only starts operations of a signed-in user. It cannot activate wallets or list all of the app’s wallets.',
  secret:
    'For your backend only (sec_…): never in client code, bundles or repositories. Needed to activate wallets (POST /v1/wallets/fund) and for the Server API.',
};

const STATUS_COLOR: Record<ApiKey['status'], string> = {
  active: 'green',
  rotating: 'yellow',
  expired: 'gray',
  revoked: 'red',
};

// Table cells shrink their badges and codes to an ellipsis unless they keep their width.
const NO_WRAP = { whiteSpace: 'nowrap', overflow: 'visible', flexShrink: 0 } as const;

// rotateApiKey's overlapSeconds: 0 (the default) to 7 days.
const OVERLAPS = [
  { value: '0', label: 'No overlap: the old key stops at once (for a leaked key)' },
  { value: '3600', label: '1 hour' },
  { value: '86400', label: '24 hours' },
  { value: '604800', label: '7 days (the longest)' },
];

/** `datetime-local` input value (local time) -> ISO timestamp, or undefined when it is not a date. */
function isoFromLocal(value: string): string | undefined {
  const at = new Date(value);
  return Number.isNaN(at.getTime()) ? undefined : at.toISOString();
}

function GenerateKeyButton({
  appId,
  disabled,
  onGenerated,
}: {
  appId: string;
  disabled: boolean;
  onGenerated: (key: RevealedKey) => void;
}) {
  const [opened, setOpened] = useState(false);
  const [type, setType] = useState<KeyType>('secret');
  const [label, setLabel] = useState('');
  const [expiresAt, setExpiresAt] = useState('');
  const [expiryProblem, setExpiryProblem] = useState<string>();
  // A retried submit after a lost answer does not mint a second key; a corrected form is a new request.
  const idempotency = useIdempotencyKeyPerBody();
  const queryClient = useQueryClient();
  const create = useMutation({
    ...createApiKeyMutation(),
    onSuccess: async (data) => {
      setOpened(false);
      onGenerated({ key: data.content });
      notifications.show({
        color: 'green',
        message: `${data.content.type === 'secret' ? 'Secret' : 'Publishable'} key generated`,
      });
      await queryClient.invalidateQueries({ queryKey: listApiKeysQueryKey({ path: { appId } }) });
    },
  });
  const open = () => {
    setType('secret');
    setLabel('');
    setExpiresAt('');
    setExpiryProblem(undefined);
    idempotency.reset();
    create.reset();
    setOpened(true);
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    let expiry: string | undefined;
    if (expiresAt) {
      expiry = isoFromLocal(expiresAt);
      if (!expiry || new Date(expiry).getTime() <= Date.now()) {
        setExpiryProblem('Choose a time in the future, or leave it empty for a key that does not expire.');
        return;
      }
    }
    setExpiryProblem(undefined);
    const body = { type, ...(label.trim() ? { label: label.trim() } : {}), ...(expiry ? { expiresAt: expiry } : {}) };
    create.mutate({ path: { appId }, body, headers: { 'Idempotency-Key': idempotency.keyFor(body) } });
  };
  const labelError = fieldErrorOf(create.error, 'label');
  const expiryError = expiryProblem ?? fieldErrorOf(create.error, 'expiresAt');
  const typeError = fieldErrorOf(create.error, 'type');
  return (
    <>
      <Button onClick={open} disabled={disabled}>
        Generate key
      </Button>
      <Modal opened={opened} onClose={() => !create.isPending && setOpened(false)} title="Generate an API key" centered>
        <form onSubmit={submit} noValidate>
          <Stack>
            <Radio.Group label="Key type" value={type} onChange={setType} error={typeError}>
              <Stack gap="sm" mt="xs">
                <Radio value="secret" label="Secret key" description={TYPE_HELP.secret} />
                <Radio value="publishable" label="Publishable key" description={TYPE_HELP.publishable} />
              </Stack>
            </Radio.Group>
            <TextInput
              label="Label"
              description="What uses the key, e.g. Backend or Web app. Optional."
              maxLength={100}
              value={label}
              onChange={(e) => setLabel(e.currentTarget.value)}
              error={labelError}
              data-autofocus
            />
            <TextInput
              type="datetime-local"
              label="Expires (optional)"
              description="In your local time. The key stops working then; leave empty for a key that does not expire."
              value={expiresAt}
              onChange={(e) => {
                setExpiresAt(e.currentTarget.value);
                setExpiryProblem(undefined);
              }}
              error={expiryError}
            />
            {create.error && !labelError && !expiryError && !typeError ? <ErrorAlert error={create.error} /> : null}
            <Group justify="flex-end">
              <Button variant="default" onClick={() => setOpened(false)} disabled={create.isPending}>
                Cancel
              </Button>
              <Button type="submit" loading={create.isPending}>
                Generate
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </>
  );
}

/** The one showing of a full key. It cannot be dismissed by accident: the operator confirms they have copied it. */
function RevealedKeyModal({ revealed, onDone }: { revealed: RevealedKey | null; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  const key = revealed?.key;
  const done = () => {
    setCopied(false);
    onDone();
  };
  return (
    <Modal
      opened={revealed !== null}
      onClose={() => copied && done()}
      title={key ? `Your new ${key.type} key` : ''}
      centered
      size="lg"
      closeOnClickOutside={false}
      closeOnEscape={false}
      withCloseButton={false}
    >
      {key ? (
        <Stack>
          <Alert
            color="red"
            variant="light"
            icon={<IconAlertTriangle size={18} />}
            title="Copy it now: it is shown only once"
          >
            <Text size="sm">
              Onboard keeps only a hash of the key: after you close this window nobody can show it again, and a lost key
              must be rotated.{' '}
              {key.type === 'secret'
                ? 'Keep it on your backend only: never in client code, bundles or repositories.'
                : 'A publishable key may ship in your frontend code.'}
            </Text>
          </Alert>
          <CopyValue value={key.key} label={`${key.type} key`} block />
          <Text size="sm" c="dimmed">
            {key.label ? `Label: ${key.label}. ` : ''}Network: {key.network}.{' '}
            {key.expiresAt ? `Expires ${formatDate(key.expiresAt)}.` : 'Does not expire.'}
          </Text>
          {revealed?.previous ? (
            <Alert color={revealed.previous.status === 'expired' ? 'red' : 'blue'} variant="light" title="The old key">
              {revealed.previous.status === 'expired' ? (
                <Text size="sm">
                  <Code>{revealed.previous.prefix}…</Code> stopped working now (
                  {formatDate(revealed.previous.expiresAt)}).
                </Text>
              ) : (
                <Text size="sm">
                  <Code>{revealed.previous.prefix}…</Code> keeps working until{' '}
                  <strong>{formatDate(revealed.previous.expiresAt)}</strong>; deploy the new key before then.
                </Text>
              )}
            </Alert>
          ) : null}
          <Checkbox
            label="I have copied this key and stored it safely"
            checked={copied}
            onChange={(e) => setCopied(e.currentTarget.checked)}
          />
          <Group justify="flex-end">
            <Button onClick={done} disabled={!copied}>
              Done
            </Button>
          </Group>
        </Stack>
      ) : null}
    </Modal>
  );
}

function KeyActions({
  apiKey,
  appId,
  onRotated,
}: {
  apiKey: ApiKey;
  appId: string;
  onRotated: (key: RevealedKey) => void;
}) {
  const queryClient = useQueryClient();
  const [overlap, setOverlap] = useState('0');
  const refresh = () => queryClient.invalidateQueries({ queryKey: listApiKeysQueryKey({ path: { appId } }) });
  const rotate = useMutation({ ...rotateApiKeyMutation(), onSuccess: refresh });
  const revoke = useMutation({ ...revokeApiKeyMutation(), onSuccess: refresh });
  const name = apiKey.label ? `${apiKey.label} (${apiKey.prefix}…)` : `${apiKey.prefix}…`;
  if (apiKey.status === 'revoked') {
    return (
      <Text size="xs" c="dimmed">
        Revoked {formatDate(apiKey.revokedAt)}
      </Text>
    );
  }
  return (
    <Group gap="xs" wrap="nowrap">
      {apiKey.status !== 'rotating' ? (
        <ConfirmButton
          label="Rotate"
          color="indigo"
          size="xs"
          aria-label={`Rotate ${name}`}
          title={`Rotate ${name}?`}
          message={
            <Stack gap="sm">
              <Text size="sm">
                A new {apiKey.type} key with the same label is generated (without an expiry) and shown once. During the
                overlap both keys work; then the old one answers API_KEY_EXPIRED.
                {apiKey.expiresAt
                  ? ` The old key still stops no later than its own expiry (${formatDate(apiKey.expiresAt)}).`
                  : ''}
              </Text>
              <NativeSelect
                label="Old key keeps working for"
                data={OVERLAPS}
                value={overlap}
                onChange={(e) => setOverlap(e.currentTarget.value)}
              />
            </Stack>
          }
          confirmLabel="Rotate key"
          onConfirm={async () => {
            const data = await rotate.mutateAsync({
              path: { appId, keyId: apiKey.keyId },
              body: { overlapSeconds: Number(overlap) },
              headers: { 'Idempotency-Key': crypto.randomUUID() },
            });
            onRotated({ key: data.content.key, previous: { prefix: apiKey.prefix, ...data.content.previousKey } });
            notifications.show({ color: 'green', message: `${name} was rotated` });
          }}
        />
      ) : null}
      <ConfirmButton
        label="Revoke"
        size="xs"
        aria-label={`Revoke ${name}`}
        title={`Revoke ${name}?`}
        message={
          apiKey.status === 'rotating'
            ? 'Its overlap ends now: requests with it are refused at once (401), and for good. Its replacement keeps working.'
            : 'Requests with this key are refused at once (401), and for good. This cannot be undone; to replace a key without downtime, rotate it instead.'
        }
        confirmLabel="Revoke key"
        onConfirm={async () => {
          await revoke.mutateAsync({ path: { appId, keyId: apiKey.keyId } });
          notifications.show({ color: 'green', message: `${name} was revoked` });
        }}
      />
    </Group>
  );
}

function StatusCell({ apiKey }: { apiKey: ApiKey }) {
  return (
    <Stack gap={2}>
      {/* A dot, not tinted text: the word stays in the body colour (tinted greens and yellows fail contrast). */}
      <Badge color={STATUS_COLOR[apiKey.status]} variant="dot" style={NO_WRAP}>
        {apiKey.status}
      </Badge>
      {apiKey.status === 'rotating' && apiKey.expiresAt ? (
        <Text size="xs" c="dimmed">
          works until {formatDate(apiKey.expiresAt)}
        </Text>
      ) : null}
    </Stack>
  );
}

export function KeysPage() {
  const app = useCurrentApp();
  const active = app.status === 'active';
  // An archived app answers 404 to this read: say so instead of "not found".
  const keys = useQuery({ ...listApiKeysOptions({ path: { appId: app.appId } }), enabled: active });
  const [revealed, setRevealed] = useState<RevealedKey | null>(null);
  return (
    <>
      <PageHeader
        title="API keys"
        description={`Keys of this app work on ${app.network} only, the app’s network. A full key is shown once, when it is generated or rotated; the list shows each by its prefix.`}
        actions={<GenerateKeyButton appId={app.appId} disabled={!active} onGenerated={setRevealed} />}
      />
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md" mb="lg">
        <Paper withBorder p="sm" radius="md">
          <Title order={2} size="h5">
            Publishable keys
          </Title>
          <Text size="sm" c="dimmed">
            {TYPE_HELP.publishable}
          </Text>
        </Paper>
        <Paper withBorder p="sm" radius="md">
          <Title order={2} size="h5">
            Secret keys
          </Title>
          <Text size="sm" c="dimmed">
            {TYPE_HELP.secret}
          </Text>
        </Paper>
      </SimpleGrid>
      {active ? (
        <QueryState
          query={keys}
          rows={4}
          isEmpty={(data) => data.content.keys.length === 0}
          empty={
            <EmptyMessage title="No API keys yet">
              Generate a publishable key for your frontend and a secret key for your backend.
            </EmptyMessage>
          }
        >
          {(data) => (
            <Table.ScrollContainer minWidth={980}>
              <Table verticalSpacing="sm" highlightOnHover>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Key</Table.Th>
                    <Table.Th>Type</Table.Th>
                    <Table.Th>Created</Table.Th>
                    <Table.Th>Expires</Table.Th>
                    <Table.Th>Last used</Table.Th>
                    <Table.Th>Status</Table.Th>
                    <ActionsColumnHeader />
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {data.content.keys.map((k) => (
                    <Table.Tr key={k.keyId}>
                      <Table.Td>
                        <Stack gap={2}>
                          {k.label ? (
                            <Text size="sm" fw={500}>
                              {k.label}
                            </Text>
                          ) : (
                            <Text size="sm" c="dimmed">
                              No label
                            </Text>
                          )}
                          <Code style={NO_WRAP} title="The key’s prefix: the full key is never shown again">
                            {k.prefix}…
                          </Code>
                        </Stack>
                      </Table.Td>
                      <Table.Td>
                        <Text size="sm">{k.type === 'secret' ? 'Secret' : 'Publishable'}</Text>
                      </Table.Td>
                      <Table.Td style={NO_WRAP}>{formatDate(k.createdAt)}</Table.Td>
                      <Table.Td style={NO_WRAP}>{k.expiresAt ? formatDate(k.expiresAt) : 'Never'}</Table.Td>
                      <Table.Td style={NO_WRAP}>{k.lastUsedAt ? formatDate(k.lastUsedAt) : 'Never'}</Table.Td>
                      <Table.Td>
                        <StatusCell apiKey={k} />
                      </Table.Td>
                      <Table.Td>
                        <KeyActions apiKey={k} appId={app.appId} onRotated={setRevealed} />
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )}
        </QueryState>
      ) : (
        <Text size="sm" c="dimmed">
          An archived app’s keys are disabled and cannot be listed or changed until the owner restores it.
        </Text>
      )}
      <RevealedKeyModal revealed={revealed} onDone={() => setRevealed(null)} />
    </>
  );
}
