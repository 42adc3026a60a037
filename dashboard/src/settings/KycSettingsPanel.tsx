// The app's KYC providers (Settings, KYC tab): which identity-verification providers its users verify with, at which
// levels, with which credentials. Save sends the whole list (updateKycSettings replaces it: a provider removed here
// is removed with its stored credentials). Credentials are write-only: the service says only whether they are stored
// (`credentialsSet`), so the fields start empty and a value typed replaces the stored one. Problems the form sees are
// shown before sending; the service's (KYC_SETTINGS_INVALID, `providers.0.levels`...) under the provider they name.
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Group, Paper, Select, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import {
  getKycSettingsOptions,
  getKycSettingsQueryKey,
  updateKycSettingsMutation,
} from '../../../generated/dashboard/@tanstack/react-query.gen';
import type { App, KycSettings, KycSettingsInputWritable } from '../../../generated/dashboard/types.gen';
import { fieldErrorOf, otherFieldErrors } from '../api/errors';
import { DiscardOrSaveButtons } from '../components/DiscardOrSaveButtons';
import { ErrorAlert } from '../components/ErrorAlert';
import { SavedSettings } from '../components/SavedSettings';
import { SectionHeading } from '../components/SectionHeading';
import {
  ALL_LEVELS,
  infoOf,
  KYC_PROVIDERS,
  KycProviderCard,
  type ProblemField,
  type ProviderDraft,
} from './KycProviderCard';

type StoredProvider = KycSettings['providers'][number];

const draftsOf = (stored: StoredProvider[]): ProviderDraft[] =>
  stored.map((p) => ({ ...p, levels: [...p.levels], credentials: {} }));

const newDraft = (providerId: string): ProviderDraft => ({
  providerId,
  enabled: true,
  levels: [...infoOf(providerId).levels],
  credentialsSet: false,
  credentials: {},
});

/** The credentials typed for `d`, trimmed, without the empty ones. */
function typedCredentials(d: ProviderDraft): Record<string, string> {
  const typed: Record<string, string> = {};
  for (const [name, value] of Object.entries(d.credentials)) if (value.trim() !== '') typed[name] = value.trim();
  return typed;
}

/** What is wrong with a provider before it is sent (the service's own rules, checked here to say so sooner). */
function problemsOf(d: ProviderDraft): Partial<Record<ProblemField, string>> {
  const { credentials } = infoOf(d.providerId);
  const typed = typedCredentials(d);
  const missing = credentials.filter((c) => !typed[c.name]).map((c) => c.label);
  const problems: Partial<Record<ProblemField, string>> = {};
  if (d.enabled && d.levels.length === 0)
    problems.levels = 'Choose at least one level to offer this provider, or turn it off.';
  if (Object.keys(typed).length > 0 && missing.length > 0)
    problems.credentials = `Type every credential to replace the stored ones (missing: ${missing.join(', ')}).`;
  else if (d.enabled && credentials.length > 0 && !d.credentialsSet && missing.length > 0)
    problems.credentials = 'Enter the credentials to turn this provider on.';
  return problems;
}

/** The body: the whole list (it replaces the stored one), levels in order, credentials only when replaced. */
function inputOf(drafts: ProviderDraft[]): KycSettingsInputWritable {
  return {
    providers: drafts.map((d) => {
      const credentials = typedCredentials(d);
      return {
        providerId: d.providerId,
        enabled: d.enabled,
        levels: ALL_LEVELS.filter((l) => d.levels.includes(l)),
        ...(Object.keys(credentials).length > 0 ? { credentials } : {}),
      };
    }),
  };
}

const PROVIDER_FIELD = /^providers\.(\d+)\.(providerId|enabled|levels|credentials)$/;

