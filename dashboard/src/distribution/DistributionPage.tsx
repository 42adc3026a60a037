// An app's token distribution (Treasury, Token Distribution), in two tabs. Rules: what its signed-in users may claim
// from the client (rewards, airdrops, onboarding bonuses), each claim paid from the app's distribution wallet with
// the fee paid by its gas wallet, and the claims paid per day. Rules are created and edited in a dialog (the asset is
// fixed once created; a new amount applies to later claims only), turned on and off in place and deleted after a
// confirmation; claims already made stay in the history. Pushes (PushesPanel.tsx): an amount paid to a list of users
// at once. Every member can change them, as the app's other settings.
import { useEffect, useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  Badge,
  Button,
  Group,
  Modal,
  NumberInput,
  Progress,
  Radio,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  Table,
  Tabs,
  Text,
  TextInput,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import {
  createDistributionRuleMutation,
  deleteDistributionRuleMutation,
  listAppDistributionRulesOptions,
  listAppDistributionRulesQueryKey,
  updateDistributionRuleMutation,
} from '../../../generated/dashboard/@tanstack/react-query.gen';
import type {
  App,
  DistributionRule,
  DistributionRuleInput,
  DistributionRulePatch,
} from '../../../generated/dashboard/types.gen';
import { useIdempotencyKeyPerBody } from '../api/idempotency';
import { failureOf, fieldErrorOf, otherFieldErrors } from '../api/errors';
import { ActionsColumnHeader } from '../components/ActionsColumnHeader';
import { ConfirmButton } from '../components/ConfirmButton';
import { EmptyMessage } from '../components/EmptyMessage';
import { EnabledSwitch } from '../components/EnabledSwitch';
import { DialogFormFooter } from '../components/DialogFormFooter';
import { formatDate, trimAmount } from '../components/format';
import { PageHeader } from '../components/PageHeader';
import { PageTabs, type PageTab } from '../components/PageTabs';
import { QueryState } from '../components/QueryState';
import { useCurrentApp } from '../layout/currentApp';
import { ClaimsChart } from './ClaimsChart';
import { amountProblem, AssetCell, assetCode, distributionAssetOptions, NoDistributionWalletAlert } from './common';
import { NewPushButton } from './NewPushDialog';
import { PushesPanel } from './PushesPanel';

// The contract's bounds (DistributionRuleInput.yaml, Amount.yaml), checked here so a mistake is shown before saving.
const MAX_ALLOCATION = 1_000_000_000;
const MAX_CLAIMS_PER_PERIOD = 1_000_000;
const MAX_PERIOD_SECONDS = 31_536_000; // 365 days

type PeriodUnit = 'seconds' | 'minutes' | 'hours' | 'days' | 'weeks';
const UNIT_SECONDS: Record<PeriodUnit, number> = {
  seconds: 1,
  minutes: 60,
  hours: 3600,
  days: 86_400,
  weeks: 604_800,
};
/** The units offered; a period set through the API in seconds or minutes adds its own unit when edited. */
const OFFERED_UNITS: PeriodUnit[] = ['hours', 'days', 'weeks'];

/** The browser's time zone: the window's times are typed in it and sent in UTC. */
const TIME_ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;

/** "604800" -> "7 days", "86400" -> "day", "7200" -> "2 hours": the largest unit that divides it, weeks as days. */
function formatPeriod(seconds: number): string {
  for (const [unit, size] of [
    ['day', 86_400],
    ['hour', 3600],
    ['minute', 60],
  ] as const) {
    if (seconds % size === 0) {
      const n = seconds / size;
      return n === 1 ? unit : `${n.toLocaleString()} ${unit}s`;
    }
  }
  return seconds === 1 ? 'second' : `${seconds.toLocaleString()} seconds`;
}

/** "1 per user" (one claim per user ever), "2 per 7 days". */
function formatRateLimit(rateLimit: DistributionRule['rateLimit']): string {
  return rateLimit
    ? `${rateLimit.maxClaims.toLocaleString()} per ${formatPeriod(rateLimit.periodSeconds)}`
    : '1 per user';
}

/** `datetime-local` input value (local time) -> ISO timestamp in UTC, or undefined when it is not a date. */
function isoFromLocal(value: string): string | undefined {
  const at = new Date(value);
  return Number.isNaN(at.getTime()) ? undefined : at.toISOString();
}

/** ISO timestamp -> `datetime-local` value in local time (seconds only when it has some). */
function localFromIso(iso: string | null | undefined): string {
  if (!iso) return '';
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  const date = `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}`;
  const seconds = at.getSeconds() ? `:${pad(at.getSeconds())}` : '';
  return `${date}T${pad(at.getHours())}:${pad(at.getMinutes())}${seconds}`;
}

/** The current time, refreshed every minute, for the window's "Not started" and "Ended". */
function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 60_000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

interface RuleFields {
  name: string;
  asset: string;
  amountPerClaim: string;
  /** Empty: no limit. */
  totalAllocation: string | number;
  /** `datetime-local` values; empty: open-ended. */
  validFrom: string;
  validUntil: string;
  limit: 'once' | 'period';
  maxClaims: string | number;
  periodCount: string | number;
  periodUnit: PeriodUnit;
  enabled: boolean;
}

const NEW_RULE: RuleFields = {
  name: '',
  asset: 'native',
  amountPerClaim: '',
  totalAllocation: '',
  validFrom: '',
  validUntil: '',
  limit: 'once',
  maxClaims: 1,
  periodCount: 1,
  periodUnit: 'days',
  enabled: true,
};

/** A stored period in the largest unit that divides it. */
function periodOf(seconds: number): { periodCount: number; periodUnit: PeriodUnit } {
  for (const unit of ['weeks', 'days', 'hours', 'minutes'] as const) {
    if (seconds % UNIT_SECONDS[unit] === 0) return { periodCount: seconds / UNIT_SECONDS[unit], periodUnit: unit };
  }
  return { periodCount: seconds, periodUnit: 'seconds' };
}

function fieldsOf(rule: DistributionRule): RuleFields {
  return {
    name: rule.name,
    asset: rule.asset,
    amountPerClaim: trimAmount(rule.amountPerClaim),
    totalAllocation: rule.totalAllocation ?? '',
    validFrom: localFromIso(rule.validFrom),
    validUntil: localFromIso(rule.validUntil),
    ...(rule.rateLimit
      ? { limit: 'period', maxClaims: rule.rateLimit.maxClaims, ...periodOf(rule.rateLimit.periodSeconds) }
      : { limit: 'once', maxClaims: 1, periodCount: 1, periodUnit: 'days' }),
    enabled: rule.enabled,
  };
}

/** What the form's values mean, as the contract has them. */
interface RuleValues {
  name: string;
  asset: string;
  amountPerClaim: string;
  totalAllocation: number | null;
  validFrom: string | null;
  validUntil: string | null;
  rateLimit: { maxClaims: number; periodSeconds: number } | null;
  enabled: boolean;
}

type Problems = Partial<Record<'name' | 'amountPerClaim' | 'totalAllocation' | 'validFrom' | 'validUntil', string>> & {
  maxClaims?: string;
  period?: string;
};

const wholeNumber = (value: string | number): number | undefined => {
  const n = typeof value === 'number' ? value : value.trim() === '' ? NaN : Number(value);
  return Number.isInteger(n) ? n : undefined;
};

/** The values the form stands for, and what is wrong with them before sending. */
function checkFields(fields: RuleFields, claimedCount: number): { values: RuleValues; problems: Problems } {
  const problems: Problems = {};
  const name = fields.name.trim();
  if (name.length < 1 || name.length > 100) problems.name = 'Give the rule a name of 1 to 100 characters.';
  const amountPerClaim = fields.amountPerClaim.trim();
  const amountIssue = amountProblem(amountPerClaim, {
    empty: 'Enter what each claim pays, such as 5 or 1.5.',
    maxWholeDigits: 12,
  });
  if (amountIssue) problems.amountPerClaim = amountIssue;

  let totalAllocation: number | null = null;
  if (String(fields.totalAllocation).trim() !== '') {
    const n = wholeNumber(fields.totalAllocation);
    if (n === undefined || n < 1 || n > MAX_ALLOCATION) {
      problems.totalAllocation = `A whole number of claims from 1 to ${MAX_ALLOCATION.toLocaleString()}, or empty for no limit.`;
    } else if (n < claimedCount) {
      problems.totalAllocation = `${claimedCount.toLocaleString()} claims were already made: the allocation cannot be lower.`;
    } else totalAllocation = n;
  }

  const validFrom = fields.validFrom ? (isoFromLocal(fields.validFrom) ?? null) : null;
  const validUntil = fields.validUntil ? (isoFromLocal(fields.validUntil) ?? null) : null;
  if (fields.validFrom && !validFrom) problems.validFrom = 'Not a date and time.';
  if (fields.validUntil && !validUntil) problems.validUntil = 'Not a date and time.';
  if (validFrom && validUntil && new Date(validFrom).getTime() >= new Date(validUntil).getTime()) {
    problems.validUntil = 'Must be after “Valid from”.';
  }

  let rateLimit: RuleValues['rateLimit'] = null;
  if (fields.limit === 'period') {
    const maxClaims = wholeNumber(fields.maxClaims);
    const count = wholeNumber(fields.periodCount);
    if (maxClaims === undefined || maxClaims < 1 || maxClaims > MAX_CLAIMS_PER_PERIOD) {
      problems.maxClaims = `A whole number from 1 to ${MAX_CLAIMS_PER_PERIOD.toLocaleString()}.`;
    }
    const periodSeconds = count === undefined ? undefined : count * UNIT_SECONDS[fields.periodUnit];
    if (count === undefined || count < 1) problems.period = 'A whole number of 1 or more.';
    else if (periodSeconds! > MAX_PERIOD_SECONDS) problems.period = 'At most 365 days (52 weeks).';
    if (!problems.maxClaims && !problems.period) rateLimit = { maxClaims: maxClaims!, periodSeconds: periodSeconds! };
  }

  return {
    values: {
      name,
      asset: fields.asset,
      amountPerClaim,
      totalAllocation,
      validFrom,
      validUntil,
      rateLimit,
      enabled: fields.enabled,
    },
    problems,
  };
}

/** The new rule's body: what is open-ended or unlimited is left out. */
function inputOf(values: RuleValues): DistributionRuleInput {
  return {
    name: values.name,
    asset: values.asset,
    amountPerClaim: values.amountPerClaim,
    ...(values.totalAllocation !== null ? { totalAllocation: values.totalAllocation } : {}),
    ...(values.validFrom ? { validFrom: values.validFrom } : {}),
    ...(values.validUntil ? { validUntil: values.validUntil } : {}),
    ...(values.rateLimit ? { rateLimit: values.rateLimit } : {}),
    enabled: values.enabled,
  };
}

/**
 * Only what the operator changed in the dialog (PATCH semantics; null clears), against the rule as it was when the
 * dialog opened: a change another member made meanwhile to a field left alone here is not overwritten. Untouched
 * times are not resent, so a stored time with seconds the input does not show stays as it is.
 */
function patchOf(
  stored: { fields: RuleFields; values: RuleValues },
  fields: RuleFields,
  values: RuleValues,
): DistributionRulePatch {
  const before = stored.values;
  const patch: DistributionRulePatch = {};
  if (values.name !== before.name) patch.name = values.name;
  if (trimAmount(values.amountPerClaim) !== trimAmount(before.amountPerClaim)) {
    patch.amountPerClaim = values.amountPerClaim;
  }
  if (values.totalAllocation !== before.totalAllocation) patch.totalAllocation = values.totalAllocation;
  if (fields.validFrom !== stored.fields.validFrom) patch.validFrom = values.validFrom;
  if (fields.validUntil !== stored.fields.validUntil) patch.validUntil = values.validUntil;
  if (
    values.rateLimit?.maxClaims !== before.rateLimit?.maxClaims ||
    values.rateLimit?.periodSeconds !== before.rateLimit?.periodSeconds
  ) {
    patch.rateLimit = values.rateLimit;
  }
  if (values.enabled !== before.enabled) patch.enabled = values.enabled;
  return patch;
}

const SHOWN_FIELDS = ['name', 'asset', 'amountPerClaim', 'totalAllocation', 'validFrom', 'validUntil', 'enabled'];
const isShownField = (f: string) => SHOWN_FIELDS.includes(f) || f === 'rateLimit' || f.startsWith('rateLimit.');

/** The dialog's two requests; kept by its button, so the dialog cannot be closed while one runs. */
function useRuleMutations(appId: string, onSaved: () => void) {
  const queryClient = useQueryClient();
  const listKey = listAppDistributionRulesQueryKey({ path: { appId } });
  const create = useMutation({
    ...createDistributionRuleMutation(),
    onSuccess: async (data) => {
      await queryClient.invalidateQueries({ queryKey: listKey });
      onSaved();
      notifications.show({ color: 'green', message: `Rule “${data.content.name}” created` });
    },
  });
  const update = useMutation({
    ...updateDistributionRuleMutation(),
    onSuccess: async (data) => {
      await queryClient.invalidateQueries({ queryKey: listKey });
      onSaved();
      notifications.show({ color: 'green', message: `Rule “${data.content.name}” saved` });
    },
  });
  return { create, update };
}

/** The new-rule or edit form. Mounted afresh at each opening, so it starts from the rule (or a blank rule). */
function RuleForm({
  app,
  rule,
  mutations: { create, update },
  onCancel,
}: {
  app: App;
  /** The rule being edited; none for a new rule. */
  rule?: DistributionRule;
  mutations: ReturnType<typeof useRuleMutations>;
  onCancel: () => void;
}) {
  const appId = app.appId;
  // The rule as the dialog opened: the form starts from it and a change is what differs from it.
  const [stored] = useState(() => {
    const initial = rule ? fieldsOf(rule) : NEW_RULE;
    return { fields: initial, values: checkFields(initial, 0).values };
  });
  const [fields, setFields] = useState<RuleFields>(stored.fields);
  const [showProblems, setShowProblems] = useState(false);
  const { keyFor } = useIdempotencyKeyPerBody();
  const mutation = rule ? update : create;
  const pending = mutation.isPending;
  const error = mutation.error;

  const set = <K extends keyof RuleFields>(key: K, value: RuleFields[K]) => setFields((f) => ({ ...f, [key]: value }));
  const { values, problems } = checkFields(fields, rule?.claimedCount ?? 0);
  const dirty = JSON.stringify(fields) !== JSON.stringify(stored.fields);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setShowProblems(true);
    if (Object.keys(problems).length > 0) return;
    if (!rule) {
      const body = inputOf(values);
      create.mutate({ path: { appId }, body, headers: { 'Idempotency-Key': keyFor(body) } });
      return;
    }
    const patch = patchOf(stored, fields, values);
    if (Object.keys(patch).length === 0) onCancel();
    else update.mutate({ path: { appId, ruleId: rule.ruleId }, body: patch });
  };

  const failure = error ? failureOf(error) : undefined;
  const noWallet = failure?.code === 'DISTRIBUTION_NO_DISTRIBUTION_WALLET';
  const problem = (field: keyof Problems) => (showProblems ? problems[field] : undefined);
  const errorOf = (field: 'name' | 'amountPerClaim' | 'totalAllocation' | 'validFrom' | 'validUntil' | 'enabled') =>
    (field !== 'enabled' ? problem(field) : undefined) ?? fieldErrorOf(error, field);
  const assetError =
    fieldErrorOf(error, 'asset') ?? (failure?.code === 'DISTRIBUTION_ASSET_NOT_ENABLED' ? failure.message : undefined);
  const rateLimitError = fieldErrorOf(error, 'rateLimit', { withNested: true });
  const others = otherFieldErrors(error, isShownField);
  const explained =
    noWallet ||
    !!assetError ||
    !!rateLimitError ||
    others.length > 0 ||
    SHOWN_FIELDS.some((f) => fieldErrorOf(error, f) !== undefined);

  const code = assetCode(fields.asset);
  const units = OFFERED_UNITS.includes(fields.periodUnit) ? OFFERED_UNITS : [fields.periodUnit, ...OFFERED_UNITS];

  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <TextInput
          label="Name"
          description="What your users see when they claim, 1 to 100 characters."
          required
          maxLength={100}
          value={fields.name}
          onChange={(e) => set('name', e.currentTarget.value)}
          error={errorOf('name')}
          data-autofocus
        />
        {rule ? (
          <TextInput
            label="Asset"
            description="Fixed once the rule is created: for another asset, create a new rule."
            error={assetError}
            value={rule.asset === 'native' ? 'XLM (native)' : rule.asset}
            readOnly
            variant="filled"
            styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
          />
        ) : (
          <Select
            label="Asset"
            description={
              app.assets.length
                ? 'XLM or one of the app’s assets. It cannot be changed later.'
                : 'XLM, or first add an issued asset to the app’s assets under Settings. It cannot be changed later.'
            }
            data={distributionAssetOptions(app)}
            value={fields.asset}
            onChange={(v) => v && set('asset', v)}
            allowDeselect={false}
            error={assetError}
            comboboxProps={{ withinPortal: true }}
          />
        )}
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md">
          <TextInput
            label="Amount per claim"
            description={
              rule
                ? `In ${code}. A new amount applies to later claims only; claims already made keep theirs.`
                : `In ${code}, paid to the user’s wallet on each claim; at most 7 decimal places.`
            }
            inputMode="decimal"
            autoComplete="off"
            placeholder="1.5"
            value={fields.amountPerClaim}
            onChange={(e) => set('amountPerClaim', e.currentTarget.value)}
            error={errorOf('amountPerClaim')}
          />
          <NumberInput
            label="Total allocation"
            description={
              rule
                ? `Claims in all, across users; empty for no limit. ${rule.claimedCount.toLocaleString()} made so far.`
                : 'Claims in all, across users; empty for no limit.'
            }
            placeholder="No limit"
            min={1}
            max={MAX_ALLOCATION}
            allowDecimal={false}
            allowNegative={false}
            value={fields.totalAllocation}
            onChange={(v) => set('totalAllocation', v)}
            error={errorOf('totalAllocation')}
          />
        </SimpleGrid>
        <Stack gap={4}>
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md">
            <TextInput
              type="datetime-local"
              label="Valid from (optional)"
              description="Empty: claims open at once."
              value={fields.validFrom}
              onChange={(e) => set('validFrom', e.currentTarget.value)}
              error={errorOf('validFrom')}
            />
            <TextInput
              type="datetime-local"
              label="Valid until (optional)"
              description="Empty: claims never close."
              value={fields.validUntil}
              onChange={(e) => set('validUntil', e.currentTarget.value)}
              error={errorOf('validUntil')}
            />
          </SimpleGrid>
          <Text size="xs" c="dimmed">
            Times are in your time zone ({TIME_ZONE}) and saved in UTC. Claims are accepted from “Valid from” up to, not
            including, “Valid until”.
          </Text>
        </Stack>
        <Radio.Group
          label="Claims per user"
          value={fields.limit}
          onChange={(v) => set('limit', v === 'period' ? 'period' : 'once')}
          error={rateLimitError}
        >
          <Stack gap="sm" mt="xs">
            <Radio value="once" label="One claim per user" description="Each user can claim the rule once, ever." />
            <Radio
              value="period"
              label="At most N claims per period"
              description="Counted for each user over the period before each claim (a rolling window)."
            />
          </Stack>
        </Radio.Group>
        {fields.limit === 'period' ? (
          <Stack gap={4}>
            <SimpleGrid cols={{ base: 1, xs: 3 }} spacing="sm">
              <NumberInput
                label="Claims (N)"
                description={`1 to ${MAX_CLAIMS_PER_PERIOD.toLocaleString()}`}
                min={1}
                max={MAX_CLAIMS_PER_PERIOD}
                allowDecimal={false}
                allowNegative={false}
                value={fields.maxClaims}
                onChange={(v) => set('maxClaims', v)}
                error={problem('maxClaims')}
              />
              <NumberInput
                label="Period"
                description="How many units"
                min={1}
                allowDecimal={false}
                allowNegative={false}
                value={fields.periodCount}
                onChange={(v) => set('periodCount', v)}
                error={problem('period')}
              />
              <Select
                label="Period unit"
                description="Up to 365 days"
                data={units}
                value={fields.periodUnit}
                onChange={(v) => v && set('periodUnit', v)}
                allowDeselect={false}
                comboboxProps={{ withinPortal: true }}
              />
            </SimpleGrid>
            {values.rateLimit ? (
              <Text size="xs" c="dimmed">
                Each user: at most {values.rateLimit.maxClaims.toLocaleString()} claim
                {values.rateLimit.maxClaims === 1 ? '' : 's'} in any {formatPeriod(values.rateLimit.periodSeconds)}.
              </Text>
            ) : null}
          </Stack>
        ) : null}
        <Switch
          label="Enabled"
          description="A disabled rule is hidden from your users and refuses claims; its claim count is kept."
          checked={fields.enabled}
          onChange={(e) => set('enabled', e.currentTarget.checked)}
          error={errorOf('enabled')}
        />
        {noWallet ? <NoDistributionWalletAlert app={app} paid="Claims are paid" then="create the rule" /> : null}
        <DialogFormFooter
          error={error}
          explained={explained}
          others={others}
          pending={pending}
          onCancel={onCancel}
          submitLabel={rule ? 'Save changes' : 'Create rule'}
          submitDisabled={rule !== undefined && !dirty}
        />
      </Stack>
    </form>
  );
}

