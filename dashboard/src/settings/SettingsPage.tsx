// An app's settings: its name, its end users' token lifetimes, how their wallets are funded and which assets they
// trust, and (second section) the sign-in methods the app offers them; on the KYC tab (`/settings/kyc`), the identity
// verification providers (./KycSettingsPanel.tsx); on the Ramps tab (`/settings/ramps`), the fiat on- and off-ramp
// providers (./RampSettingsPanel.tsx). Any member may change them (updateApp, updateAuthProviders, updateKycSettings
// and updateRampSettings are not owner-only); the app id and network are fixed at creation.
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  Alert,
  Anchor,
  Checkbox,
  Group,
  NumberInput,
  Paper,
  PasswordInput,
  Radio,
  SimpleGrid,
  Stack,
  Switch,
  Tabs,
  TagsInput,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import {
  getAppDomainsOptions,
  getAppQueryKey,
  getAuthProvidersOptions,
  getAuthProvidersQueryKey,
  listAppsQueryKey,
  updateAppMutation,
  updateAuthProvidersMutation,
} from '../../../generated/dashboard/@tanstack/react-query.gen';
import type { App, AuthProviders, AuthProvidersInput, UpdateAppData } from '../../../generated/dashboard/types.gen';
import { failureOf, fieldErrorOf } from '../api/errors';
import { CopyValue } from '../components/CopyValue';
import { DiscardOrSaveButtons } from '../components/DiscardOrSaveButtons';
import { ErrorAlert } from '../components/ErrorAlert';
import { trimAmount } from '../components/format';
import { PageHeader } from '../components/PageHeader';
import { PageTabs, type PageTab } from '../components/PageTabs';
import { SavedSettings } from '../components/SavedSettings';
import { useCurrentApp } from '../layout/currentApp';
import { NetworkBadge } from '../layout/Shell';
import { KycSettingsPanel } from './KycSettingsPanel';
import { RampSettingsPanel } from './RampSettingsPanel';

// The contract's bounds (updateApp.yaml, Amount.yaml, Asset.yaml), checked here so a mistake is shown before saving.
const ACCESS_TTL_MAX_MINUTES = 1440;
const REFRESH_TTL_MAX_DAYS = 365;
const MAX_ASSETS = 20;
const AMOUNT_FORM = /^(0|[1-9][0-9]{0,11})(\.[0-9]{1,7})?$/;
const ISSUED_ASSET_FORM = /^[A-Za-z0-9]{1,12}:G[A-Z2-7]{55}$/;

type AppChanges = NonNullable<UpdateAppData['body']>;

interface AppFields {
  name: string;
  accessTokenTtlMinutes: string | number;
  refreshTokenTtlDays: string | number;
  fundingMode: 'immediate' | 'deferred';
  startingBalanceXlm: string;
  assets: string[];
}

function fieldsOf(app: App): AppFields {
  return {
    name: app.name,
    accessTokenTtlMinutes: app.accessTokenTtlMinutes,
    refreshTokenTtlDays: app.refreshTokenTtlDays,
    fundingMode: app.fundingMode,
    startingBalanceXlm: trimAmount(app.startingBalanceXlm),
    assets: app.assets,
  };
}

const sameList = (a: string[], b: string[]) => a.length === b.length && a.every((v, i) => v === b[i]);

function wholeNumberIn(value: string | number, max: number): number | undefined {
  const n = typeof value === 'number' ? value : Number(value);
  return Number.isInteger(n) && n >= 1 && n <= max ? n : undefined;
}

/** The reserve each funded wallet locks: 1 XLM + 0.5 XLM per asset, written without floating point. */
function reservePerWallet(assetCount: number): string {
  return `${1 + Math.floor(assetCount / 2)}${assetCount % 2 ? '.5' : ''}`;
}

