// One ramp provider of an app on the Settings page's Ramps tab (./RampSettingsPanel.tsx): what it is, its enabled
// switch, the app's assets users may ramp through it (checkboxes), and its credentials (write-only: "Stored" when the
// service has them, fields that start empty; values typed replace every stored credential of the provider on save).
// Also the providers this service supports, as the dashboard describes them.
import { useId } from 'react';
import { Link } from 'react-router';
import {
  Anchor,
  Badge,
  Checkbox,
  Group,
  Paper,
  PasswordInput,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  Textarea,
  TextInput,
} from '@mantine/core';
import type { RampSettings } from '../../../generated/dashboard/types.gen';
import { SectionHeading } from '../components/SectionHeading';
import { assetLabel } from '../treasury/assets';

export type RampProviderId = RampSettings['providers'][number]['providerId'];

interface RampCredentialInfo {
  /** Its name in the API (`apiKey`). */
  name: string;
  label: string;
  /** Needed to turn the provider on; the others are read when stored. */
  required: boolean;
  /** `secret` is masked; `pem` is a multi-line public key. */
  kind: 'secret' | 'text' | 'pem';
  help: string;
  /** What is wrong with a typed value, checked before sending. */
  check?: (value: string) => string | undefined;
}

interface RampProviderInfo {
  name: string;
  /** For tables (the Ramps page). */
  shortName: string;
  /** What it is, for an operator choosing it. */
  description: string;
  credentials: RampCredentialInfo[];
  /** Offered to testnet apps only (and only by a development service). */
  testnetOnly?: boolean;
}