/** A button that opens the rule dialog: a new rule, or the rule as listed when it opens. */
function RuleDialogButton({
  app,
  rule,
  disabled,
  ...button
}: {
  app: App;
  rule?: DistributionRule;
  disabled?: boolean;
  label: string;
  'aria-label'?: string;
  size?: 'xs';
  variant?: 'default';
}) {
  const [opened, setOpened] = useState(false);
  // Each opening mounts a fresh form (its fields, its Idempotency-Key); the dialog itself stays mounted, so focus
  // goes back to this button when it closes.
  const [opening, setOpening] = useState(0);
  const mutations = useRuleMutations(app.appId, () => setOpened(false));
  const pending = mutations.create.isPending || mutations.update.isPending;
  const open = () => {
    mutations.create.reset();
    mutations.update.reset();
    setOpening((n) => n + 1);
    setOpened(true);
  };
  return (
    <>
      <Button
        size={button.size}
        variant={button.variant}
        aria-label={button['aria-label']}
        disabled={disabled}
        onClick={open}
      >
        {button.label}
      </Button>
      <Modal
        opened={opened}
        onClose={() => !pending && setOpened(false)}
        title={rule ? `Edit the rule “${rule.name}”` : 'New distribution rule'}
        size="lg"
        centered
      >
        <RuleForm key={opening} app={app} rule={rule} mutations={mutations} onCancel={() => setOpened(false)} />
      </Modal>
    </>
  );
}