/** Only the fields that differ from the stored app (PATCH semantics), and what is wrong with them before sending. */
function changesOf(
  app: App,
  fields: AppFields,
): { changes: AppChanges; problems: Partial<Record<keyof AppFields, string>> } {
  const stored = fieldsOf(app);
  const changes: AppChanges = {};
  const problems: Partial<Record<keyof AppFields, string>> = {};
  const name = fields.name.trim();
  if (name !== stored.name) {
    if (name.length < 1 || name.length > 100) problems.name = 'Give the app a name of 1 to 100 characters.';
    else changes.name = name;
  }
  if (String(fields.accessTokenTtlMinutes) !== String(stored.accessTokenTtlMinutes)) {
    const n = wholeNumberIn(fields.accessTokenTtlMinutes, ACCESS_TTL_MAX_MINUTES);
    if (n === undefined)
      problems.accessTokenTtlMinutes = `A whole number of minutes from 1 to ${ACCESS_TTL_MAX_MINUTES}.`;
    else changes.accessTokenTtlMinutes = n;
  }
  if (String(fields.refreshTokenTtlDays) !== String(stored.refreshTokenTtlDays)) {
    const n = wholeNumberIn(fields.refreshTokenTtlDays, REFRESH_TTL_MAX_DAYS);
    if (n === undefined) problems.refreshTokenTtlDays = `A whole number of days from 1 to ${REFRESH_TTL_MAX_DAYS}.`;
    else changes.refreshTokenTtlDays = n;
  }
  if (fields.fundingMode !== stored.fundingMode) changes.fundingMode = fields.fundingMode;
  const balance = fields.startingBalanceXlm.trim();
  if (balance !== stored.startingBalanceXlm) {
    if (!AMOUNT_FORM.test(balance)) {
      problems.startingBalanceXlm = 'An amount of XLM such as 0, 2 or 2.5 (at most 7 decimal places).';
    } else changes.startingBalanceXlm = balance;
  }
  if (!sameList(fields.assets, stored.assets)) {
    const wrong = fields.assets.filter((a) => !ISSUED_ASSET_FORM.test(a));
    if (wrong.length) {
      problems.assets = `Not an issued asset (CODE:ISSUER, e.g. USDC:GA5Z…): ${wrong.join(', ')}. XLM needs no trustline.`;
    } else if (fields.assets.length > MAX_ASSETS) problems.assets = `At most ${MAX_ASSETS} assets.`;
    else changes.assets = fields.assets;
  }
  return { changes, problems };
}

/** The server's messages about the assets list (`assets.2`), each named by the asset it concerns. */
function assetsErrorOf(error: unknown, sent: string[] | undefined): string | undefined {
  const lines: string[] = [];
  const whole = fieldErrorOf(error, 'assets');
  if (whole) lines.push(whole);
  sent?.forEach((asset, i) => {
    const message = fieldErrorOf(error, `assets.${i}`);
    if (message) lines.push(`${asset}: ${message}`);
  });
  return lines.length ? lines.join(' · ') : undefined;
}

