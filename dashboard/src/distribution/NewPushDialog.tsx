// New push: a name, the asset (XLM or one of the app's assets), the amount each recipient is paid, and the
// recipients, from a CSV file or pasted lines (recipients.ts reads them). What was read, by kind, and every line
// refused are shown before anything is sent; the push is sent only once no line is refused. The service's refusals
// are shown on the field they concern.
import { useDeferredValue, useMemo, useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Button, FileInput, List, Modal, Select, SimpleGrid, Stack, Text, Textarea, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconFileText } from '@tabler/icons-react';
import {
  createDistributionPushMutation,
  listDistributionPushesQueryKey,
} from '../../../generated/dashboard/@tanstack/react-query.gen';
import type { App, DistributionPushInput } from '../../../generated/dashboard/types.gen';
import { failureOf, fieldErrorOf, otherFieldErrors } from '../api/errors';
import { useIdempotencyKeyPerBody } from '../api/idempotency';
import { DialogFormFooter } from '../components/DialogFormFooter';
import { amountProblem, assetCode, distributionAssetOptions, NoDistributionWalletAlert } from './common';
import { MAX_RECIPIENTS, readRecipients, type ReadRecipients } from './recipients';

/** A file far larger than 10,000 recipients can be: not read (the body would be refused anyway). */
const MAX_FILE_BYTES = 5 * 1024 * 1024;
/** Refused lines listed in the form; the rest are counted. */
const REFUSED_SHOWN = 20;

const plural = (n: number, one: string, many: string) => `${n.toLocaleString()} ${n === 1 ? one : many}`;

/** "3 recipients read: 1 user id, 2 wallet addresses." */
function readSummary(read: ReadRecipients): string {
  const { userIds, externalIds, walletAddresses } = read.recipients;
  const kinds = [
    userIds.length ? plural(userIds.length, 'user id', 'user ids') : '',
    externalIds.length ? plural(externalIds.length, 'external id', 'external ids') : '',
    walletAddresses.length ? plural(walletAddresses.length, 'wallet address', 'wallet addresses') : '',
  ].filter(Boolean);
  const columns = read.columns
    ? ` (from the ${read.columns.join(', ')} column${read.columns.length > 1 ? 's' : ''})`
    : '';
  return `${plural(read.total, 'recipient', 'recipients')} read${columns}${kinds.length ? `: ${kinds.join(', ')}` : ''}.`;
}

function RecipientsRead({ read }: { read: ReadRecipients }) {
  return (
    <Stack gap={4} aria-live="polite">
      <Text size="sm">{readSummary(read)}</Text>
      {read.repeated > 0 ? (
        <Text size="sm" c="dimmed">
          {plural(read.repeated, 'line repeats', 'lines repeat')} an earlier recipient and{' '}
          {read.repeated === 1 ? 'is' : 'are'} left out.
        </Text>
      ) : null}
      {read.refused.length > 0 ? (
        <>
          <Text size="sm" fw={500}>
            {plural(read.refused.length, 'line', 'lines')} refused:
          </Text>
          <List size="sm" spacing={2}>
            {read.refused.slice(0, REFUSED_SHOWN).map((refused) => (
              <List.Item key={refused.line}>
                Line {refused.line} <code>{refused.text}</code>: {refused.reason}.
              </List.Item>
            ))}
          </List>
          {read.refused.length > REFUSED_SHOWN ? (
            <Text size="sm" c="dimmed">
              and {plural(read.refused.length - REFUSED_SHOWN, 'more line', 'more lines')}.
            </Text>
          ) : null}
        </>
      ) : null}
    </Stack>
  );
}

interface PushFields {
  name: string;
  asset: string;
  amount: string;
  recipients: string;
}

type Problems = Partial<Record<keyof PushFields, string>>;