function RuleEnabledSwitch({ appId, rule }: { appId: string; rule: DistributionRule }) {
  const queryClient = useQueryClient();
  const update = useMutation({
    ...updateDistributionRuleMutation(),
    onSuccess: async (data) => {
      await queryClient.invalidateQueries({ queryKey: listAppDistributionRulesQueryKey({ path: { appId } }) });
      notifications.show({
        color: 'green',
        message: `“${data.content.name}” is ${data.content.enabled ? 'enabled' : 'disabled'}`,
      });
    },
  });
  return (
    <EnabledSwitch
      name={rule.name}
      checked={rule.enabled}
      pending={update.isPending}
      error={update.error}
      onChange={(enabled) => update.mutate({ path: { appId, ruleId: rule.ruleId }, body: { enabled } })}
    />
  );
}

function DeleteRuleButton({ appId, rule }: { appId: string; rule: DistributionRule }) {
  const queryClient = useQueryClient();
  const remove = useMutation({ ...deleteDistributionRuleMutation() });
  return (
    <ConfirmButton
      label="Delete"
      size="xs"
      aria-label={`Delete rule ${rule.name}`}
      title={`Delete the rule “${rule.name}”?`}
      message="Your users can no longer see or claim it. Claims already made stay on the network and in the transaction history. Turning the rule off instead keeps it for later."
      confirmLabel="Delete rule"
      onConfirm={async () => {
        await remove.mutateAsync({ path: { appId, ruleId: rule.ruleId } });
        await queryClient.invalidateQueries({ queryKey: listAppDistributionRulesQueryKey({ path: { appId } }) });
        notifications.show({ color: 'green', message: `Rule “${rule.name}” deleted` });
      }}
    />
  );
}

