// An app's Domains: the web origins allowed to use it from a browser (CORS and publishable-key requests) and the
// redirect URIs Google and GitHub sign-in may return to. Both lists match exactly, so entries are checked here in
// the one form the service accepts, and the service's own per-entry errors (`origins.2`) are shown beside the entry.
import { useState, type FormEvent, type KeyboardEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ActionIcon, Button, Code, Group, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconAlertCircle, IconTrash } from '@tabler/icons-react';
import {
  getAppDomainsOptions,
  getAppDomainsQueryKey,
  updateAppDomainsMutation,
} from '../../../generated/dashboard/@tanstack/react-query.gen';
import type { AppDomains } from '../../../generated/dashboard/types.gen';
import { failureOf, fieldErrorOf } from '../api/errors';
import { DiscardOrSaveButtons } from '../components/DiscardOrSaveButtons';
import { ErrorAlert } from '../components/ErrorAlert';
import { PageHeader } from '../components/PageHeader';
import { QueryState } from '../components/QueryState';
import { useCurrentApp } from '../layout/currentApp';

type ListName = keyof AppDomains;

// The contract's forms (AppDomains.yaml).
const MAX_ENTRIES = 50;
const ORIGIN_FORM = /^(https:\/\/[a-z0-9]([a-z0-9.-]*[a-z0-9])?|http:\/\/(localhost|127\.0\.0\.1))(:[0-9]{1,5})?$/;
const REDIRECT_URI_FORM = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s*#]+$/;

function originProblem(value: string): string | undefined {
  if (value.includes('*')) return 'No wildcards: list each origin exactly.';
  if (ORIGIN_FORM.test(value)) {
    // Browsers send the canonical form (no default port): another spelling would never match.
    let canonical: string | undefined;
    try {
      canonical = new URL(value).origin;
    } catch {
      return 'Not a valid origin: check the port.';
    }
    return canonical === value ? undefined : `Write it as ${canonical}`;
  }
  if (value !== value.toLowerCase()) return 'Write the origin in lower case.';
  if (/^https?:\/\/[^/]+\/.*$/.test(value))
    return 'An origin has no path or trailing slash: scheme://host[:port] only.';
  if (value.startsWith('http://')) return 'Use https (http is allowed only for localhost and 127.0.0.1).';
  return 'An origin such as https://app.example.com or http://localhost:3000.';
}

function redirectUriProblem(value: string): string | undefined {
  if (value.includes('*')) return 'No wildcards: list each redirect URI exactly.';
  if (value.includes('#')) return 'A redirect URI cannot have a fragment (#…).';
  if (!REDIRECT_URI_FORM.test(value)) {
    return 'An exact URI such as https://app.example.com/auth/callback or com.example.app://auth/callback.';
  }
  return undefined;
}

const LISTS: Record<
  ListName,
  {
    title: string;
    entry: string;
    placeholder: string;
    problem: (v: string) => string | undefined;
    help: string;
    empty: string;
  }
> = {
  origins: {
    title: 'Allowed origins',
    entry: 'origin',
    placeholder: 'https://app.example.com',
    problem: originProblem,
    help: 'Web apps allowed to call the SDK API from a browser: CORS, and every publishable-key request that carries an Origin header must come from one of these (ORIGIN_NOT_ALLOWED otherwise). Exact origins, lower case, no path or trailing slash; http only for localhost and 127.0.0.1.',
    empty: 'No origins yet: browsers cannot use your publishable key until you add your web app’s origin.',
  },
  redirectUris: {
    title: 'Redirect URIs',
    entry: 'redirect URI',
    placeholder: 'https://app.example.com/auth/callback',
    problem: redirectUriProblem,
    help: 'Where Google and GitHub sign-in may send your users back to. A URI not listed is refused (REDIRECT_URI_NOT_ALLOWED). Exact URIs, no wildcards or fragments; a custom scheme is allowed for mobile apps.',
    empty: 'No redirect URIs yet: Google and GitHub sign-in fail (APPLICATION_HAS_NO_REDIRECT_URIS) until you add one.',
  },
};

