// The operator's apps: open one, create one (its network is fixed at creation), and, as its owner, archive or
// restore it. Archived apps stay listed so their owners can bring them back.
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Anchor, Badge, Button, Group, Modal, SegmentedControl, Stack, Table, Text, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import {
  archiveAppMutation,
  createAppMutation,
  listAppsOptions,
  listAppsQueryKey,
  restoreAppMutation,
} from '../../../generated/dashboard/@tanstack/react-query.gen';
import type { App } from '../../../generated/dashboard/types.gen';
import { fieldErrorOf } from '../api/errors';
import { ActionsColumnHeader } from '../components/ActionsColumnHeader';
import { ConfirmButton } from '../components/ConfirmButton';
import { EmptyMessage } from '../components/EmptyMessage';
import { ErrorAlert } from '../components/ErrorAlert';
import { formatDate } from '../components/format';
import { PageHeader } from '../components/PageHeader';
import { QueryState } from '../components/QueryState';
import { NetworkBadge } from '../layout/Shell';

function CreateAppButton() {
  const [opened, setOpened] = useState(false);
  const [name, setName] = useState('');
  const [network, setNetwork] = useState<'testnet' | 'mainnet'>('testnet');
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const create = useMutation({
    ...createAppMutation(),
    onSuccess: async (data) => {
      await queryClient.invalidateQueries({ queryKey: listAppsQueryKey() });
      setOpened(false);
      notifications.show({ color: 'green', message: `${data.content.name} was created` });
      void navigate(`/apps/${data.content.appId}`);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate({ body: { name: name.trim(), network }, headers: { 'Idempotency-Key': crypto.randomUUID() } });
  };
  const nameError = fieldErrorOf(create.error, 'name');
  return (
    <>
      <Button onClick={() => setOpened(true)}>Create app</Button>
      <Modal opened={opened} onClose={() => setOpened(false)} title="Create an app" centered>
        <form onSubmit={submit} noValidate>
          <Stack>
            <TextInput
              label="Name"
              description="Shown to your team; you can change it later."
              required
              maxLength={100}
              value={name}
              onChange={(e) => setName(e.currentTarget.value)}
              error={nameError}
              data-autofocus
            />
            <div>
              <Text size="sm" fw={500} id="network-label">
                Network
              </Text>
              <Text size="xs" c="dimmed" mb={4}>
                Fixed at creation: a mainnet app is a separate app, with its own keys and users.
              </Text>
              <SegmentedControl
                aria-labelledby="network-label"
                value={network}
                onChange={(v) => setNetwork(v)}
                data={[
                  { value: 'testnet', label: 'Testnet' },
                  { value: 'mainnet', label: 'Mainnet' },
                ]}
              />
            </div>
            {create.error && !nameError ? <ErrorAlert error={create.error} /> : null}
            <Group justify="flex-end">
              <Button variant="default" onClick={() => setOpened(false)}>
                Cancel
              </Button>
              <Button type="submit" loading={create.isPending} disabled={!name.trim()}>
                Create
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </>
  );
}

function AppActions({ app }: { app: App }) {
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries();
  const archive = useMutation({ ...archiveAppMutation(), onSuccess: refresh });
  const restore = useMutation({ ...restoreAppMutation(), onSuccess: refresh });
  if (app.role !== 'owner') {
    return (
      <Text size="xs" c="dimmed">
        Only the owner can archive
      </Text>
    );
  }
  if (app.status === 'archived') {
    return (
      <ConfirmButton
        key="restore"
        label="Restore"
        color="teal"
        size="xs"
        title={`Restore ${app.name}?`}
        message="Its API keys and SDK access work again at once."
        confirmLabel="Restore app"
        onConfirm={() => restore.mutateAsync({ path: { appId: app.appId } })}
      />
    );
  }
  return (
    <ConfirmButton
      key="archive"
      label="Archive"
      size="xs"
      title={`Archive ${app.name}?`}
      message="Its API keys and SDK access stop working at once and it is hidden from the app switcher. You can restore it later."
      confirmLabel="Archive app"
      onConfirm={() => archive.mutateAsync({ path: { appId: app.appId } })}
    />
  );
}

export function AppsPage() {
  const apps = useQuery(listAppsOptions({ query: { includeArchived: true } }));
  return (
    <>
      <PageHeader
        title="Apps"
        description="Each app has its own keys, users, wallets and network."
        actions={<CreateAppButton />}
      />
      <QueryState
        query={apps}
        isEmpty={(data) => data.content.apps.length === 0}
        empty={
          <EmptyMessage title="No apps yet">
            Create your first app to get API keys and start onboarding users.
          </EmptyMessage>
        }
      >
        {(data) => (
          <Table.ScrollContainer minWidth={640}>
            <Table verticalSpacing="sm" highlightOnHover>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Name</Table.Th>
                  <Table.Th>Network</Table.Th>
                  <Table.Th>Your role</Table.Th>
                  <Table.Th>Created</Table.Th>
                  <Table.Th>Status</Table.Th>
                  <ActionsColumnHeader />
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {data.content.apps.map((app) => (
                  <Table.Tr key={app.appId}>
                    <Table.Td>
                      <Anchor component={Link} to={`/apps/${app.appId}`} fw={500}>
                        {app.name}
                      </Anchor>
                    </Table.Td>
                    <Table.Td>
                      <NetworkBadge network={app.network} />
                    </Table.Td>
                    <Table.Td>{app.role}</Table.Td>
                    <Table.Td>{formatDate(app.createdAt)}</Table.Td>
                    <Table.Td>
                      <Badge color={app.status === 'active' ? 'green' : 'gray'} variant="light">
                        {app.status}
                      </Badge>
                    </Table.Td>
                    <Table.Td>
                      <AppActions app={app} />
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </QueryState>
    </>
  );
}
