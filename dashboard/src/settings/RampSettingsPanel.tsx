// The app's ramp providers (Settings, Ramps tab): through which fiat on- and off-ramp providers its users buy and sell
// its assets, which assets each offers, and each one's credentials. Every provider this service supports has a card;
// Save sends the whole list (updateRampSettings replaces it): the providers stored, and those the operator set up here,
// in the order of the cards; a provider removed here is left out, which deletes its stored credentials. Credentials
// are write-only (the service says only `credentialsSet`), so the fields start empty and values typed replace every
// stored credential of that provider. Problems the form sees are shown before sending; the service's
// (`providers.1.credentials`, `providers.0.providerId`...) under the provider and field they name.
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Paper, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import {
  getRampSettingsOptions,
  getRampSettingsQueryKey,
  updateRampSettingsMutation,
} from '../../../generated/dashboard/@tanstack/react-query.gen';
import type { App, RampSettings, RampSettingsInputWritable } from '../../../generated/dashboard/types.gen';
import { failureOf, otherFieldErrors } from '../api/errors';
import { DiscardOrSaveButtons } from '../components/DiscardOrSaveButtons';
import { ErrorAlert } from '../components/ErrorAlert';
import { SavedSettings } from '../components/SavedSettings';
import { SectionHeading } from '../components/SectionHeading';
import {
  RAMP_PROVIDER_IDS,
  RAMP_PROVIDERS,
  RampProviderCard,
  rampProblemsOf,
  typedCredentials,
  type RampField,
  type RampProviderDraft,
  type RampProviderId,
} from './RampProviderCard';

type StoredProvider = RampSettings['providers'][number];

/** One draft per provider the app may use, from what is stored (the others not set up). */
function draftsOf(app: App, stored: StoredProvider[]): RampProviderDraft[] {
  return RAMP_PROVIDER_IDS.filter(
    (id) => stored.some((s) => s.providerId === id) || app.network === 'testnet' || !RAMP_PROVIDERS[id].testnetOnly,
  ).map((providerId) => {
    const s = stored.find((p) => p.providerId === providerId);
    return {
      providerId,
      enabled: s?.enabled ?? false,
      assets: s ? [...s.assets] : [],
      credentialsSet: s?.credentialsSet ?? false,
      stored: s !== undefined,
      remove: false,
      credentials: {},
    };
  });
}

/** Whether the draft goes in the list: stored and kept, or set up here (an untouched provider is not sent). */
const isListed = (d: RampProviderDraft) =>
  !d.remove && (d.stored || d.enabled || d.assets.length > 0 || Object.keys(typedCredentials(d)).length > 0);

/** The body: the whole list (it replaces the stored one), credentials only when replaced. */
function inputOf(drafts: RampProviderDraft[]): RampSettingsInputWritable {
  return {
    providers: drafts.filter(isListed).map((d) => {
      const credentials = typedCredentials(d);
      return {
        providerId: d.providerId,
        enabled: d.enabled,
        assets: d.assets,
        ...(Object.keys(credentials).length > 0 ? { credentials } : {}),
      };
    }),
  };
}

const PROVIDER_FIELD = /^providers\.(\d+)\.(providerId|enabled|assets|credentials)(\.(.+))?$/;

/** The messages the service gave for `field` (its keys may carry a `body.` prefix). */
function messagesAt(error: unknown, field: string): string[] {
  return Object.entries(failureOf(error).fieldErrors)
    .filter(([path]) => (path.startsWith('body.') ? path.slice('body.'.length) : path) === field)
    .flatMap(([, list]) => list);
}

/**
 * The service's messages about provider `index` of the list sent, by card field: `credentials` messages that start
 * with a credential's name ("apiKey is required") go under that credential's field, written with its label.
 */
function serviceProblemsOf(error: unknown, index: number, providerId: RampProviderId): Map<RampField, string> {
  const found = new Map<RampField, string[]>();
  const add = (field: RampField, message: string) => found.set(field, [...(found.get(field) ?? []), message]);
  const prefix = `providers.${index}.`;
  for (const path of Object.keys(failureOf(error).fieldErrors)) {
    const name = path.startsWith('body.') ? path.slice('body.'.length) : path;
    const match = PROVIDER_FIELD.exec(name);
    if (!match || !name.startsWith(prefix)) continue;
    const [, , part, , rest] = match;
    for (const message of messagesAt(error, name)) {
      if (part === 'credentials') {
        const named = RAMP_PROVIDERS[providerId].credentials.find(
          (c) => c.name === rest || (!rest && message.startsWith(`${c.name} `)),
        );
        if (named)
          add(`credentials.${named.name}`, rest ? message : `${named.label}${message.slice(named.name.length)}`);
        else add('credentials', message);
      } else add(part === 'assets' ? 'assets' : (part as 'providerId' | 'enabled'), message);
    }
  }
  return new Map([...found].map(([field, list]) => [field, list.join('; ')]));
}

