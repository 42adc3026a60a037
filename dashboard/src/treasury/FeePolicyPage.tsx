// The fee-bump policy (Fee policy): the rules the service checks before the gas wallet pays a user transaction's fee,
// edited as a whole; and a dry run that says whether a described transaction would be sponsored now, and why not,
// under the saved policy or the unsaved settings in the form.
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  Alert,
  Anchor,
  Autocomplete,
  Button,
  Checkbox,
  Code,
  Fieldset,
  Group,
  List,
  NumberInput,
  Paper,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  TagsInput,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconCircleCheck, IconCircleX, IconPlus, IconTrash } from '@tabler/icons-react';
import {
  getFeePolicyOptions,
  getFeePolicyQueryKey,
  previewFeePolicyMutation,
  updateFeePolicyMutation,
} from '../../../generated/dashboard/@tanstack/react-query.gen';
import type { FeePolicy, FeePolicyDryRun, FeePolicyDryRunOperation } from '../../../generated/dashboard/types.gen';
import { failureOf, fieldErrorOf, otherFieldErrors } from '../api/errors';
import { ErrorAlert } from '../components/ErrorAlert';
import { trimAmount } from '../components/format';
import { PageHeader } from '../components/PageHeader';
import { QueryState } from '../components/QueryState';
import { useCurrentApp } from '../layout/currentApp';
import { assetLabel } from './assets';

// ---------------------------------------------------------------------------------------------------------------
// Field errors

// ---------------------------------------------------------------------------------------------------------------
// The policy form

interface PolicyDraft {
  maxFeePerTxXlm: string;
  capped: boolean;
  dailyOpsCap: string | number;
  approvedAssets: string[];
  gasMinimumBalanceXlm: string;
  allowAccountMerge: boolean;
  accountMergeDestinations: string[];
}

const POLICY_FIELDS = [
  'maxFeePerTxXlm',
  'dailyOpsCap',
  'approvedAssets',
  'gasMinimumBalanceXlm',
  'allowAccountMerge',
  'accountMergeDestinations',
] as const;

function draftOf(policy: FeePolicy): PolicyDraft {
  return {
    maxFeePerTxXlm: trimAmount(policy.maxFeePerTxXlm),
    capped: policy.dailyOpsCap !== null,
    dailyOpsCap: policy.dailyOpsCap ?? '',
    approvedAssets: policy.approvedAssets,
    gasMinimumBalanceXlm: trimAmount(policy.gasMinimumBalanceXlm),
    allowAccountMerge: policy.allowAccountMerge,
    accountMergeDestinations: policy.accountMergeDestinations,
  };
}

function policyOf(draft: PolicyDraft): FeePolicy {
  return {
    maxFeePerTxXlm: draft.maxFeePerTxXlm.trim(),
    // An operation count, not money: a plain integer is exact.
    dailyOpsCap: draft.capped ? Number(draft.dailyOpsCap === '' ? Number.NaN : draft.dailyOpsCap) : null,
    approvedAssets: draft.approvedAssets,
    gasMinimumBalanceXlm: draft.gasMinimumBalanceXlm.trim(),
    allowAccountMerge: draft.allowAccountMerge,
    accountMergeDestinations: draft.accountMergeDestinations,
  };
}

/** Whether the form says something else than the saved policy (list order aside). */
function differs(draft: PolicyDraft, saved: FeePolicy): boolean {
  const norm = (p: FeePolicy) =>
    JSON.stringify({
      ...p,
      maxFeePerTxXlm: trimAmount(p.maxFeePerTxXlm),
      gasMinimumBalanceXlm: trimAmount(p.gasMinimumBalanceXlm),
      approvedAssets: [...p.approvedAssets].sort(),
      accountMergeDestinations: [...p.accountMergeDestinations].sort(),
    });
  return norm(policyOf(draft)) !== norm(saved);
}