function UsageCell({ rule }: { rule: DistributionRule }) {
  const claimed = rule.claimedCount;
  const total = rule.totalAllocation ?? null;
  if (total === null) {
    return <Text size="sm">{claimed.toLocaleString()} claimed (no limit)</Text>;
  }
  const used = Math.min(100, Math.round((claimed / total) * 1000) / 10);
  const exhausted = claimed >= total;
  return (
    <Stack gap={4} miw={140}>
      <Progress value={used} color={exhausted ? 'orange' : undefined} aria-label={`Claims of ${rule.name}`} />
      <Group gap={6} wrap="nowrap">
        <Text size="sm" style={{ whiteSpace: 'nowrap' }}>
          {claimed.toLocaleString()} of {total.toLocaleString()} claimed
        </Text>
        {exhausted ? (
          <Badge color="orange" variant="light" style={{ flexShrink: 0 }}>
            Used up
          </Badge>
        ) : null}
      </Group>
    </Stack>
  );
}

function WindowCell({ rule, now }: { rule: DistributionRule; now: number }) {
  const from = rule.validFrom ?? null;
  const until = rule.validUntil ?? null;
  if (!from && !until) return <Text size="sm">Always open</Text>;
  const notStarted = from !== null && new Date(from).getTime() > now;
  const ended = until !== null && new Date(until).getTime() <= now;
  return (
    <Stack gap={4} align="flex-start">
      <Text size="sm" style={{ whiteSpace: 'nowrap' }}>
        {from ? formatDate(from) : 'Open'} – {until ? formatDate(until) : 'no end'}
      </Text>
      {notStarted ? (
        <Badge color="blue" variant="light">
          Not started
        </Badge>
      ) : null}
      {ended ? (
        <Badge color="gray" variant="light">
          Ended
        </Badge>
      ) : null}
    </Stack>
  );
}