function RampProvidersForm({ app, stored, onSaved }: { app: App; stored: StoredProvider[]; onSaved: () => void }) {
  const queryClient = useQueryClient();
  const [drafts, setDrafts] = useState(() => draftsOf(app, stored));
  const [showProblems, setShowProblems] = useState(false);
  // The providers in the order last sent: the service names a field by its index in that list (`providers.1.assets`).
  const [sent, setSent] = useState<RampProviderId[]>([]);
  const update = useMutation({
    ...updateRampSettingsMutation(),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: getRampSettingsQueryKey({ path: { appId: app.appId } }) });
      notifications.show({ color: 'green', message: 'Ramp providers saved' });
      onSaved();
    },
  });
  const change = (providerId: RampProviderId, patch: Partial<RampProviderDraft>) =>
    setDrafts((ds) => ds.map((d) => (d.providerId === providerId ? { ...d, ...patch } : d)));
  const problems = new Map(drafts.map((d) => [d.providerId, rampProblemsOf(d, app.assets)]));
  const hasProblems = [...problems.values()].some((p) => Object.keys(p).length > 0);
  const dirty = JSON.stringify(inputOf(drafts)) !== JSON.stringify(inputOf(draftsOf(app, stored)));
  const removed = drafts.filter((d) => d.stored && d.remove);

  const problemOf = (providerId: RampProviderId) => {
    const index = sent.indexOf(providerId);
    const fromService = index < 0 ? new Map<RampField, string>() : serviceProblemsOf(update.error, index, providerId);
    return (field: RampField) =>
      (showProblems ? problems.get(providerId)?.[field] : undefined) ?? fromService.get(field);
  };
  // The service's messages no provider card shows (the whole list, a provider no longer in the form).
  const unplaced = otherFieldErrors(update.error, (field) => {
    const match = PROVIDER_FIELD.exec(field);
    return match !== null && sent[Number(match[1])] !== undefined;
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setShowProblems(true);
    if (hasProblems) return;
    const body = inputOf(drafts);
    setSent(body.providers.map((p) => p.providerId));
    update.mutate({ path: { appId: app.appId }, body });
  };
  const discard = () => {
    setDrafts(draftsOf(app, stored));
    setShowProblems(false);
    setSent([]);
    update.reset();
  };
  const enabled = drafts.filter((d) => d.enabled && !d.remove).length;

  return (
    <form onSubmit={submit} noValidate aria-labelledby="ramps-heading">
      <Stack gap="md">
        <SectionHeading id="ramps-heading" title="Ramp providers">
          The providers through which your users buy the app’s assets with their currency (on-ramp) and sell them for it
          (off-ramp). Your app gets quotes and starts ramps with the client library or the SDK API; the providers handle
          the money and their own identity checks, and the ramps are listed on the Ramps page.
        </SectionHeading>
        {enabled === 0 ? (
          <Text size="sm">No provider is turned on: your users cannot ramp. Turn one on below.</Text>
        ) : null}
        {drafts.map((d) => (
          <RampProviderCard
            key={d.providerId}
            draft={d}
            appId={app.appId}
            appAssets={app.assets}
            problem={problemOf(d.providerId)}
            onChange={(patch) => change(d.providerId, patch)}
          />
        ))}
        {removed.length > 0 ? (
          <Alert color="yellow" variant="light">
            Saving removes {removed.map((d) => RAMP_PROVIDERS[d.providerId].name).join(', ')} and the credentials stored
            for {removed.length === 1 ? 'it' : 'them'}: users can no longer ramp with{' '}
            {removed.length === 1 ? 'it' : 'them'}.
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
          saveLabel="Save ramp providers"
          dirty={dirty}
          saving={update.isPending}
          onDiscard={discard}
        />
      </Stack>
    </form>
  );
}

/** The Ramps tab of the Settings page. */
export function RampSettingsPanel({ app }: { app: App }) {
  const settings = useQuery({
    ...getRampSettingsOptions({ path: { appId: app.appId } }),
    enabled: app.status === 'active',
  });
  return (
    <Paper withBorder p={{ base: 'sm', sm: 'lg' }} radius="md" maw={860}>
      <SavedSettings app={app} what="ramp providers" query={settings} rows={6}>
        {(data, onSaved) => <RampProvidersForm app={app} stored={data.content.providers} onSaved={onSaved} />}
      </SavedSettings>
    </Paper>
  );
}