function KycProvidersForm({ app, stored, onSaved }: { app: App; stored: StoredProvider[]; onSaved: () => void }) {
  const queryClient = useQueryClient();
  const [drafts, setDrafts] = useState(() => draftsOf(stored));
  const [adding, setAdding] = useState<string | null>(null);
  const [showProblems, setShowProblems] = useState(false);
  // The providers in the order last sent: the service names a field by its index in that list (`providers.0.levels`).
  const [sent, setSent] = useState<string[]>([]);
  const update = useMutation({
    ...updateKycSettingsMutation(),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: getKycSettingsQueryKey({ path: { appId: app.appId } }) });
      notifications.show({ color: 'green', message: 'KYC providers saved' });
      onSaved();
    },
  });
  const change = (providerId: string, patch: Partial<ProviderDraft>) =>
    setDrafts((ds) => ds.map((d) => (d.providerId === providerId ? { ...d, ...patch } : d)));
  const problems = new Map(drafts.map((d) => [d.providerId, problemsOf(d)]));
  const hasProblems = [...problems.values()].some((p) => Object.keys(p).length > 0);
  const dirty = JSON.stringify(inputOf(drafts)) !== JSON.stringify(inputOf(draftsOf(stored)));
  const removed = stored.filter((s) => !drafts.some((d) => d.providerId === s.providerId));
  const addable = Object.keys(KYC_PROVIDERS).filter(
    (id) => !drafts.some((d) => d.providerId === id) && (app.network === 'testnet' || !KYC_PROVIDERS[id]?.testnetOnly),
  );

  const problemOf = (providerId: string) => (field: 'providerId' | 'enabled' | ProblemField) => {
    const own =
      showProblems && (field === 'levels' || field === 'credentials') ? problems.get(providerId)?.[field] : undefined;
    const index = sent.indexOf(providerId);
    return own ?? (index < 0 ? undefined : fieldErrorOf(update.error, `providers.${index}.${field}`));
  };
  // The service's messages no provider card shows (the whole list, a provider no longer in the form).
  const unplaced = otherFieldErrors(update.error, (field) => {
    const match = PROVIDER_FIELD.exec(field);
    return match !== null && drafts.some((d) => d.providerId === sent[Number(match[1])]);
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setShowProblems(true);
    if (hasProblems) return;
    setSent(drafts.map((d) => d.providerId));
    update.mutate({ path: { appId: app.appId }, body: inputOf(drafts) });
  };
  const discard = () => {
    setDrafts(draftsOf(stored));
    setShowProblems(false);
    setSent([]);
    update.reset();
  };
  const add = () => {
    if (!adding) return;
    setDrafts((ds) => [...ds, newDraft(adding)]);
    setAdding(null);
  };

  return (
    <form onSubmit={submit} noValidate aria-labelledby="kyc-heading">
      <Stack gap="md">
        <SectionHeading id="kyc-heading" title="KYC providers">
          The identity verification providers your users verify with, and the levels each offers (from basic: name and
          date of birth, to enhanced: identity documents and more; what each level checks is the provider’s). Your app
          starts a verification with the client library (kyc.start, or the KycStep component); personal data goes to the
          provider, never through Onboard.
        </SectionHeading>
        {drafts.length === 0 ? (
          <Text size="sm">No KYC providers: your users cannot verify their identity. Add one below.</Text>
        ) : null}
        {drafts.map((d) => (
          <KycProviderCard
            key={d.providerId}
            draft={d}
            problem={problemOf(d.providerId)}
            onChange={(patch) => change(d.providerId, patch)}
            onRemove={() => setDrafts((ds) => ds.filter((x) => x.providerId !== d.providerId))}
          />
        ))}
        {addable.length > 0 ? (
          <Group align="flex-end" gap="xs">
            <Select
              label="Add a provider"
              placeholder="Choose a provider"
              data={addable.map((id) => ({ value: id, label: infoOf(id).name }))}
              value={adding}
              onChange={setAdding}
              w={260}
            />
            <Button variant="light" onClick={add} disabled={!adding}>
              Add
            </Button>
          </Group>
        ) : null}
        {removed.length > 0 ? (
          <Alert color="yellow" variant="light">
            Saving removes {removed.map((p) => infoOf(p.providerId).name).join(', ')}
            {removed.some((p) => p.credentialsSet) ? ' and the credentials stored for it' : ''}: users can no longer
            start a verification with {removed.length === 1 ? 'it' : 'them'}.
          </Alert>
        ) : null}
        {update.error ? <ErrorAlert error={update.error} /> : null}
        {unplaced.length > 0 ? (
          <Alert color="red" variant="light" role="alert">
            {unplaced.map((line) => (
              <Text key={line} size="sm">
                {line}
              </Text>
            ))}
          </Alert>
        ) : null}
        <DiscardOrSaveButtons
          saveLabel="Save KYC providers"
          dirty={dirty}
          saving={update.isPending}
          onDiscard={discard}
        />
      </Stack>
    </form>
  );
}

/** The KYC tab of the Settings page. */
export function KycSettingsPanel({ app }: { app: App }) {
  const settings = useQuery({
    ...getKycSettingsOptions({ path: { appId: app.appId } }),
    enabled: app.status === 'active',
  });
  return (
    <Paper withBorder p={{ base: 'sm', sm: 'lg' }} radius="md" maw={860}>
      <SavedSettings app={app} what="KYC providers" query={settings} rows={4}>
        {(data, onSaved) => <KycProvidersForm app={app} stored={data.content.providers} onSaved={onSaved} />}
      </SavedSettings>
    </Paper>
  );
}