function AppSettingsForm({ app }: { app: App }) {
  const queryClient = useQueryClient();
  // Only what the operator changed is held here, so a refetch of the app shows through every untouched field.
  const [draft, setDraft] = useState<Partial<AppFields>>({});
  const [sentAssets, setSentAssets] = useState<string[]>();
  const [showProblems, setShowProblems] = useState(false);
  const fields: AppFields = { ...fieldsOf(app), ...draft };
  const set = <K extends keyof AppFields>(key: K, value: AppFields[K]) => setDraft((d) => ({ ...d, [key]: value }));
  const { changes, problems } = changesOf(app, fields);
  const dirty = Object.keys(changes).length > 0 || Object.keys(problems).length > 0;
  const archived = app.status === 'archived';

  const update = useMutation({
    ...updateAppMutation(),
    onSuccess: async (data) => {
      // Wait for the fresh app before dropping the draft, so the form never shows the old values in between.
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: getAppQueryKey({ path: { appId: app.appId } }) }),
        queryClient.invalidateQueries({ queryKey: listAppsQueryKey() }),
      ]);
      setDraft({});
      setShowProblems(false);
      notifications.show({ color: 'green', message: `Settings of ${data.content.name} saved` });
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setShowProblems(true);
    if (Object.keys(problems).length || !Object.keys(changes).length) return;
    setSentAssets(changes.assets);
    update.mutate({ path: { appId: app.appId }, body: changes });
  };
  const reset = () => {
    setDraft({});
    setShowProblems(false);
    update.reset();
  };

  const errorOf = (field: keyof AppFields) =>
    (showProblems ? problems[field] : undefined) ??
    (field === 'assets' ? assetsErrorOf(update.error, sentAssets) : fieldErrorOf(update.error, field));
  const fieldNames: (keyof AppFields)[] = [
    'name',
    'accessTokenTtlMinutes',
    'refreshTokenTtlDays',
    'fundingMode',
    'startingBalanceXlm',
    'assets',
  ];
  // A failure that is not about one field (or a field this form does not show) goes above the buttons.
  const generalError =
    update.error &&
    !fieldNames.some((f) => (f === 'assets' ? assetsErrorOf(update.error, sentAssets) : fieldErrorOf(update.error, f)))
      ? update.error
      : undefined;

  return (
    <form onSubmit={submit} noValidate aria-labelledby="app-settings-heading">
      <Stack gap="md">
        <Title order={2} size="h3" id="app-settings-heading">
          App settings
        </Title>
        {archived ? (
          <Text size="sm" c="dimmed">
            An archived app’s settings cannot be changed. The owner can restore it from the apps list.
          </Text>
        ) : null}
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md">
          <Stack gap={4}>
            <Text size="sm" fw={500} id="app-id-label">
              App id
            </Text>
            <div aria-labelledby="app-id-label" role="group">
              <CopyValue value={app.appId} label="app id" />
            </div>
          </Stack>
          <Stack gap={4}>
            <Text size="sm" fw={500}>
              Network
            </Text>
            <Group gap="xs" wrap="wrap">
              <NetworkBadge network={app.network} />
              <Text size="xs" c="dimmed">
                Fixed at creation: a {app.network === 'mainnet' ? 'testnet' : 'mainnet'} app is a separate app.
              </Text>
            </Group>
          </Stack>
        </SimpleGrid>

        <TextInput
          label="Name"
          description="Shown to your team in the dashboard."
          required
          maxLength={100}
          value={fields.name}
          onChange={(e) => set('name', e.currentTarget.value)}
          error={errorOf('name')}
          disabled={archived}
        />

        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md">
          <NumberInput
            label="Access token lifetime (minutes)"
            description={`How long an end user’s access token lasts (1 to ${ACCESS_TTL_MAX_MINUTES}).`}
            min={1}
            max={ACCESS_TTL_MAX_MINUTES}
            allowDecimal={false}
            allowNegative={false}
            value={fields.accessTokenTtlMinutes}
            onChange={(v) => set('accessTokenTtlMinutes', v)}
            error={errorOf('accessTokenTtlMinutes')}
            disabled={archived}
          />
          <NumberInput
            label="Refresh token lifetime (days)"
            description={`How long an end user stays signed in (1 to ${REFRESH_TTL_MAX_DAYS}).`}
            min={1}
            max={REFRESH_TTL_MAX_DAYS}
            allowDecimal={false}
            allowNegative={false}
            value={fields.refreshTokenTtlDays}
            onChange={(v) => set('refreshTokenTtlDays', v)}
            error={errorOf('refreshTokenTtlDays')}
            disabled={archived}
          />
        </SimpleGrid>
        <Text size="xs" c="dimmed" mt={-8}>
          New lifetimes apply to tokens issued after the change.
        </Text>

        <Radio.Group
          label="Funding mode"
          description="A change applies only to wallets created after it; existing wallets keep their state."
          value={fields.fundingMode}
          onChange={(v) => set('fundingMode', v)}
          error={errorOf('fundingMode')}
          disabled={archived}
        >
          <Stack gap="sm" mt="xs">
            <Radio
              value="immediate"
              label="Immediate"
              description="Each user’s wallet is created and funded at their first sign-in, ready in under 3 seconds. A reserve is locked for every registration, including users who never come back."
            />
            <Radio
              value="deferred"
              label="Deferred"
              description="The wallet is created unfunded and activated later: by your backend with POST /v1/wallets/fund (secret key) or with the Fund action under Users. A reserve is locked only for funded wallets."
            />
          </Stack>
        </Radio.Group>

        <TextInput
          label="Starting balance (XLM)"
          description="Spendable XLM paid to each wallet when it is funded, on top of the sponsored reserve; 0 for none."
          inputMode="decimal"
          value={fields.startingBalanceXlm}
          onChange={(e) => set('startingBalanceXlm', e.currentTarget.value)}
          error={errorOf('startingBalanceXlm')}
          rightSection={
            <Text size="xs" c="dimmed">
              XLM
            </Text>
          }
          disabled={archived}
        />

        <TagsInput
          label="Assets"
          description="Issued assets (CODE:ISSUER) every new or activated wallet gets a trustline for. Press Enter after each. Adding one also adds it to funded wallets in the background; removing one never removes a trustline."
          placeholder={fields.assets.length ? undefined : 'USDC:GA5Z…'}
          value={fields.assets}
          onChange={(v) => set('assets', v.map((a) => a.trim()).filter(Boolean))}
          isDuplicate={(value, current) => current.includes(value.trim())}
          maxTags={MAX_ASSETS}
          // No suggestions to offer: the dropdown never opens nor stays in the DOM, so "Assets" names only the input.
          dropdownOpened={false}
          comboboxProps={{ keepMounted: false }}
          splitChars={[',', ' ']}
          error={errorOf('assets')}
          disabled={archived}
        />
        <Text size="sm">
          Each funded wallet locks <strong>{reservePerWallet(fields.assets.length)} XLM</strong> of reserve in the
          funding wallet (1 XLM + 0.5 XLM per asset)
          {AMOUNT_FORM.test(fields.startingBalanceXlm.trim()) && fields.startingBalanceXlm.trim() !== '0'
            ? `, and receives ${fields.startingBalanceXlm} XLM starting balance`
            : ''}
          .
        </Text>

        {generalError ? <ErrorAlert error={generalError} /> : null}
        <DiscardOrSaveButtons
          saveLabel="Save settings"
          dirty={dirty}
          saving={update.isPending}
          onDiscard={reset}
          disabled={archived}
        />
      </Stack>
    </form>
  );
}