/** The draft's own mistakes, found before asking the service (it checks everything again). */
function draftProblems(draft: PolicyDraft): Partial<Record<(typeof POLICY_FIELDS)[number], string>> {
  const out: Partial<Record<(typeof POLICY_FIELDS)[number], string>> = {};
  const amount = /^(0|[1-9][0-9]{0,11})(\.[0-9]{1,7})?$/;
  if (!amount.test(draft.maxFeePerTxXlm.trim())) out.maxFeePerTxXlm = 'Enter an amount in XLM, e.g. 10 or 0.5';
  if (!amount.test(draft.gasMinimumBalanceXlm.trim())) out.gasMinimumBalanceXlm = 'Enter an amount in XLM, e.g. 10';
  if (draft.capped && (draft.dailyOpsCap === '' || !Number.isInteger(Number(draft.dailyOpsCap))))
    out.dailyOpsCap = 'Enter a whole number of operations, or turn the cap off';
  return out;
}

function PolicyForm({
  saved,
  draft,
  setDraft,
  serverError,
  onSaved,
  onSaveError,
}: {
  saved: FeePolicy;
  draft: PolicyDraft;
  setDraft: (update: (draft: PolicyDraft) => PolicyDraft) => void;
  /** The last failure that concerns the form's fields (a save, or a dry run of the draft, its fields under policy.). */
  serverError: { error: unknown; prefix: string } | undefined;
  onSaved: (policy: FeePolicy) => void;
  onSaveError: (error: unknown) => void;
}) {
  const app = useCurrentApp();
  const queryClient = useQueryClient();
  const [problems, setProblems] = useState<ReturnType<typeof draftProblems>>({});
  const save = useMutation({
    ...updateFeePolicyMutation(),
    onSuccess: async (data) => {
      const key = getFeePolicyQueryKey({ path: { appId: app.appId } });
      queryClient.setQueryData(key, { ...data, code: 'FEE_POLICY_FETCHED' as const });
      await queryClient.invalidateQueries({ queryKey: key });
      onSaved(data.content);
      notifications.show({
        color: 'green',
        message: 'The fee policy is saved. It applies to every fee-bump from now on.',
      });
    },
    onError: onSaveError,
  });
  const dirty = differs(draft, saved);
  const errorOf = (field: (typeof POLICY_FIELDS)[number]) =>
    problems[field] ??
    (serverError ? fieldErrorOf(serverError.error, `${serverError.prefix}${field}`, { withNested: true }) : undefined);
  const set = <K extends keyof PolicyDraft>(field: K, value: PolicyDraft[K]) => {
    setProblems((p) => ({ ...p, [field]: undefined }));
    setDraft((d) => ({ ...d, [field]: value }));
  };

  const assetOptions = [...new Set(['native', ...app.assets, ...saved.approvedAssets])];
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const found = draftProblems(draft);
    setProblems(found);
    if (Object.keys(found).length) return;
    save.mutate({ path: { appId: app.appId }, body: policyOf(draft) });
  };
  const generalSaveError =
    save.error && !POLICY_FIELDS.some((f) => fieldErrorOf(save.error, f, { withNested: true })) ? (
      <ErrorAlert error={save.error} />
    ) : null;

  return (
    <Paper withBorder radius="md" p="lg" component="form" onSubmit={submit} noValidate aria-labelledby="policy-title">
      <Stack gap="md">
        <div>
          <Title order={2} size="h3" id="policy-title">
            Policy
          </Title>
          <Text size="sm" c="dimmed">
            Checked on the server before every fee-bump is signed; a transaction that breaks a rule is not sponsored and
            the user’s app gets the rule’s error code.
          </Text>
        </div>
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <TextInput
            label="Max fee per transaction (XLM)"
            description="The largest fee the gas wallet pays for one transaction: 0.01 to 100 XLM."
            inputMode="decimal"
            required
            value={draft.maxFeePerTxXlm}
            onChange={(e) => set('maxFeePerTxXlm', e.currentTarget.value)}
            error={errorOf('maxFeePerTxXlm')}
          />
          <TextInput
            label="Gas wallet minimum (XLM)"
            description="Sponsorship pauses while the gas wallet holds this much XLM or less."
            inputMode="decimal"
            required
            value={draft.gasMinimumBalanceXlm}
            onChange={(e) => set('gasMinimumBalanceXlm', e.currentTarget.value)}
            error={errorOf('gasMinimumBalanceXlm')}
          />
        </SimpleGrid>
        <Stack gap="xs">
          <Switch
            label="Cap each user’s sponsored operations per day (UTC)"
            checked={draft.capped}
            onChange={(e) => set('capped', e.currentTarget.checked)}
          />
          {draft.capped ? (
            <NumberInput
              label="Daily operations cap per user"
              description="Sponsored operations one user may make in a UTC day: 1 to 1,000,000."
              min={1}
              max={1_000_000}
              allowDecimal={false}
              allowNegative={false}
              thousandSeparator=","
              maw={320}
              value={draft.dailyOpsCap}
              onChange={(value) => set('dailyOpsCap', value)}
              error={errorOf('dailyOpsCap')}
            />
          ) : (
            <Text size="sm" c="dimmed">
              No cap: users may make any number of sponsored operations a day.
              {errorOf('dailyOpsCap') ? ` ${errorOf('dailyOpsCap')}` : ''}
            </Text>
          )}
        </Stack>
        <Checkbox.Group
          label="Approved assets"
          description="Assets a sponsored transaction may move. None ticked: XLM and any of the app’s configured assets."
          value={draft.approvedAssets}
          onChange={(value) =>
            set(
              'approvedAssets',
              assetOptions.filter((a) => value.includes(a)),
            )
          }
          error={errorOf('approvedAssets')}
        >
          <Stack gap={6} mt="xs">
            {assetOptions.map((asset) => (
              <Checkbox
                key={asset}
                value={asset}
                label={
                  asset === 'native' || app.assets.includes(asset)
                    ? assetLabel(asset)
                    : `${assetLabel(asset)}: no longer configured for the app, untick it to save`
                }
              />
            ))}
          </Stack>
        </Checkbox.Group>
        <Stack gap="xs">
          <Switch
            label="Allow accountMerge operations"
            description="Merging an account sends all its XLM away and deletes it; refused unless allowed."
            checked={draft.allowAccountMerge}
            onChange={(e) => set('allowAccountMerge', e.currentTarget.checked)}
          />
          <TagsInput
            label="Allowed accountMerge destinations"
            description={
              draft.allowAccountMerge
                ? 'Stellar addresses (G…) a merge may send to; none: any destination. Press Enter after each.'
                : 'Kept but not used while accountMerge is not allowed.'
            }
            placeholder={draft.accountMergeDestinations.length ? undefined : 'G…'}
            disabled={!draft.allowAccountMerge}
            value={draft.accountMergeDestinations}
            onChange={(value) =>
              set(
                'accountMergeDestinations',
                value.map((v) => v.trim()),
              )
            }
            maxTags={50}
            splitChars={[',', ' ']}
            clearable
            error={errorOf('accountMergeDestinations')}
          />
        </Stack>
        {generalSaveError}
        <Group gap="sm" wrap="wrap">
          <Button type="submit" loading={save.isPending} disabled={!dirty}>
            Save policy
          </Button>
          <Button
            variant="default"
            disabled={!dirty || save.isPending}
            onClick={() => {
              setProblems({});
              save.reset();
              setDraft(() => draftOf(saved));
            }}
          >
            Discard changes
          </Button>
          <Text size="sm" c="dimmed" aria-live="polite">
            {dirty ? 'Unsaved changes' : 'Saved'}
          </Text>
        </Group>
      </Stack>
    </Paper>
  );
}

