// An app's Soroban auth policy: the allowlist of contracts and functions whose authorization entries the service
// signs for users' custodial wallets (POST /v1/tx/sign-auth-entry). Rows are added with the contract read from the
// chain while the operator types its address (getAppContractInterface), so only functions the contract exposes can
// be picked; the service checks them again on save. Rows are turned on and off in place and deleted after a
// confirmation. Every member can change them, as the app's other settings.
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  Alert,
  Badge,
  Button,
  Checkbox,
  Code,
  Group,
  Loader,
  Modal,
  Radio,
  SimpleGrid,
  Stack,
  Switch,
  Table,
  Text,
  TextInput,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import {
  createAppAuthPolicyRowMutation,
  deleteAppAuthPolicyRowMutation,
  getAppContractInterfaceOptions,
  listAppAuthPolicyRowsOptions,
  listAppAuthPolicyRowsQueryKey,
  updateAppAuthPolicyRowMutation,
} from '../../../generated/dashboard/@tanstack/react-query.gen';
import type { AuthPolicyRow } from '../../../generated/dashboard/types.gen';
import { useIdempotencyKeyPerBody } from '../api/idempotency';
import { fieldErrorOf, messageOf, otherFieldErrors } from '../api/errors';
import { ActionsColumnHeader } from '../components/ActionsColumnHeader';
import { ConfirmButton } from '../components/ConfirmButton';
import { EmptyMessage } from '../components/EmptyMessage';
import { EnabledSwitch } from '../components/EnabledSwitch';
import { DialogFormFooter } from '../components/DialogFormFooter';
import { formatDate } from '../components/format';
import { PageHeader } from '../components/PageHeader';
import { QueryState } from '../components/QueryState';
import { useCurrentApp } from '../layout/currentApp';

const ANY = '*';
/** The contract's form (ContractAddress.yaml); the checksum is the service's to check. */
const CONTRACT_FORM = /^C[A-Z2-7]{55}$/;

const rowName = (row: AuthPolicyRow) => row.label || (row.contract === ANY ? 'Any contract' : row.contract);

/** The contract's functions as offered for picking: read from the chain once the address has the right form. */
function ContractFunctions({
  appId,
  contract,
  selected,
  onChange,
  error,
}: {
  appId: string;
  contract: string;
  selected: string[];
  onChange: (functions: string[]) => void;
  error: string | undefined;
}) {
  const found = useQuery({
    ...getAppContractInterfaceOptions({ path: { appId, contractId: contract } }),
    enabled: CONTRACT_FORM.test(contract),
    retry: false,
    staleTime: 60_000,
  });
  if (!CONTRACT_FORM.test(contract)) {
    return (
      <Text size="sm" c="dimmed">
        Enter the contract’s address to see its functions.
      </Text>
    );
  }
  if (found.isPending) {
    return (
      <Group gap="xs" aria-live="polite">
        <Loader size="xs" aria-hidden />
        <Text size="sm">Reading the contract from the network…</Text>
      </Group>
    );
  }
  if (found.isError) {
    return (
      <Text size="sm" c="red" role="alert">
        {messageOf(found.error)}
      </Text>
    );
  }
  const { kind, functions } = found.data.content;
  const any = selected.length === 1 && selected[0] === ANY;
  return (
    <Stack gap="xs">
      <Group gap="xs">
        <Badge variant="light" color={kind === 'stellar_asset' ? 'teal' : 'grape'}>
          {kind === 'stellar_asset' ? 'Stellar Asset Contract' : 'WASM contract'}
        </Badge>
        <Text size="sm" c="dimmed">
          {functions.length} function{functions.length === 1 ? '' : 's'}
        </Text>
      </Group>
      <Checkbox
        label="Any function of this contract"
        description="Also allows functions added by a later upgrade of the contract."
        checked={any}
        onChange={(e) => onChange(e.currentTarget.checked ? [ANY] : [])}
      />
      {!any ? (
        <Checkbox.Group label="Functions" value={selected} onChange={onChange} error={error}>
          <SimpleGrid cols={{ base: 1, xs: 2, sm: 3 }} spacing={6} mt="xs">
            {functions.map((name) => (
              <Checkbox key={name} value={name} label={<Code>{name}</Code>} />
            ))}
          </SimpleGrid>
        </Checkbox.Group>
      ) : null}
    </Stack>
  );
}

