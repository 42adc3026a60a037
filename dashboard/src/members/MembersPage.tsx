// An app's team: everyone on it sees who is a member; only the owner invites people, changes their roles (giving the
// owner role transfers ownership) and removes them. Other members see the same controls disabled, with the reason.
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Badge, Button, Group, Modal, NativeSelect, Radio, Stack, Table, Text, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import {
  addMemberMutation,
  getAppQueryKey,
  listAppsQueryKey,
  listMembersOptions,
  listMembersQueryKey,
  removeMemberMutation,
  updateMemberMutation,
} from '../../../generated/dashboard/@tanstack/react-query.gen';
import type { App, Member } from '../../../generated/dashboard/types.gen';
import { useIdempotencyKeyPerBody } from '../api/idempotency';
import { fieldErrorOf, messageOf } from '../api/errors';
import { ActionsColumnHeader } from '../components/ActionsColumnHeader';
import { ConfirmButton } from '../components/ConfirmButton';
import { ErrorAlert } from '../components/ErrorAlert';
import { formatDate } from '../components/format';
import { PageHeader } from '../components/PageHeader';
import { QueryState } from '../components/QueryState';
import { isOwner, useCurrentApp } from '../layout/currentApp';
import { useOperatorSession } from '../session/SessionProvider';

const OWNER_ONLY_REASON_ID = 'members-owner-only-reason';

type InvitedRole = 'admin' | 'developer';

const nameOf = (member: Member) => member.email ?? member.operatorId;

function InviteButton({ app }: { app: App }) {
  const [opened, setOpened] = useState(false);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<InvitedRole>('developer');
  // A retry of the same invitation after a lost answer does not invite twice; a corrected form is a new request.
  const idempotency = useIdempotencyKeyPerBody();
  const queryClient = useQueryClient();
  const add = useMutation({
    ...addMemberMutation(),
    onSuccess: async (data) => {
      await queryClient.invalidateQueries({ queryKey: listMembersQueryKey({ path: { appId: app.appId } }) });
      setOpened(false);
      notifications.show({ color: 'green', message: `${nameOf(data.content)} was invited as ${data.content.role}` });
    },
  });
  const open = () => {
    setEmail('');
    setRole('developer');
    idempotency.reset();
    add.reset();
    setOpened(true);
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const body = { email: email.trim(), role };
    add.mutate({ path: { appId: app.appId }, body, headers: { 'Idempotency-Key': idempotency.keyFor(body) } });
  };
  const emailError = fieldErrorOf(add.error, 'email');
  const roleError = fieldErrorOf(add.error, 'role');
  const owner = isOwner(app);
  return (
    <>
      <Button
        onClick={open}
        disabled={!owner || app.status !== 'active'}
        aria-describedby={owner ? undefined : OWNER_ONLY_REASON_ID}
      >
        Invite member
      </Button>
      <Modal opened={opened} onClose={() => !add.isPending && setOpened(false)} title="Invite a team member" centered>
        <form onSubmit={submit} noValidate>
          <Stack>
            <TextInput
              type="email"
              label="Email"
              description="They get an invitation by email and can use the app once they sign in with this address."
              required
              maxLength={254}
              value={email}
              onChange={(e) => setEmail(e.currentTarget.value)}
              error={emailError}
              autoComplete="off"
              data-autofocus
            />
            <Radio.Group
              label="Role"
              description="Both roles can use every page of the app except the owner-only area (Members, archiving). Ownership is transferred from the list, not given here."
              value={role}
              onChange={setRole}
              error={roleError}
            >
              <Group gap="lg" mt="xs">
                <Radio value="developer" label="Developer" />
                <Radio value="admin" label="Admin" />
              </Group>
            </Radio.Group>
            {add.error && !emailError && !roleError ? <ErrorAlert error={add.error} /> : null}
            <Group justify="flex-end">
              <Button variant="default" onClick={() => setOpened(false)} disabled={add.isPending}>
                Cancel
              </Button>
              <Button type="submit" loading={add.isPending} disabled={!email.trim()}>
                Send invitation
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </>
  );
}

function RoleCell({ app, member }: { app: App; member: Member }) {
  const queryClient = useQueryClient();
  const update = useMutation({
    ...updateMemberMutation(),
    onSuccess: async (data) => {
      await queryClient.invalidateQueries({ queryKey: listMembersQueryKey({ path: { appId: app.appId } }) });
      notifications.show({
        color: 'green',
        message: `${nameOf(data.content)} is now ${data.content.role === 'admin' ? 'an admin' : 'a developer'}`,
      });
    },
  });
  if (member.role === 'owner') {
    return (
      <Badge color="indigo" variant="light">
        Owner
      </Badge>
    );
  }
  const owner = isOwner(app);
  return (
    <Stack gap={4}>
      <NativeSelect
        aria-label={`Role of ${nameOf(member)}`}
        aria-describedby={owner ? undefined : OWNER_ONLY_REASON_ID}
        data={[
          { value: 'developer', label: 'Developer' },
          { value: 'admin', label: 'Admin' },
        ]}
        value={member.role}
        disabled={!owner || update.isPending}
        onChange={(e) =>
          update.mutate({
            path: { appId: app.appId, memberId: member.memberId },
            body: { role: e.currentTarget.value as InvitedRole },
          })
        }
        size="xs"
        w={130}
      />
      {update.error ? (
        <Text size="xs" c="red" role="alert">
          {fieldErrorOf(update.error, 'role') ?? messageOf(update.error)}
        </Text>
      ) : null}
    </Stack>
  );
}

