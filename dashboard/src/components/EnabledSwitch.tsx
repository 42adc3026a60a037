// A row's on/off switch in a table (allowlist rows, distribution rules): named after the row for screen readers,
// disabled while its change is on the way, with the failure shown under it.
import { Stack, Switch, Text } from '@mantine/core';
import { messageOf } from '../api/errors';

export function EnabledSwitch({
  name,
  checked,
  pending,
  error,
  onChange,
}: {
  /** What the row is called ("Enabled: <name>"). */
  name: string;
  checked: boolean;
  pending: boolean;
  error: unknown;
  onChange: (enabled: boolean) => void;
}) {
  return (
    <Stack gap={4}>
      <Switch
        aria-label={`Enabled: ${name}`}
        checked={checked}
        disabled={pending}
        onChange={(e) => onChange(e.currentTarget.checked)}
      />
      {error ? (
        <Text size="xs" c="red" role="alert">
          {messageOf(error)}
        </Text>
      ) : null}
    </Stack>
  );
}