// ---------------------------------------------------------------------------------------------------------------
// The dry run

const OPERATION_TYPES: { group: string; items: { value: FeePolicyDryRunOperation['type']; label: string }[] }[] = [
  {
    group: 'Move assets',
    items: [
      { value: 'payment', label: 'payment' },
      { value: 'pathPaymentStrictSend', label: 'pathPaymentStrictSend' },
      { value: 'pathPaymentStrictReceive', label: 'pathPaymentStrictReceive' },
      { value: 'changeTrust', label: 'changeTrust (add or remove a trustline)' },
      { value: 'manageSellOffer', label: 'manageSellOffer' },
      { value: 'manageBuyOffer', label: 'manageBuyOffer' },
      { value: 'createPassiveSellOffer', label: 'createPassiveSellOffer' },
      { value: 'createAccount', label: 'createAccount (moves XLM)' },
      { value: 'accountMerge', label: 'accountMerge (moves all XLM)' },
    ],
  },
  {
    group: 'Move no asset',
    items: [
      { value: 'setOptions', label: 'setOptions' },
      { value: 'manageData', label: 'manageData' },
      { value: 'bumpSequence', label: 'bumpSequence' },
      { value: 'beginSponsoringFutureReserves', label: 'beginSponsoringFutureReserves' },
      { value: 'endSponsoringFutureReserves', label: 'endSponsoringFutureReserves' },
    ],
  },
];