function RulesTable({ app, rules }: { app: App; rules: DistributionRule[] }) {
  const now = useNow();
  if (rules.length === 0) {
    return (
      <EmptyMessage title="No rules yet">
        A rule lets your signed-in users claim an amount of XLM or one of the app’s assets from your app, within a time
        window, up to a total number of claims and a number per user. Each claim is paid from the distribution wallet.
        Create one with New rule.
      </EmptyMessage>
    );
  }
  return (
    <Table.ScrollContainer minWidth={980}>
      <Table verticalSpacing="sm" highlightOnHover>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Name</Table.Th>
            <Table.Th>Asset</Table.Th>
            <Table.Th>Per claim</Table.Th>
            <Table.Th>Usage</Table.Th>
            <Table.Th>Window</Table.Th>
            <Table.Th>Rate limit</Table.Th>
            <Table.Th>Enabled</Table.Th>
            <ActionsColumnHeader />
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rules.map((rule) => (
            <Table.Tr key={rule.ruleId}>
              <Table.Td>
                <Text size="sm" fw={500}>
                  {rule.name}
                </Text>
              </Table.Td>
              <Table.Td>
                {/* A rule whose asset was later removed from the app's assets refuses claims
                    (DISTRIBUTION_ASSET_NOT_ENABLED). */}
                <AssetCell app={app} asset={rule.asset} removedNote="Not among the app’s assets: claims are refused." />
              </Table.Td>
              <Table.Td style={{ whiteSpace: 'nowrap' }}>
                {trimAmount(rule.amountPerClaim)} {assetCode(rule.asset)}
              </Table.Td>
              <Table.Td>
                <UsageCell rule={rule} />
              </Table.Td>
              <Table.Td>
                <WindowCell rule={rule} now={now} />
              </Table.Td>
              <Table.Td style={{ whiteSpace: 'nowrap' }}>{formatRateLimit(rule.rateLimit)}</Table.Td>
              <Table.Td>
                <RuleEnabledSwitch appId={app.appId} rule={rule} />
              </Table.Td>
              <Table.Td>
                <Group gap="xs" wrap="nowrap">
                  <RuleDialogButton
                    app={app}
                    rule={rule}
                    label="Edit"
                    aria-label={`Edit rule ${rule.name}`}
                    size="xs"
                    variant="default"
                  />
                  <DeleteRuleButton appId={app.appId} rule={rule} />
                </Group>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

type DistributionTab = 'rules' | 'pushes';
const DISTRIBUTION_TABS: PageTab<DistributionTab>[] = [
  { value: 'rules', label: 'Rules and claims', path: '' },
  { value: 'pushes', label: 'Pushes', path: '/pushes' },
];

/** The Distribution page on its Rules tab (`/distribution`) or its Pushes tab (`/distribution/pushes`). */
export function DistributionPage({ tab = 'rules' }: { tab?: DistributionTab }) {
  const app = useCurrentApp();
  const active = app.status === 'active';
  // An archived app answers 404 to these reads: say so instead of "not found".
  const rules = useQuery({
    ...listAppDistributionRulesOptions({ path: { appId: app.appId } }),
    enabled: active && tab === 'rules',
  });
  const archived = (what: string) => (
    <Text size="sm" c="dimmed">
      An archived app’s {what} cannot be read or changed until the owner restores it.
    </Text>
  );
  return (
    <>
      <PageHeader
        title="Distribution"
        description={`Hand out tokens (rewards, airdrops, onboarding bonuses): rules your signed-in users claim from your app, and pushes that pay a list of your users at once. Each payment comes from the app’s distribution wallet on ${app.network}, and the gas wallet pays the network fee, so users pay nothing. Every member of the app can change them.`}
        actions={
          tab === 'rules' ? (
            <RuleDialogButton app={app} label="New rule" disabled={!active} />
          ) : (
            <NewPushButton app={app} disabled={!active} />
          )
        }
      />
      <PageTabs value={tab} base={`/apps/${app.appId}/distribution`} tabs={DISTRIBUTION_TABS}>
        <Tabs.Panel value="rules">
          {active ? (
            <Stack gap="lg">
              <QueryState query={rules} rows={3}>
                {(data) => <RulesTable app={app} rules={data.content.rules} />}
              </QueryState>
              <ClaimsChart appId={app.appId} />
            </Stack>
          ) : (
            archived('distribution rules')
          )}
        </Tabs.Panel>
        <Tabs.Panel value="pushes">{active ? <PushesPanel app={app} /> : archived('pushes')}</Tabs.Panel>
      </PageTabs>
    </>
  );
}

/** The page's Pushes tab, as its own address. */
export function DistributionPushesPage() {
  return <DistributionPage tab="pushes" />;
}