function checkFields(fields: PushFields, read: ReadRecipients): Problems {
  const problems: Problems = {};
  const name = fields.name.trim();
  if (name.length < 1 || name.length > 100) problems.name = 'Give the push a name of 1 to 100 characters.';
  const amount = amountProblem(fields.amount.trim(), {
    empty: 'Enter what each recipient is paid, such as 5 or 1.5.',
    maxWholeDigits: 11,
  });
  if (amount) problems.amount = amount;
  if (read.problem) problems.recipients = read.problem;
  else if (read.refused.length > 0) problems.recipients = 'Correct or remove the refused lines listed below.';
  else if (read.total === 0) problems.recipients = 'Upload a CSV file or paste at least one recipient.';
  return problems;
}

/** The body: only the lists that hold someone. */
function inputOf(fields: PushFields, read: ReadRecipients): DistributionPushInput {
  const recipients = Object.fromEntries(Object.entries(read.recipients).filter(([, list]) => list.length > 0));
  return { name: fields.name.trim(), asset: fields.asset, amount: fields.amount.trim(), recipients };
}

const isShownField = (field: string) =>
  ['name', 'asset', 'amount', 'recipients'].includes(field) || field.startsWith('recipients.');

function PushForm({
  app,
  create,
  onCancel,
}: {
  app: App;
  create: ReturnType<typeof useCreatePush>;
  onCancel: () => void;
}) {
  const [fields, setFields] = useState<PushFields>({ name: '', asset: 'native', amount: '', recipients: '' });
  const [file, setFile] = useState<File | null>(null);
  const [fileError, setFileError] = useState<string>();
  const [showProblems, setShowProblems] = useState(false);
  const { keyFor } = useIdempotencyKeyPerBody();
  const set = <K extends keyof PushFields>(key: K, value: PushFields[K]) => setFields((f) => ({ ...f, [key]: value }));

  // 10,000 lines are read again as they are typed: a step behind the typing rather than in its way.
  const recipientsText = useDeferredValue(fields.recipients);
  const read = useMemo(() => readRecipients(recipientsText), [recipientsText]);
  const problems = checkFields(fields, read);

  const chooseFile = (chosen: File | null) => {
    setFile(chosen);
    setFileError(undefined);
    if (!chosen) return;
    if (chosen.size > MAX_FILE_BYTES) {
      setFileError('This file is larger than 10,000 recipients can be. Choose the list of recipients.');
      return;
    }
    chosen
      .text()
      .then((text) => set('recipients', text))
      .catch(() => setFileError('This file could not be read.'));
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setShowProblems(true);
    // What is in the box now, should the deferred reading still be a step behind.
    const current = fields.recipients === recipientsText ? read : readRecipients(fields.recipients);
    if (Object.keys(checkFields(fields, current)).length > 0) return;
    const body = inputOf(fields, current);
    create.mutate({ path: { appId: app.appId }, body, headers: { 'Idempotency-Key': keyFor(body) } });
  };

  const error = create.error;
  const failure = error ? failureOf(error) : undefined;
  const problem = (field: keyof PushFields) => (showProblems ? problems[field] : undefined);
  const codeOn = (code: string) => (failure?.code === code ? failure.message : undefined);
  const errors = {
    name: problem('name') ?? fieldErrorOf(error, 'name'),
    asset: fieldErrorOf(error, 'asset') ?? codeOn('DISTRIBUTION_ASSET_NOT_ENABLED'),
    amount: problem('amount') ?? fieldErrorOf(error, 'amount'),
    recipients:
      problem('recipients') ??
      codeOn('DISTRIBUTION_PUSH_RECIPIENTS_INVALID') ??
      codeOn('PAYLOAD_TOO_LARGE') ??
      fieldErrorOf(error, 'recipients', { withNested: true }),
  };
  const noWallet = failure?.code === 'DISTRIBUTION_NO_DISTRIBUTION_WALLET';
  const others = otherFieldErrors(error, isShownField);
  const explained =
    noWallet || others.length > 0 || [errors.name, errors.asset, errors.amount, errors.recipients].some(Boolean);
  const code = assetCode(fields.asset);

  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <TextInput
          label="Name"
          description="For you and the transaction history, 1 to 100 characters."
          required
          maxLength={100}
          value={fields.name}
          onChange={(e) => set('name', e.currentTarget.value)}
          error={errors.name}
          data-autofocus
        />
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md">
          <Select
            label="Asset"
            description="XLM or one of the app’s assets."
            data={distributionAssetOptions(app)}
            value={fields.asset}
            onChange={(v) => v && set('asset', v)}
            allowDeselect={false}
            error={errors.asset}
            comboboxProps={{ withinPortal: true }}
          />
          <TextInput
            label="Amount per recipient"
            description={`In ${code}; at most 7 decimal places.`}
            inputMode="decimal"
            autoComplete="off"
            placeholder="5"
            value={fields.amount}
            onChange={(e) => set('amount', e.currentTarget.value)}
            error={errors.amount}
          />
        </SimpleGrid>
        <FileInput
          label="Recipients file (CSV)"
          description="One recipient a line. A header line may name the column userId, externalId or walletAddress; other columns are ignored."
          // Mantine's placeholder grey is too faint for AA contrast on this button (it is text, not ::placeholder).
          styles={{ placeholder: { color: 'var(--mantine-color-dimmed)' } }}
          placeholder="Choose a .csv or .txt file"
          accept=".csv,.txt,text/csv,text/plain"
          leftSection={<IconFileText size={16} />}
          clearable
          value={file}
          onChange={chooseFile}
          error={fileError}
        />
        <Textarea
          label="Recipients"
          description={`The file’s lines, or pasted: user ids (usr_…), your external ids, or wallet addresses (G…), at most ${MAX_RECIPIENTS.toLocaleString()}.`}
          placeholder={
            'usr_01JD3X5K7Q9T2M4N6P8R0S1V3W\ncustomer-4711\nGCQ53WWRBL6HVSDNRMZKFZD7SP5DKYC6JFWSRLPQCVGD6Y42TYIN73Q2'
          }
          autosize
          minRows={4}
          maxRows={10}
          spellCheck={false}
          autoComplete="off"
          styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
          value={fields.recipients}
          onChange={(e) => set('recipients', e.currentTarget.value)}
          error={errors.recipients}
        />
        {recipientsText.trim() ? <RecipientsRead read={read} /> : null}
        {noWallet ? <NoDistributionWalletAlert app={app} paid="A push is paid" then="start the push" /> : null}
        <DialogFormFooter
          error={error}
          explained={explained}
          others={others}
          pending={create.isPending}
          onCancel={onCancel}
          submitLabel={
            read.total > 0 && !read.problem ? `Pay ${plural(read.total, 'recipient', 'recipients')}` : 'Start push'
          }
        />
      </Stack>
    </form>
  );
}