type OpType = FeePolicyDryRunOperation['type'];

interface OperationDraft {
  key: string;
  type: OpType;
  asset: string;
  sendAsset: string;
  destAsset: string;
  path: string[];
  selling: string;
  buying: string;
  destination: string;
}

/** The inputs each operation type needs, with their labels. */
const OPERATION_FIELDS: Record<
  OpType,
  { field: 'asset' | 'sendAsset' | 'destAsset' | 'selling' | 'buying'; label: string }[]
> = {
  payment: [{ field: 'asset', label: 'Asset' }],
  changeTrust: [{ field: 'asset', label: 'Asset' }],
  pathPaymentStrictSend: [
    { field: 'sendAsset', label: 'Send asset' },
    { field: 'destAsset', label: 'Destination asset' },
  ],
  pathPaymentStrictReceive: [
    { field: 'sendAsset', label: 'Send asset' },
    { field: 'destAsset', label: 'Destination asset' },
  ],
  manageSellOffer: [
    { field: 'selling', label: 'Selling' },
    { field: 'buying', label: 'Buying' },
  ],
  manageBuyOffer: [
    { field: 'selling', label: 'Selling' },
    { field: 'buying', label: 'Buying' },
  ],
  createPassiveSellOffer: [
    { field: 'selling', label: 'Selling' },
    { field: 'buying', label: 'Buying' },
  ],
  accountMerge: [],
  createAccount: [],
  setOptions: [],
  manageData: [],
  bumpSequence: [],
  beginSponsoringFutureReserves: [],
  endSponsoringFutureReserves: [],
};

const ASSET = /^(native|[A-Za-z0-9]{1,12}:G[A-Z2-7]{55})$/;
const ACCOUNT = /^G[A-Z2-7]{55}$/;

const isPathPayment = (type: OpType) => type === 'pathPaymentStrictSend' || type === 'pathPaymentStrictReceive';

function newOperation(asset: string): OperationDraft {
  return {
    key: crypto.randomUUID(),
    type: 'payment',
    asset,
    sendAsset: asset,
    destAsset: asset,
    path: [],
    selling: 'native',
    buying: asset,
    destination: '',
  };
}

function operationOf(op: OperationDraft): FeePolicyDryRunOperation {
  switch (op.type) {
    case 'payment':
    case 'changeTrust':
      return { type: op.type, asset: op.asset.trim() };
    case 'pathPaymentStrictSend':
    case 'pathPaymentStrictReceive':
      return {
        type: op.type,
        sendAsset: op.sendAsset.trim(),
        destAsset: op.destAsset.trim(),
        ...(op.path.length ? { path: op.path } : {}),
      };
    case 'manageSellOffer':
    case 'manageBuyOffer':
    case 'createPassiveSellOffer':
      return { type: op.type, selling: op.selling.trim(), buying: op.buying.trim() };
    case 'accountMerge':
      return { type: op.type, destination: op.destination.trim() };
    default:
      return { type: op.type };
  }
}

/** XLM for a count of stroops, exactly (1 XLM = 10,000,000 stroops). */
function xlmOfStroops(stroops: number): string {
  const digits = String(stroops).padStart(8, '0');
  const whole = digits.slice(0, -7).replace(/^0+(?=\d)/, '');
  const fraction = digits.slice(-7).replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole;
}

/** The fee-bump fee at the network's 100-stroop base fee: 100 x (operations + 1) stroops. */
const baseFeeXlm = (operations: number) => xlmOfStroops(100 * (operations + 1));

const REASON_RULES: Record<FeePolicyDryRun['reasons'][number]['code'], string> = {
  TX_POLICY_OPERATION_NOT_ALLOWED: 'Operation not allowed',
  TX_POLICY_ASSET_NOT_APPROVED: 'Asset not approved',
  TX_POLICY_MAX_FEE_EXCEEDED: 'Fee above the maximum',
  TX_POLICY_DAILY_OPS_CAP_EXCEEDED: 'Daily operations cap reached',
  TX_POLICY_GAS_BALANCE_LOW: 'Gas wallet too low',
};