type OAuthProviderId = 'google' | 'github';
const OAUTH_PROVIDERS: { id: OAuthProviderId; name: string; clientIdHelp: string }[] = [
  { id: 'google', name: 'Google', clientIdHelp: 'The OAuth client id of your Google Cloud project.' },
  { id: 'github', name: 'GitHub', clientIdHelp: 'The client id of your GitHub OAuth app.' },
];

interface OAuthDraft {
  enabled: boolean;
  clientId: string;
  /** A new secret to store; empty keeps the stored one. */
  clientSecret: string;
  deleteSecret: boolean;
}

interface ProvidersDraft {
  email: boolean;
  google: OAuthDraft;
  github: OAuthDraft;
  stellar: boolean;
}

function draftOf(providers: AuthProviders): ProvidersDraft {
  const oauth = (p: AuthProviders['google']): OAuthDraft => ({
    enabled: p.enabled,
    clientId: p.clientId ?? '',
    clientSecret: '',
    deleteSecret: false,
  });
  return {
    email: providers.email.enabled,
    google: oauth(providers.google),
    github: oauth(providers.github),
    stellar: providers.stellar.enabled,
  };
}

/** The body for updateAuthProviders: every provider, with client ids and secrets sent only when they change. */
function providersInputOf(stored: AuthProviders, draft: ProvidersDraft): AuthProvidersInput {
  const oauth = (id: OAuthProviderId) => {
    const d = draft[id];
    const clientId = d.clientId.trim();
    return {
      enabled: d.enabled,
      ...(clientId !== (stored[id].clientId ?? '') ? { clientId: clientId || null } : {}),
      ...(d.clientSecret ? { clientSecret: d.clientSecret } : d.deleteSecret ? { clientSecret: null } : {}),
    };
  };
  return {
    email: { enabled: draft.email },
    google: oauth('google'),
    github: oauth('github'),
    stellar: { enabled: draft.stellar },
  };
}

