// One KYC provider of an app on the Settings page's KYC tab (./KycSettingsPanel.tsx): what it is, its enabled switch,
// the levels it offers (checkboxes), and its credentials (write-only: "Stored" when the service has them, fields that
// start empty and replace them when typed). Also the providers this service supports, as the dashboard describes them.
import { useId } from 'react';
import { Badge, Button, Checkbox, Group, Paper, PasswordInput, SimpleGrid, Stack, Switch, Text } from '@mantine/core';
import type { KycLevel } from '../../../generated/dashboard/types.gen';
import { SectionHeading } from '../components/SectionHeading';

const LEVELS: { value: KycLevel; label: string }[] = [
  { value: 'basic', label: 'Basic' },
  { value: 'intermediate', label: 'Intermediate' },
  { value: 'enhanced', label: 'Enhanced' },
];
export const ALL_LEVELS = LEVELS.map((l) => l.value);

interface KycProviderInfo {
  name: string;
  /** What it is, for an operator choosing it. */
  description: string;
  levels: KycLevel[];
  /** The credentials the app stores to enable it (their names in the API, and labels); none for the sandbox. */
  credentials: { name: string; label: string }[];
  /** Offered to testnet apps only. */
  testnetOnly?: boolean;
}

/** The providers this service supports, as its provider registry has them (src/domain/kyc). */
export const KYC_PROVIDERS: Record<string, KycProviderInfo> = {
  sandbox: {
    name: 'Sandbox (development)',
    description:
      'Approves or rejects on a page of this service: each verification’s page has Approve and Reject buttons for you to decide, and no identity is checked. Testnet only, on a development service.',
    levels: ALL_LEVELS,
    credentials: [],
    testnetOnly: true,
  },
};

export const infoOf = (providerId: string): KycProviderInfo =>
  KYC_PROVIDERS[providerId] ?? {
    name: providerId,
    description: 'A provider this dashboard does not describe.',
    levels: ALL_LEVELS,
    credentials: [],
  };

export interface ProviderDraft {
  providerId: string;
  enabled: boolean;
  levels: KycLevel[];
  credentialsSet: boolean;
  /** Credentials typed to replace the stored ones, by name; none typed keeps them. */
  credentials: Record<string, string>;
}

export type ProblemField = 'levels' | 'credentials';

export function KycProviderCard({
  draft,
  problem,
  onChange,
  onRemove,
}: {
  draft: ProviderDraft;
  /** The message for a field (the form's own check, or the service's answer), if any. */
  problem: (field: 'providerId' | 'enabled' | ProblemField) => string | undefined;
  onChange: (patch: Partial<ProviderDraft>) => void;
  onRemove: () => void;
}) {
  const headingId = useId();
  const info = infoOf(draft.providerId);
  const credentialsError = problem('credentials');
  return (
    <Paper component="section" withBorder p="sm" radius="md" aria-labelledby={headingId}>
      <Stack gap="sm">
        <Group justify="space-between" align="flex-start" wrap="nowrap">
          <Stack gap={2} flex={1} miw={0}>
            <SectionHeading id={headingId} title={info.name} level={3}>
              {info.description}
            </SectionHeading>
            {problem('providerId') ? (
              <Text size="sm" c="red" role="alert">
                {problem('providerId')}
              </Text>
            ) : null}
          </Stack>
          <Button variant="subtle" color="red" size="xs" onClick={onRemove} aria-label={`Remove ${info.name}`}>
            Remove
          </Button>
        </Group>
        <Switch
          label="Enabled"
          description="Users can start a verification with this provider."
          checked={draft.enabled}
          onChange={(e) => onChange({ enabled: e.currentTarget.checked })}
          error={problem('enabled')}
        />
        <Checkbox.Group
          label="Levels"
          description="The verification levels your app may ask this provider for."
          value={draft.levels}
          onChange={(levels) => onChange({ levels })}
          error={problem('levels')}
        >
          <Group gap="lg" mt="xs">
            {LEVELS.filter((l) => info.levels.includes(l.value)).map((l) => (
              <Checkbox key={l.value} value={l.value} label={l.label} />
            ))}
          </Group>
        </Checkbox.Group>
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
            <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
              {info.credentials.map((c) => (
                <PasswordInput
                  key={c.name}
                  label={c.label}
                  description={
                    draft.credentialsSet
                      ? 'Stored (never shown). Type a new value to replace it.'
                      : 'Stored encrypted and never shown again.'
                  }
                  placeholder={draft.credentialsSet ? 'Stored: leave empty to keep' : undefined}
                  value={draft.credentials[c.name] ?? ''}
                  onChange={(e) => onChange({ credentials: { ...draft.credentials, [c.name]: e.currentTarget.value } })}
                  autoComplete="new-password"
                  maxLength={4000}
                  error={Boolean(credentialsError)}
                  visibilityToggleButtonProps={{ 'aria-label': `Show the ${info.name} ${c.label}` }}
                />
              ))}
            </SimpleGrid>
            {credentialsError ? (
              <Text size="sm" c="red" role="alert">
                {credentialsError}
              </Text>
            ) : null}
          </Stack>
        )}
      </Stack>
    </Paper>
  );
}