function AddRowButton({ appId, disabled }: { appId: string; disabled: boolean }) {
  const [opened, setOpened] = useState(false);
  const [scope, setScope] = useState<'contract' | 'any'>('contract');
  const [contract, setContract] = useState('');
  const [functions, setFunctions] = useState<string[]>([]);
  const [label, setLabel] = useState('');
  const [enabled, setEnabled] = useState(true);
  // A retry of the same row after a lost answer does not add it twice; a corrected form is a new request.
  const idempotency = useIdempotencyKeyPerBody();
  const queryClient = useQueryClient();
  const create = useMutation({
    ...createAppAuthPolicyRowMutation(),
    onSuccess: async (data) => {
      await queryClient.invalidateQueries({ queryKey: listAppAuthPolicyRowsQueryKey({ path: { appId } }) });
      setOpened(false);
      notifications.show({ color: 'green', message: `Row “${rowName(data.content)}” added` });
    },
  });
  const open = () => {
    setScope('contract');
    setContract('');
    setFunctions([]);
    setLabel('');
    setEnabled(true);
    idempotency.reset();
    create.reset();
    setOpened(true);
  };
  const trimmed = contract.trim();
  const body = {
    contract: scope === 'any' ? ANY : trimmed,
    functions: scope === 'any' ? [ANY] : functions,
    ...(label.trim() ? { label: label.trim() } : {}),
    enabled,
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate({ path: { appId }, body, headers: { 'Idempotency-Key': idempotency.keyFor(body) } });
  };
  const contractError =
    fieldErrorOf(create.error, 'contract') ??
    (trimmed && !CONTRACT_FORM.test(trimmed) ? 'A contract address: C followed by 55 letters and digits.' : undefined);
  const functionsError = fieldErrorOf(create.error, 'functions', { withNested: true });
  const labelError = fieldErrorOf(create.error, 'label');
  const shown = (f: string) => ['contract', 'label'].includes(f) || f === 'functions' || f.startsWith('functions.');
  const others = otherFieldErrors(create.error, shown);
  const explained = contractError || functionsError || labelError || others.length > 0;
  const ready = scope === 'any' || (CONTRACT_FORM.test(trimmed) && functions.length > 0);
  return (
    <>
      <Button onClick={open} disabled={disabled}>
        Add row
      </Button>
      <Modal
        opened={opened}
        onClose={() => !create.isPending && setOpened(false)}
        title="Add an allowlist row"
        size="lg"
        centered
      >
        <form onSubmit={submit} noValidate>
          <Stack>
            <Radio.Group
              label="Contract"
              value={scope}
              onChange={(v) => {
                setScope(v);
                create.reset();
              }}
            >
              <Group gap="lg" mt="xs">
                <Radio value="contract" label="One contract" />
                <Radio value="any" label="Any contract" />
              </Group>
            </Radio.Group>
            {scope === 'contract' ? (
              <>
                <TextInput
                  label="Contract address"
                  description="The contract on this app’s network whose functions users may authorize."
                  placeholder="CAS3J7GYLGXMF6TDJBBYYSE3HQ6BBSMLNUQ34T6TZMYMW2EVH34XOWMA"
                  value={contract}
                  onChange={(e) => {
                    setContract(e.currentTarget.value);
                    setFunctions([]);
                    create.reset();
                  }}
                  error={contractError}
                  maxLength={56}
                  autoComplete="off"
                  spellCheck={false}
                  data-autofocus
                />
                <ContractFunctions
                  appId={appId}
                  contract={trimmed}
                  selected={functions}
                  onChange={(f) => {
                    setFunctions(f);
                    create.reset();
                  }}
                  error={functionsError}
                />
              </>
            ) : (
              <Alert color="yellow" variant="light" title="Any function of any contract">
                Users’ wallets will sign authorization for every contract call a client asks for. Use it only when your
                own backend decides what users sign; a row for one contract is safer.
              </Alert>
            )}
            <TextInput
              label="Label"
              description="Optional: what the row is for, shown in the list and the audit log."
              maxLength={100}
              value={label}
              onChange={(e) => setLabel(e.currentTarget.value)}
              error={labelError}
            />
            <Switch
              label="Enabled"
              description="A disabled row is kept but allows nothing."
              checked={enabled}
              onChange={(e) => setEnabled(e.currentTarget.checked)}
            />
            <DialogFormFooter
              error={create.error}
              explained={Boolean(explained)}
              others={others}
              pending={create.isPending}
              onCancel={() => setOpened(false)}
              submitLabel="Add row"
              submitDisabled={!ready}
            />
          </Stack>
        </form>
      </Modal>
    </>
  );
}