function DryRunResult({
  result,
  judged,
  userId,
}: {
  result: FeePolicyDryRun;
  judged: 'saved' | 'draft';
  userId?: string;
}) {
  const allowed = result.decision === 'allow';
  return (
    <Alert
      color={allowed ? 'green' : 'red'}
      variant="light"
      icon={allowed ? <IconCircleCheck size={20} /> : <IconCircleX size={20} />}
      title={
        allowed
          ? 'Allowed: the gas wallet would sponsor this transaction'
          : `Denied: the gas wallet would not sponsor this transaction (${result.reasons.length} ${result.reasons.length === 1 ? 'reason' : 'reasons'})`
      }
      aria-live="polite"
    >
      <Stack gap="xs">
        {result.reasons.length ? (
          <List size="sm" spacing={6}>
            {result.reasons.map((reason) => (
              <List.Item key={reason.code}>
                <Text size="sm" fw={600} span>
                  {REASON_RULES[reason.code]}
                </Text>{' '}
                <Code>{reason.code}</Code>
                <Text size="sm">{reason.message}</Text>
              </List.Item>
            ))}
          </List>
        ) : null}
        <Text size="xs" c="dimmed">
          Judged against {judged === 'draft' ? 'the unsaved settings in the form' : 'the saved policy'} (max fee{' '}
          {trimAmount(result.policy.maxFeePerTxXlm)} XLM). Gas wallet balance now:{' '}
          {result.gasBalanceXlm === null
            ? 'no account on the network yet'
            : `${trimAmount(result.gasBalanceXlm)} XLM (minimum ${trimAmount(result.policy.gasMinimumBalanceXlm)} XLM)`}
          .{' '}
          {userId
            ? `Operations already sponsored today (UTC) for ${userId}: ${result.opsToday}${result.policy.dailyOpsCap === null ? ' (no cap)' : ` of ${result.policy.dailyOpsCap}`}.`
            : 'No user given: the daily cap counts only this transaction.'}
        </Text>
      </Stack>
    </Alert>
  );
}