function MemberActions({ app, member, isSelf }: { app: App; member: Member; isSelf: boolean }) {
  const queryClient = useQueryClient();
  const transfer = useMutation({ ...updateMemberMutation() });
  const remove = useMutation({ ...removeMemberMutation() });
  if (member.role === 'owner') {
    return (
      <Text size="xs" c="dimmed">
        {isSelf ? 'You own this app' : 'Owns this app'}
      </Text>
    );
  }
  const owner = isOwner(app);
  const name = nameOf(member);
  const pending = member.joinedAt === null;
  const describedBy = owner ? undefined : OWNER_ONLY_REASON_ID;
  return (
    <Group gap="xs" wrap="nowrap">
      <ConfirmButton
        label="Make owner"
        color="indigo"
        size="xs"
        disabled={!owner}
        aria-describedby={describedBy}
        aria-label={`Make owner: ${name}`}
        title={`Make ${name} the owner?`}
        message={`${name} becomes the app’s owner and you become an admin, in one step. Only the new owner can manage members, archive the app or give ownership back.`}
        confirmLabel="Transfer ownership"
        onConfirm={async () => {
          await transfer.mutateAsync({
            path: { appId: app.appId, memberId: member.memberId },
            body: { role: 'owner' },
          });
          // The caller's own role changed: every page that checks it must read it again.
          await Promise.all([
            queryClient.invalidateQueries({ queryKey: listMembersQueryKey({ path: { appId: app.appId } }) }),
            queryClient.invalidateQueries({ queryKey: getAppQueryKey({ path: { appId: app.appId } }) }),
            queryClient.invalidateQueries({ queryKey: listAppsQueryKey() }),
          ]);
          notifications.show({ color: 'green', message: `${name} is now the owner; you are an admin` });
        }}
      />
      <ConfirmButton
        label={pending ? 'Cancel invitation' : 'Remove'}
        size="xs"
        disabled={!owner}
        aria-describedby={describedBy}
        aria-label={pending ? `Cancel invitation: ${name}` : `Remove ${name}`}
        title={pending ? `Cancel the invitation of ${name}?` : `Remove ${name} from the app?`}
        message={
          pending
            ? `${name} will not be able to use this app when they sign in.`
            : `${name} loses access to this app at once. Their access to other apps is not affected.`
        }
        confirmLabel={pending ? 'Cancel invitation' : 'Remove member'}
        onConfirm={async () => {
          await remove.mutateAsync({ path: { appId: app.appId, memberId: member.memberId } });
          await queryClient.invalidateQueries({ queryKey: listMembersQueryKey({ path: { appId: app.appId } }) });
          notifications.show({
            color: 'green',
            message: pending ? `The invitation of ${name} was cancelled` : `${name} was removed`,
          });
        }}
      />
    </Group>
  );
}

export function MembersPage() {
  const app = useCurrentApp();
  const session = useOperatorSession();
  const selfId = session.status === 'signedIn' ? session.session.operator.operatorId : undefined;
  const active = app.status === 'active';
  // An archived app answers 404 to this read: say so instead of "not found".
  const members = useQuery({ ...listMembersOptions({ path: { appId: app.appId } }), enabled: active });
  const owner = isOwner(app);
  const ownerEmail = members.data?.content.members.find((m) => m.role === 'owner')?.email;
  return (
    <>
      <PageHeader
        title="Members"
        description="Everyone on the app’s team can see this list. Only the owner invites people, changes roles and removes members."
        actions={<InviteButton app={app} />}
      />
      {!owner ? (
        <Alert
          color="blue"
          variant="light"
          mb="md"
          id={OWNER_ONLY_REASON_ID}
          title="Only the owner can change the team"
        >
          You are {app.role === 'admin' ? 'an admin' : 'a developer'} of this app, so inviting, changing roles and
          removing members are disabled for you.{' '}
          {ownerEmail ? `Ask the owner, ${ownerEmail}, for changes.` : 'Ask the owner for changes.'}
        </Alert>
      ) : null}
      {active ? (
        <QueryState query={members} rows={3}>
          {(data) => (
            <Table.ScrollContainer minWidth={880}>
              <Table verticalSpacing="sm" highlightOnHover>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Member</Table.Th>
                    <Table.Th>Role</Table.Th>
                    <Table.Th>Status</Table.Th>
                    <Table.Th>Invited</Table.Th>
                    <ActionsColumnHeader />
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {data.content.members.map((m) => {
                    const isSelf = m.operatorId === selfId;
                    return (
                      <Table.Tr key={m.memberId}>
                        <Table.Td>
                          <Text size="sm" fw={500} miw={200} style={{ overflowWrap: 'anywhere' }}>
                            {nameOf(m)}
                            {isSelf ? (
                              <Text span size="sm" fw={400} c="dimmed">
                                {' '}
                                (you)
                              </Text>
                            ) : null}
                          </Text>
                        </Table.Td>
                        <Table.Td>
                          <RoleCell app={app} member={m} />
                        </Table.Td>
                        <Table.Td>
                          {m.joinedAt ? (
                            <Text size="sm" style={{ whiteSpace: 'nowrap' }}>
                              Joined {formatDate(m.joinedAt)}
                            </Text>
                          ) : (
                            <Badge color="yellow" variant="dot" style={{ overflow: 'visible', flexShrink: 0 }}>
                              Invitation pending
                            </Badge>
                          )}
                        </Table.Td>
                        <Table.Td style={{ whiteSpace: 'nowrap' }}>{formatDate(m.invitedAt)}</Table.Td>
                        <Table.Td>
                          <MemberActions app={app} member={m} isSelf={isSelf} />
                        </Table.Td>
                      </Table.Tr>
                    );
                  })}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )}
        </QueryState>
      ) : (
        <Text size="sm" c="dimmed">
          An archived app’s team cannot be listed or changed until the owner restores it.
        </Text>
      )}
    </>
  );
}