function DomainList({
  name,
  values,
  onChange,
  errors,
}: {
  name: ListName;
  values: string[];
  onChange: (values: string[]) => void;
  /** The service's message for an entry, by value. */
  errors: Map<string, string>;
}) {
  const list = LISTS[name];
  const [input, setInput] = useState('');
  const [inputError, setInputError] = useState<string>();
  const headingId = `${name}-heading`;
  const add = () => {
    const value = input.trim();
    if (!value) return;
    const problem =
      list.problem(value) ??
      (values.includes(value) ? 'Already in the list.' : undefined) ??
      (values.length >= MAX_ENTRIES ? `At most ${MAX_ENTRIES} entries.` : undefined);
    if (problem) {
      setInputError(problem);
      return;
    }
    onChange([...values, value]);
    setInput('');
    setInputError(undefined);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    // Enter adds the entry; it must not submit the whole form.
    if (event.key === 'Enter') {
      event.preventDefault();
      add();
    }
  };
  return (
    <Stack gap="sm" component="section" aria-labelledby={headingId}>
      <div>
        <Title order={2} size="h3" id={headingId}>
          {list.title}
        </Title>
        <Text size="sm" c="dimmed">
          {list.help}
        </Text>
      </div>
      {values.length === 0 ? (
        <Text size="sm" fs="italic">
          {list.empty}
        </Text>
      ) : (
        <Stack component="ul" gap={6} p={0} m={0} style={{ listStyle: 'none' }} aria-labelledby={headingId}>
          {values.map((value) => {
            const error = errors.get(value);
            const errorId = error ? `${name}-${encodeURIComponent(value)}-error` : undefined;
            return (
              <li key={value}>
                <Group gap="xs" wrap="nowrap" justify="space-between" align="flex-start">
                  <Stack gap={2} style={{ minWidth: 0 }}>
                    <Code style={{ wordBreak: 'break-all' }} aria-describedby={errorId}>
                      {value}
                    </Code>
                    {error ? (
                      <Group gap={4} wrap="nowrap" align="flex-start" id={errorId}>
                        <IconAlertCircle
                          size={16}
                          color="var(--mantine-color-red-text)"
                          aria-hidden
                          style={{ flex: 'none' }}
                        />
                        <Text size="xs" c="red">
                          Not accepted: {error}
                        </Text>
                      </Group>
                    ) : null}
                  </Stack>
                  <ActionIcon
                    variant="subtle"
                    color="red"
                    aria-label={`Remove ${list.entry} ${value}`}
                    onClick={() => onChange(values.filter((v) => v !== value))}
                  >
                    <IconTrash size={16} />
                  </ActionIcon>
                </Group>
              </li>
            );
          })}
        </Stack>
      )}
      <Group gap="xs" align="flex-start" wrap="nowrap">
        <TextInput
          label={name === 'origins' ? 'Add an origin' : 'Add a redirect URI'}
          placeholder={list.placeholder}
          value={input}
          onChange={(e) => {
            setInput(e.currentTarget.value);
            setInputError(undefined);
          }}
          onKeyDown={onKeyDown}
          error={inputError}
          style={{ flex: 1 }}
          autoComplete="off"
          spellCheck={false}
        />
        <Button variant="light" onClick={add} mt={25} disabled={!input.trim()}>
          Add
        </Button>
      </Group>
    </Stack>
  );
}

/** The service's per-entry messages (`origins.2`), keyed by the entry they concern in the lists that were sent. */
function entryErrorsOf(error: unknown, sent: AppDomains | undefined, name: ListName): Map<string, string> {
  const out = new Map<string, string>();
  sent?.[name].forEach((value, i) => {
    const message = fieldErrorOf(error, `${name}.${i}`);
    if (message) out.set(value, message);
  });
  return out;
}

function DomainsForm({ appId, stored }: { appId: string; stored: AppDomains }) {
  const queryClient = useQueryClient();
  // Undefined until the operator changes something, so a refetch shows through an untouched form.
  const [draft, setDraft] = useState<AppDomains>();
  const [sent, setSent] = useState<AppDomains>();
  const lists = draft ?? stored;
  const update = useMutation({
    ...updateAppDomainsMutation(),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: getAppDomainsQueryKey({ path: { appId } }) });
      setDraft(undefined);
      notifications.show({ color: 'green', message: 'Domains saved: they apply from the next request' });
    },
  });
  const dirty = draft !== undefined && JSON.stringify(draft) !== JSON.stringify(stored);
  const setList = (name: ListName, values: string[]) => setDraft({ ...lists, [name]: values });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setSent(lists);
    update.mutate({ path: { appId }, body: lists });
  };

  const failure = update.error ? failureOf(update.error) : undefined;
  const errors = {
    origins: entryErrorsOf(update.error, sent, 'origins'),
    redirectUris: entryErrorsOf(update.error, sent, 'redirectUris'),
  };
  // Whole-list messages (too many entries) and anything else the entries do not explain.
  const listMessages = (['origins', 'redirectUris'] as const)
    .map((name) => fieldErrorOf(update.error, name) && `${LISTS[name].title}: ${fieldErrorOf(update.error, name)}`)
    .filter(Boolean);
  const explained = errors.origins.size + errors.redirectUris.size + listMessages.length > 0;

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="xl">
        <DomainList
          name="origins"
          values={lists.origins}
          onChange={(v) => setList('origins', v)}
          errors={errors.origins}
        />
        <DomainList
          name="redirectUris"
          values={lists.redirectUris}
          onChange={(v) => setList('redirectUris', v)}
          errors={errors.redirectUris}
        />
        {failure && explained ? (
          <Text size="sm" c="red" role="alert">
            Nothing was saved: fix the entries marked “Not accepted”. {listMessages.join(' ')}
          </Text>
        ) : update.error ? (
          <ErrorAlert error={update.error} />
        ) : null}
        <DiscardOrSaveButtons
          saveLabel="Save domains"
          dirty={dirty}
          saving={update.isPending}
          onDiscard={() => {
            setDraft(undefined);
            update.reset();
          }}
        />
      </Stack>
    </form>
  );
}

export function DomainsPage() {
  const app = useCurrentApp();
  // An archived app answers 404 to this read: say so instead of "not found".
  const domains = useQuery({
    ...getAppDomainsOptions({ path: { appId: app.appId } }),
    enabled: app.status === 'active',
  });
  return (
    <>
      <PageHeader
        title="Domains"
        description="Where this app may be used from. Both lists match exactly (no wildcards) and apply from the next request. Every member of the app can change them."
      />
      <Paper withBorder p={{ base: 'sm', sm: 'lg' }} radius="md" maw={860}>
        {app.status === 'active' ? (
          <QueryState query={domains} rows={6}>
            {(data) => <DomainsForm appId={app.appId} stored={data.content} />}
          </QueryState>
        ) : (
          <Text size="sm" c="dimmed">
            An archived app’s domains cannot be read or changed until the owner restores it.
          </Text>
        )}
      </Paper>
    </>
  );
}