function RowEnabledSwitch({ appId, row }: { appId: string; row: AuthPolicyRow }) {
  const queryClient = useQueryClient();
  const update = useMutation({
    ...updateAppAuthPolicyRowMutation(),
    onSuccess: async (data) => {
      await queryClient.invalidateQueries({ queryKey: listAppAuthPolicyRowsQueryKey({ path: { appId } }) });
      notifications.show({
        color: 'green',
        message: `“${rowName(data.content)}” is ${data.content.enabled ? 'enabled' : 'disabled'}`,
      });
    },
  });
  return (
    <EnabledSwitch
      name={rowName(row)}
      checked={row.enabled}
      pending={update.isPending}
      error={update.error}
      onChange={(enabled) => update.mutate({ path: { appId, rowId: row.rowId }, body: { enabled } })}
    />
  );
}

function DeleteRowButton({ appId, row }: { appId: string; row: AuthPolicyRow }) {
  const queryClient = useQueryClient();
  const remove = useMutation({ ...deleteAppAuthPolicyRowMutation() });
  const name = rowName(row);
  return (
    <ConfirmButton
      label="Delete"
      size="xs"
      aria-label={`Delete row ${name}`}
      title={`Delete the row “${name}”?`}
      message="Authorization entries that only this row allowed are refused from the next request. Disabling the row instead keeps it for later."
      confirmLabel="Delete row"
      onConfirm={async () => {
        await remove.mutateAsync({ path: { appId, rowId: row.rowId } });
        await queryClient.invalidateQueries({ queryKey: listAppAuthPolicyRowsQueryKey({ path: { appId } }) });
        notifications.show({ color: 'green', message: `Row “${name}” deleted` });
      }}
    />
  );
}

function RowsTable({ appId, rows }: { appId: string; rows: AuthPolicyRow[] }) {
  if (rows.length === 0) {
    return (
      <EmptyMessage title="No rows yet">
        With no enabled row, every authorization entry your users’ clients send is refused (SOROBAN_AUTH_NO_POLICY). Add
        a row for each contract and the functions users may authorize.
      </EmptyMessage>
    );
  }
  return (
    <Table.ScrollContainer minWidth={860}>
      <Table verticalSpacing="sm" highlightOnHover>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Label</Table.Th>
            <Table.Th>Contract</Table.Th>
            <Table.Th>Functions</Table.Th>
            <Table.Th>Enabled</Table.Th>
            <Table.Th>Changed</Table.Th>
            <ActionsColumnHeader />
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((row) => (
            <Table.Tr key={row.rowId}>
              <Table.Td>
                <Text size="sm" fw={500} c={row.label ? undefined : 'dimmed'}>
                  {row.label || 'No label'}
                </Text>
              </Table.Td>
              <Table.Td>
                {row.contract === ANY ? (
                  <Badge color="yellow" variant="light">
                    Any contract
                  </Badge>
                ) : (
                  <Code style={{ wordBreak: 'break-all' }}>{row.contract}</Code>
                )}
              </Table.Td>
              <Table.Td>
                <Group gap={4}>
                  {row.functions.length === 1 && row.functions[0] === ANY ? (
                    <Badge color="yellow" variant="light">
                      Any function
                    </Badge>
                  ) : (
                    row.functions.map((f) => (
                      <Badge key={f} variant="outline" color="gray" tt="none">
                        {f}
                      </Badge>
                    ))
                  )}
                </Group>
              </Table.Td>
              <Table.Td>
                <RowEnabledSwitch appId={appId} row={row} />
              </Table.Td>
              <Table.Td style={{ whiteSpace: 'nowrap' }}>{formatDate(row.updatedAt)}</Table.Td>
              <Table.Td>
                <DeleteRowButton appId={appId} row={row} />
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

export function AuthPolicyPage() {
  const app = useCurrentApp();
  const active = app.status === 'active';
  // An archived app answers 404 to this read: say so instead of "not found".
  const rows = useQuery({ ...listAppAuthPolicyRowsOptions({ path: { appId: app.appId } }), enabled: active });
  return (
    <>
      <PageHeader
        title="Auth policy"
        description={`Which Soroban contract calls your users’ wallets may authorize on ${app.network}. The service signs an authorization entry only when the call and every call inside it match an enabled row. Every member of the app can change the rows.`}
        actions={<AddRowButton appId={app.appId} disabled={!active} />}
      />
      {active ? (
        <QueryState query={rows} rows={3}>
          {(data) => <RowsTable appId={app.appId} rows={data.content.rows} />}
        </QueryState>
      ) : (
        <Text size="sm" c="dimmed">
          An archived app’s auth policy cannot be read or changed until the owner restores it.
        </Text>
      )}
    </>
  );
}