const HOST_NAME = /^([a-z0-9]([a-z0-9-]*[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]*[a-z0-9])?(:[0-9]{1,5})?$/i;
const PERCENT = /^(0|[1-9][0-9]?)(\.[0-9]{1,6})?$/;

/** The providers this service supports, in the order the tab shows them (src/domain/ramps/registry.ts). */
export const RAMP_PROVIDERS: Record<RampProviderId, RampProviderInfo> = {
  sandbox: {
    name: 'Sandbox (development)',
    shortName: 'Sandbox',
    description:
      'On- and off-ramps in USD that really settle on the network against a local fiat ledger: each on-ramp’s deposit page has a button for you to confirm the deposit, and no money moves. Ramps the service’s demo USDC only. Testnet only, on a development service.',
    credentials: [],
    testnetOnly: true,
  },
  bridge: {
    name: 'Bridge',
    shortName: 'Bridge',
    description:
      'Bridge (bridge.xyz): US dollars by ACH and euros by SEPA, to and from USDC on Stellar. Users complete Bridge’s own identity checks. Bridge settles on mainnet; on testnet an on-ramp stops at its deposit instructions.',
    credentials: [
      {
        name: 'apiKey',
        label: 'API key',
        required: true,
        kind: 'secret',
        help: 'Your Bridge API key (Bridge dashboard, API keys).',
      },
      {
        name: 'webhookPublicKey',
        label: 'Webhook public key',
        required: false,
        kind: 'pem',
        help: 'The PEM public key Bridge shows for your webhook endpoint. Without it Bridge’s webhooks are refused and ramps are followed by polling only.',
        check: (v) =>
          /^-----BEGIN PUBLIC KEY-----[\s\S]+-----END PUBLIC KEY-----$/.test(v)
            ? undefined
            : 'A PEM public key, from -----BEGIN PUBLIC KEY----- to -----END PUBLIC KEY-----.',
      },
      {
        name: 'developerFeePercent',
        label: 'Developer fee (%)',
        required: false,
        kind: 'text',
        help: 'A percentage of each ramp’s source amount Bridge withholds for you, e.g. 0.5. None when empty.',
        check: (v) => (PERCENT.test(v) ? undefined : 'A percentage below 100, such as 0.5 or 1.25 (no % sign).'),
      },
    ],
  },
  etherfuse: {
    name: 'Etherfuse',
    shortName: 'Etherfuse',
    description:
      'Etherfuse: Mexican pesos over SPEI, to and from USDC on Stellar. Users complete Etherfuse’s own onboarding (identity and bank account).',
    credentials: [
      {
        name: 'apiKey',
        label: 'API key',
        required: true,
        kind: 'secret',
        help: 'Your Etherfuse API key.',
      },
      {
        name: 'webhookSecret',
        label: 'Webhook secret',
        required: false,
        kind: 'secret',
        help: 'Verifies Etherfuse’s order_updated webhooks. Without it ramps are followed by polling only.',
      },
    ],
  },
  sep24: {
    name: 'SEP-24 anchor',
    shortName: 'SEP-24 anchor',
    description:
      'Any Stellar anchor with hosted deposit and withdrawal (SEP-24): users complete the anchor’s own pages (identity, bank details, amount), and the service polls the anchor for each ramp’s status.',
    credentials: [
      {
        name: 'anchorDomain',
        label: 'Anchor domain',
        required: true,
        kind: 'text',
        help: 'The anchor’s home domain, where it publishes its stellar.toml, e.g. testanchor.stellar.org.',
        check: (v) =>
          HOST_NAME.test(v) ? undefined : 'A host name such as testanchor.stellar.org (no https:// and no path).',
      },
    ],
  },
};

export const RAMP_PROVIDER_IDS = Object.keys(RAMP_PROVIDERS) as RampProviderId[];

export interface RampProviderDraft {
  providerId: RampProviderId;
  enabled: boolean;
  /** The assets chosen, in the app's order. */
  assets: string[];
  credentialsSet: boolean;
  /** The provider is in the stored settings (a provider that is not and stays untouched is not sent). */
  stored: boolean;
  /** Saving leaves it out of the list, which deletes its stored credentials. */
  remove: boolean;
  /** Credentials typed to replace the stored ones, by name; none typed keeps them. */
  credentials: Record<string, string>;
}

/** A card's fields a message can be about: `credentials.apiKey` for one credential's field. */
export type RampField = 'providerId' | 'enabled' | 'assets' | 'credentials' | `credentials.${string}`;

export function RampProviderCard({
  draft,
  appId,
  appAssets,
  problem,
  onChange,
}: {
  draft: RampProviderDraft;
  appId: string;
  /** The app's configured assets (Settings, App and sign-in). */
  appAssets: string[];
  /** The message for a field (the form's own check, or the service's answer), if any. */
  problem: (field: RampField) => string | undefined;
  onChange: (patch: Partial<RampProviderDraft>) => void;
}) {
  const headingId = useId();
  const info = RAMP_PROVIDERS[draft.providerId];
  // Assets chosen before the app dropped them stay listed, so the operator sees (and unchecks) them.
  const choices = [...appAssets, ...draft.assets.filter((a) => !appAssets.includes(a))];
  const typedAny = Object.values(draft.credentials).some((v) => v.trim() !== '');
  const credentialsError = problem('credentials');
  const providerError = problem('providerId');
  return (
    <Paper component="section" withBorder p="sm" radius="md" aria-labelledby={headingId}>
      <Stack gap="sm">
        <Stack gap={2}>
          <SectionHeading id={headingId} title={info.name} level={3}>
            {info.description}
          </SectionHeading>
          {providerError ? (
            <Text size="sm" c="red" role="alert">
              {providerError}
            </Text>
          ) : null}
        </Stack>
        <Switch
          label="Enabled"
          description="Your users can get quotes and start ramps with this provider."
          checked={draft.enabled}
          disabled={draft.remove}
          onChange={(e) => onChange({ enabled: e.currentTarget.checked })}
          error={problem('enabled')}
        />
        {choices.length === 0 ? (
          <Stack gap={2}>
            <Text size="sm" fw={500}>
              Assets
            </Text>
            <Text size="sm" c="dimmed">
              The app has no assets to ramp yet. Add one (such as USDC) to the app’s assets on the{' '}
              <Anchor component={Link} to={`/apps/${appId}/settings`} size="sm">
                App and sign-in
              </Anchor>{' '}
              tab first.
            </Text>
            {problem('assets') ? (
              <Text size="sm" c="red" role="alert">
                {problem('assets')}
              </Text>
            ) : null}
          </Stack>
        ) : (
          <Checkbox.Group
            label="Assets"
            description="The app’s assets users may buy and sell through this provider (it offers those it supports)."
            value={draft.assets}
            onChange={(chosen) => onChange({ assets: choices.filter((a) => chosen.includes(a)) })}
            error={problem('assets')}
          >
            <Group gap="lg" mt="xs">
              {choices.map((asset) => (
                <Checkbox
                  key={asset}
                  value={asset}
                  disabled={draft.remove}
                  label={appAssets.includes(asset) ? assetLabel(asset) : `${assetLabel(asset)}: no longer an app asset`}
                  title={asset}
                />
              ))}
            </Group>
          </Checkbox.Group>
        )}
        {info.credentials.length === 0 ? (
          <Text size="sm" c="dimmed">
            No credentials needed.
          </Text>
        ) : (
          <Stack gap="xs">
            <Group gap="xs">
              <Text size="sm" fw={500}>
                Credentials
              </Text>
              {draft.credentialsSet ? (
                <Badge color="green" variant="light">
                  Stored
                </Badge>
              ) : (
                <Badge color="gray" variant="light">
                  Not set
                </Badge>
              )}
            </Group>
            <Text size="xs" c="dimmed">
              Stored encrypted and never shown again.{' '}
              {draft.credentialsSet
                ? `Leave every field empty to keep the stored credentials; values typed replace all of them on save, so type the required ones and the optional ones you want to keep.`
                : 'The ones marked * are needed to turn the provider on.'}
            </Text>
            <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
              {info.credentials.map((c) => (
                <CredentialInput
                  key={c.name}
                  credential={c}
                  providerName={info.name}
                  value={draft.credentials[c.name] ?? ''}
                  placeholder={placeholderOf(c, draft.credentialsSet, typedAny)}
                  disabled={draft.remove}
                  error={problem(`credentials.${c.name}`) ?? Boolean(credentialsError)}
                  onChange={(value) => onChange({ credentials: { ...draft.credentials, [c.name]: value } })}
                />
              ))}
            </SimpleGrid>
            {credentialsError ? (
              <Text size="sm" c="red" role="alert">
                {credentialsError}
              </Text>
            ) : null}
            {draft.credentialsSet ? (
              <Checkbox
                label={`Remove ${info.name} and delete its stored credentials on save`}
                checked={draft.remove}
                onChange={(e) =>
                  onChange(
                    e.currentTarget.checked ? { remove: true, enabled: false, credentials: {} } : { remove: false },
                  )
                }
              />
            ) : null}
          </Stack>
        )}
      </Stack>
    </Paper>
  );
}

/** "Stored" only where a value is kept: every field while nothing is typed (the stored set is kept as a whole). */
function placeholderOf(c: RampCredentialInfo, credentialsSet: boolean, typedAny: boolean): string | undefined {
  if (credentialsSet && !typedAny) return c.required ? 'Stored: leave empty to keep' : 'Kept as stored if left empty';
  return c.required ? undefined : 'Optional';
}

function CredentialInput({
  credential: c,
  providerName,
  value,
  placeholder,
  disabled,
  error,
  onChange,
}: {
  credential: RampCredentialInfo;
  providerName: string;
  value: string;
  placeholder: string | undefined;
  disabled: boolean;
  error: string | boolean;
  onChange: (value: string) => void;
}) {
  const id = useId();
  const common = {
    id,
    label: c.label,
    description: c.help,
    withAsterisk: c.required,
    placeholder,
    value,
    disabled,
    error,
    autoComplete: 'off',
    spellCheck: false,
  };
  if (c.kind === 'secret')
    return (
      <PasswordInput
        {...common}
        // Mantine leaves the password field's own aria out: its error and help are tied to it here.
        aria-invalid={error ? true : undefined}
        aria-describedby={typeof error === 'string' ? `${id}-error ${id}-description` : `${id}-description`}
        autoComplete="new-password"
        maxLength={4000}
        onChange={(e) => onChange(e.currentTarget.value)}
        visibilityToggleButtonProps={{ 'aria-label': `Show the ${providerName} ${c.label}` }}
      />
    );
  if (c.kind === 'pem')
    return (
      <Textarea
        {...common}
        autosize
        minRows={2}
        maxRows={8}
        maxLength={4000}
        styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', fontSize: 12 } }}
        onChange={(e) => onChange(e.currentTarget.value)}
      />
    );
  return <TextInput {...common} maxLength={253} onChange={(e) => onChange(e.currentTarget.value)} />;
}

/** What is wrong with a provider before it is sent (the service's own rules, checked here to say so sooner). */
export function rampProblemsOf(d: RampProviderDraft, appAssets: string[]): Partial<Record<RampField, string>> {
  const info = RAMP_PROVIDERS[d.providerId];
  const problems: Partial<Record<RampField, string>> = {};
  if (d.remove) return problems;
  const gone = d.assets.filter((a) => !appAssets.includes(a));
  if (gone.length > 0)
    problems.assets = `Not an asset of the app any more: ${gone.map(assetLabel).join(', ')}. Uncheck it, or add it to the app’s assets again.`;
  else if (d.enabled && d.assets.length === 0)
    problems.assets = 'Choose at least one asset to offer with this provider, or turn it off.';
  const typed = typedCredentials(d);
  const replacing = Object.keys(typed).length > 0;
  for (const c of info.credentials) {
    const value = typed[c.name];
    if (value !== undefined) {
      const wrong = c.check?.(value);
      if (wrong) problems[`credentials.${c.name}`] = wrong;
    } else if (c.required && replacing && d.credentialsSet)
      problems[`credentials.${c.name}`] = `Type the ${c.label} too: new credentials replace all the stored ones.`;
    else if (c.required && (replacing || (d.enabled && !d.credentialsSet)))
      problems[`credentials.${c.name}`] = `Enter the ${c.label} to turn ${info.name} on.`;
  }
  return problems;
}

/** The credentials typed for `d`, trimmed, without the empty ones. */
export function typedCredentials(d: RampProviderDraft): Record<string, string> {
  const typed: Record<string, string> = {};
  for (const [name, value] of Object.entries(d.credentials)) if (value.trim() !== '') typed[name] = value.trim();
  return typed;
}