function DryRunPanel({
  draft,
  dirty,
  onDraftError,
}: {
  draft: PolicyDraft;
  dirty: boolean;
  /** A dry run of the draft failed on its fields: the form shows them beside the fields. */
  onDraftError: (error: unknown) => void;
}) {
  const app = useCurrentApp();
  const suggestion = app.assets[0] ?? 'native';
  const [operations, setOperations] = useState<OperationDraft[]>(() => [newOperation(suggestion)]);
  const [feeXlm, setFeeXlm] = useState<string | null>(null);
  const [userId, setUserId] = useState('');
  const [missing, setMissing] = useState<Record<string, string>>({});
  const preview = useMutation({
    ...previewFeePolicyMutation(),
    onError: (error, variables) => {
      if (variables.body.policy) onDraftError(error);
    },
  });
  const fee = feeXlm ?? baseFeeXlm(operations.length);
  const assetData = [...new Set(['native', ...app.assets])];

  const update = (key: string, change: Partial<OperationDraft>) =>
    setOperations((ops) => ops.map((op) => (op.key === key ? { ...op, ...change } : op)));

  const run = (withDraft: boolean) => {
    const found: Record<string, string> = {};
    // Checked here because the service's answer for a malformed operation lists every operation type it fails.
    operations.forEach((op, i) => {
      for (const { field } of OPERATION_FIELDS[op.type])
        if (!ASSET.test(op[field].trim())) found[`${i}.${field}`] = 'Enter native (XLM) or CODE:ISSUER';
      if (isPathPayment(op.type))
        for (const asset of op.path)
          if (!ASSET.test(asset)) found[`${i}.path`] = `${asset} is not native or CODE:ISSUER`;
      if (op.type === 'accountMerge' && !ACCOUNT.test(op.destination.trim()))
        found[`${i}.destination`] = 'Enter a Stellar address: G followed by 55 letters and digits';
    });
    setMissing(found);
    if (Object.keys(found).length) {
      preview.reset();
      return;
    }
    preview.mutate({
      path: { appId: app.appId },
      body: {
        ...(withDraft ? { policy: policyOf(draft) } : {}),
        transaction: { operations: operations.map(operationOf), feeXlm: fee.trim() },
        ...(userId.trim() ? { userId: userId.trim() } : {}),
      },
    });
  };

  const opError = (i: number, field: string) =>
    missing[`${i}.${field}`] ??
    fieldErrorOf(preview.error, `transaction.operations.${i}.${field}`, { withNested: true });
  // A malformed operation fails every branch of the contract's oneOf: its type is only to blame when nothing else is.
  const typeError = (i: number, type: OpType) =>
    [...OPERATION_FIELDS[type].map((f) => f.field), 'destination', 'path'].some((f) => opError(i, f))
      ? undefined
      : fieldErrorOf(preview.error, `transaction.operations.${i}.type`, { withNested: true });
  const shownField = (field: string) =>
    field.startsWith('policy.') ||
    field === 'userId' ||
    field === 'transaction.feeXlm' ||
    /^transaction\.operations\.\d+\.(type|asset|sendAsset|destAsset|path|selling|buying|destination)(\.|$)/.test(field);
  const userIdError =
    fieldErrorOf(preview.error, 'userId', { withNested: true }) ??
    (failureOf(preview.error).code === 'USER_NOT_FOUND' ? 'No user with this id in the app' : undefined);
  const leftovers = preview.error ? otherFieldErrors(preview.error, shownField) : [];
  const judged = preview.variables?.body.policy ? 'draft' : 'saved';

  return (
    <Paper withBorder radius="md" p="lg" aria-labelledby="dry-run-title">
      <Stack gap="md">
        <div>
          <Title order={2} size="h3" id="dry-run-title">
            Dry run
          </Title>
          <Text size="sm" c="dimmed">
            Describe a transaction and see whether the gas wallet would sponsor it now, with every rule it breaks.
            Nothing is signed, sent or stored.
          </Text>
        </div>
        <Stack gap="sm">
          {operations.map((op, i) => (
            <Fieldset key={op.key} legend={`Operation ${i + 1}`} radius="sm" p="sm">
              <Stack gap="xs">
                {operations.length > 1 ? (
                  <Group justify="flex-end" mt={-8}>
                    <Button
                      variant="subtle"
                      color="red"
                      size="compact-xs"
                      leftSection={<IconTrash size={14} />}
                      aria-label={`Remove operation ${i + 1}`}
                      onClick={() => setOperations((ops) => ops.filter((o) => o.key !== op.key))}
                    >
                      Remove
                    </Button>
                  </Group>
                ) : null}
                <SimpleGrid cols={{ base: 1, sm: 2 }}>
                  <Select
                    label="Operation type"
                    data={OPERATION_TYPES}
                    value={op.type}
                    onChange={(value) => value && update(op.key, { type: value })}
                    allowDeselect={false}
                    searchable
                    error={typeError(i, op.type)}
                    comboboxProps={{ withinPortal: true }}
                  />
                  {OPERATION_FIELDS[op.type].map(({ field, label }) => (
                    <Autocomplete
                      key={field}
                      label={label}
                      description="native (XLM) or CODE:ISSUER"
                      data={assetData}
                      value={op[field]}
                      onChange={(value) => update(op.key, { [field]: value })}
                      error={opError(i, field)}
                      comboboxProps={{ withinPortal: true }}
                    />
                  ))}
                  {op.type === 'accountMerge' ? (
                    <TextInput
                      label="Destination"
                      description="The G-address the account would merge into"
                      value={op.destination}
                      onChange={(e) => update(op.key, { destination: e.currentTarget.value })}
                      error={opError(i, 'destination')}
                    />
                  ) : null}
                </SimpleGrid>
                {isPathPayment(op.type) ? (
                  <TagsInput
                    label="Path (optional)"
                    description="Assets the payment passes through, up to 5. Press Enter after each."
                    data={assetData}
                    maxTags={5}
                    value={op.path}
                    onChange={(value) => update(op.key, { path: value })}
                    error={opError(i, 'path')}
                    comboboxProps={{ withinPortal: true }}
                  />
                ) : null}
              </Stack>
            </Fieldset>
          ))}
          <Group>
            <Button
              variant="light"
              size="xs"
              leftSection={<IconPlus size={14} />}
              disabled={operations.length >= 100}
              onClick={() => setOperations((ops) => [...ops, newOperation(suggestion)])}
            >
              Add operation
            </Button>
          </Group>
        </Stack>
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <TextInput
            label="Fee in XLM"
            description={
              <>
                The fee-bump fee the gas wallet would pay: fee per operation × (operations + 1).{' '}
                {feeXlm !== null ? (
                  <Anchor component="button" type="button" size="xs" onClick={() => setFeeXlm(null)}>
                    Use the base fee ({baseFeeXlm(operations.length)} XLM)
                  </Anchor>
                ) : (
                  'Now: the 100-stroop base fee.'
                )}
              </>
            }
            inputMode="decimal"
            value={fee}
            onChange={(e) => setFeeXlm(e.currentTarget.value)}
            error={fieldErrorOf(preview.error, 'transaction.feeXlm', { withNested: true })}
          />
          <TextInput
            label="User id (optional)"
            description="A user whose operations already sponsored today count towards the daily cap."
            placeholder="usr_…"
            value={userId}
            onChange={(e) => setUserId(e.currentTarget.value)}
            error={userIdError}
          />
        </SimpleGrid>
        <Group gap="sm" wrap="wrap">
          <Button onClick={() => run(false)} loading={preview.isPending && !preview.variables?.body.policy}>
            Run dry run
          </Button>
          {dirty ? (
            <Button
              variant="light"
              onClick={() => run(true)}
              loading={preview.isPending && Boolean(preview.variables?.body.policy)}
            >
              Dry run with these (unsaved) settings
            </Button>
          ) : null}
          <Text size="xs" c="dimmed">
            {dirty
              ? '“Run dry run” judges the saved policy; the other button judges the form’s unsaved settings.'
              : 'Judges the saved policy. Change the settings above to try them before saving.'}
          </Text>
        </Group>
        {preview.error && failureOf(preview.error).code !== 'USER_NOT_FOUND' ? (
          <Stack gap="xs">
            <ErrorAlert
              error={preview.error}
              title={
                failureOf(preview.error).code === 'VALIDATION_ERROR'
                  ? 'The dry run did not run: fix the fields with a message beside them'
                  : 'The dry run did not run'
              }
            />
            {leftovers.length ? (
              <List size="sm">
                {leftovers.map((line) => (
                  <List.Item key={line}>{line}</List.Item>
                ))}
              </List>
            ) : null}
          </Stack>
        ) : null}
        {preview.data && !preview.isPending && !preview.error ? (
          <DryRunResult
            result={preview.data.content}
            judged={judged}
            {...(preview.variables?.body.userId ? { userId: preview.variables.body.userId } : {})}
          />
        ) : null}
      </Stack>
    </Paper>
  );
}