function useCreatePush(appId: string, onCreated: () => void) {
  const queryClient = useQueryClient();
  return useMutation({
    ...createDistributionPushMutation(),
    onSuccess: async (data) => {
      // Every page of the list (query keys match by prefix).
      await queryClient.invalidateQueries({ queryKey: listDistributionPushesQueryKey({ path: { appId } }) });
      onCreated();
      notifications.show({
        color: 'green',
        message: `Push “${data.content.name}” started: ${plural(data.content.counts.total, 'recipient', 'recipients')}`,
      });
    },
  });
}

/** New push, in a dialog that cannot be closed while the push is being sent. */
export function NewPushButton({ app, disabled }: { app: App; disabled?: boolean }) {
  const [opened, setOpened] = useState(false);
  // Each opening mounts a fresh form (its fields, its Idempotency-Key).
  const [opening, setOpening] = useState(0);
  const create = useCreatePush(app.appId, () => setOpened(false));
  const open = () => {
    create.reset();
    setOpening((n) => n + 1);
    setOpened(true);
  };
  return (
    <>
      <Button disabled={disabled} onClick={open}>
        New push
      </Button>
      <Modal opened={opened} onClose={() => !create.isPending && setOpened(false)} title="New push" size="lg" centered>
        <PushForm key={opening} app={app} create={create} onCancel={() => setOpened(false)} />
      </Modal>
    </>
  );
}