/** Google and GitHub can be turned on only with a client id and a secret (else 422 OAUTH_PROVIDER_NOT_CONFIGURED). */
function missingCredentials(stored: AuthProviders, d: OAuthDraft, id: OAuthProviderId): string | undefined {
  if (!d.enabled) return undefined;
  const hasSecret = d.clientSecret !== '' || (stored[id].clientSecretSet && !d.deleteSecret);
  if (!d.clientId.trim() && !hasSecret) return 'Enter a client id and a client secret to turn this on.';
  if (!d.clientId.trim()) return 'Enter a client id to turn this on.';
  if (!hasSecret) return 'Enter a client secret to turn this on.';
  return undefined;
}

function ProvidersForm({ appId, stored, onSaved }: { appId: string; stored: AuthProviders; onSaved: () => void }) {
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<ProvidersDraft>(() => draftOf(stored));
  const [showProblems, setShowProblems] = useState(false);
  const domains = useQuery(getAppDomainsOptions({ path: { appId } }));
  const update = useMutation({
    ...updateAuthProvidersMutation(),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: getAuthProvidersQueryKey({ path: { appId } }) });
      notifications.show({ color: 'green', message: 'Sign-in providers saved' });
      onSaved();
    },
  });
  const setOAuth = (id: OAuthProviderId, patch: Partial<OAuthDraft>) =>
    setDraft((d) => ({ ...d, [id]: { ...d[id], ...patch } }));
  const problems = {
    google: missingCredentials(stored, draft.google, 'google'),
    github: missingCredentials(stored, draft.github, 'github'),
  };
  const dirty = JSON.stringify(draft) !== JSON.stringify(draftOf(stored));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setShowProblems(true);
    if (problems.google || problems.github) return;
    update.mutate({ path: { appId }, body: providersInputOf(stored, draft) });
  };

  const failure = update.error ? failureOf(update.error) : undefined;
  const hasFieldErrors = failure ? Object.keys(failure.fieldErrors).length > 0 : false;
  const needsRedirectUri =
    (stored.google.enabled || stored.github.enabled) && domains.data?.content.redirectUris.length === 0;

  return (
    <form onSubmit={submit} noValidate aria-labelledby="providers-heading">
      <Stack gap="md">
        <div>
          <Title order={2} size="h3" id="providers-heading">
            Sign-in providers
          </Title>
          <Text size="sm" c="dimmed">
            How your end users sign in. Turning a provider off stops new sign-ins with it; existing sessions are kept.
          </Text>
        </div>
        {needsRedirectUri ? (
          <Alert color="red" variant="light" title="Google and GitHub also need a redirect URI">
            OAuth sign-in fails until your app’s callback address is listed under{' '}
            <Anchor component={Link} to={`/apps/${appId}/domains`}>
              Domains
            </Anchor>
            .
          </Alert>
        ) : null}
        <Switch
          label="Email code"
          description="Users sign in with a one-time code sent to their email."
          checked={draft.email}
          onChange={(e) => setDraft((d) => ({ ...d, email: e.currentTarget.checked }))}
        />
        {OAUTH_PROVIDERS.map(({ id, name, clientIdHelp }) => {
          const d = draft[id];
          const secretSet = stored[id].clientSecretSet;
          return (
            <Paper key={id} withBorder p="sm" radius="md">
              <Stack gap="sm">
                <Switch
                  label={name}
                  description={`Users sign in with their ${name} account (OAuth).`}
                  checked={d.enabled}
                  onChange={(e) => setOAuth(id, { enabled: e.currentTarget.checked })}
                  error={(showProblems ? problems[id] : undefined) ?? fieldErrorOf(update.error, `${id}.enabled`)}
                />
                <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
                  <TextInput
                    label={`${name} client id`}
                    description={clientIdHelp}
                    maxLength={200}
                    value={d.clientId}
                    onChange={(e) => setOAuth(id, { clientId: e.currentTarget.value })}
                    error={fieldErrorOf(update.error, `${id}.clientId`)}
                    autoComplete="off"
                  />
                  <PasswordInput
                    label={`${name} client secret`}
                    description={
                      secretSet
                        ? 'A secret is stored (it is never shown). Type a new one to replace it.'
                        : 'No secret stored yet. It is stored encrypted and never shown again.'
                    }
                    placeholder={secretSet && !d.deleteSecret ? 'Stored: leave empty to keep' : undefined}
                    maxLength={500}
                    value={d.clientSecret}
                    onChange={(e) => setOAuth(id, { clientSecret: e.currentTarget.value })}
                    error={fieldErrorOf(update.error, `${id}.clientSecret`)}
                    autoComplete="new-password"
                    visibilityToggleButtonProps={{ 'aria-label': `Show the ${name} secret` }}
                  />
                </SimpleGrid>
                {secretSet ? (
                  <Checkbox
                    label={`Delete the stored ${name} client secret`}
                    checked={d.deleteSecret}
                    disabled={d.clientSecret !== ''}
                    onChange={(e) => setOAuth(id, { deleteSecret: e.currentTarget.checked })}
                  />
                ) : null}
              </Stack>
            </Paper>
          );
        })}
        <Switch
          label="Stellar wallet"
          description="Users sign in with their own Stellar wallet (SEP-10); the wallet stays in their custody."
          checked={draft.stellar}
          onChange={(e) => setDraft((d) => ({ ...d, stellar: e.currentTarget.checked }))}
        />
        {failure?.code === 'OAUTH_PROVIDER_NOT_CONFIGURED' ? (
          // The catalogue's message is about the dashboard's own sign-in; here the app's credentials are missing.
          <Alert color="red" variant="light" role="alert">
            Google and GitHub can be turned on only with both a client id and a client secret. Nothing was changed.
          </Alert>
        ) : update.error && !hasFieldErrors ? (
          <ErrorAlert error={update.error} />
        ) : null}
        <DiscardOrSaveButtons
          saveLabel="Save sign-in providers"
          dirty={dirty}
          saving={update.isPending}
          onDiscard={() => {
            setDraft(draftOf(stored));
            setShowProblems(false);
            update.reset();
          }}
        />
      </Stack>
    </form>
  );
}