// ---------------------------------------------------------------------------------------------------------------

function FeePolicyEditor({ saved }: { saved: FeePolicy }) {
  const [draft, setDraftState] = useState<PolicyDraft>(() => draftOf(saved));
  const [serverError, setServerError] = useState<{ error: unknown; prefix: string } | undefined>();
  const setDraft = (update: (draft: PolicyDraft) => PolicyDraft) => {
    setServerError(undefined);
    setDraftState(update);
  };
  const dirty = differs(draft, saved);
  return (
    <Stack gap="lg">
      <PolicyForm
        saved={saved}
        draft={draft}
        setDraft={setDraft}
        serverError={serverError}
        onSaved={(policy) => {
          setServerError(undefined);
          setDraftState(draftOf(policy));
        }}
        onSaveError={(error) => setServerError({ error, prefix: '' })}
      />
      <DryRunPanel draft={draft} dirty={dirty} onDraftError={(error) => setServerError({ error, prefix: 'policy.' })} />
    </Stack>
  );
}

export function FeePolicyPage() {
  const app = useCurrentApp();
  const policy = useQuery(getFeePolicyOptions({ path: { appId: app.appId } }));
  return (
    <>
      <PageHeader
        title="Fee policy"
        description="Which of your users’ transactions the app’s gas wallet pays the fee for (fee-bump sponsorship)."
      />
      <QueryState query={policy} rows={8}>
        {({ content }) => <FeePolicyEditor saved={content} />}
      </QueryState>
    </>
  );
}