function ProvidersSection({ app }: { app: App }) {
  const providers = useQuery({
    ...getAuthProvidersOptions({ path: { appId: app.appId } }),
    enabled: app.status === 'active',
  });
  return (
    <SavedSettings
      app={app}
      what="sign-in providers"
      heading={
        <Title order={2} size="h3">
          Sign-in providers
        </Title>
      }
      query={providers}
      rows={5}
    >
      {(data, onSaved) => <ProvidersForm appId={app.appId} stored={data.content} onSaved={onSaved} />}
    </SavedSettings>
  );
}

type SettingsTab = 'app' | 'kyc' | 'ramps';
const SETTINGS_TABS: PageTab<SettingsTab>[] = [
  { value: 'app', label: 'App and sign-in', path: '' },
  { value: 'kyc', label: 'KYC', path: '/kyc' },
  { value: 'ramps', label: 'Ramps', path: '/ramps' },
];

/** The Settings page on its app and sign-in tab (`/settings`), its KYC tab (`/settings/kyc`) or Ramps tab. */
export function SettingsPage({ tab = 'app' }: { tab?: SettingsTab }) {
  const app = useCurrentApp();
  return (
    <>
      <PageHeader
        title="Settings"
        description="How this app’s end users sign in, how their wallets are set up, how they verify their identity and through which providers they buy and sell its assets. Every member of the app can change these."
      />
      <PageTabs value={tab} base={`/apps/${app.appId}/settings`} tabs={SETTINGS_TABS}>
        <Tabs.Panel value="app">
          <Stack gap="lg" maw={860}>
            <Paper withBorder p={{ base: 'sm', sm: 'lg' }} radius="md">
              <AppSettingsForm app={app} />
            </Paper>
            <Paper withBorder p={{ base: 'sm', sm: 'lg' }} radius="md">
              <ProvidersSection app={app} />
            </Paper>
          </Stack>
        </Tabs.Panel>
        <Tabs.Panel value="kyc">
          <KycSettingsPanel app={app} />
        </Tabs.Panel>
        <Tabs.Panel value="ramps">
          <RampSettingsPanel app={app} />
        </Tabs.Panel>
      </PageTabs>
    </>
  );
}

/** The page's KYC tab, as its own address. */
export function KycSettingsPage() {
  return <SettingsPage tab="kyc" />;
}

/** The page's Ramps tab, as its own address. */
export function RampSettingsPage() {
  return <SettingsPage tab="ramps" />;
}
