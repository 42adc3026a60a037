// The end of a form in a dialog (a new rule, a new push, an allowlist row): the failure no field explains, the field
// messages no control shows, then Cancel and the submit button, both waiting while the request runs.
import { Button, Group, Text } from '@mantine/core';
import { ErrorAlert } from './ErrorAlert';

export function DialogFormFooter({
  error,
  explained,
  others,
  pending,
  onCancel,
  submitLabel,
  submitDisabled = false,
}: {
  /** The request's failure, if any. */
  error: unknown;
  /** The failure is already shown by the fields (or another message): no alert for it. */
  explained: boolean;
  /** "field: message" lines for fields the form has no control for (otherFieldErrors). */
  others: string[];
  pending: boolean;
  onCancel: () => void;
  submitLabel: string;
  submitDisabled?: boolean;
}) {
  return (
    <>
      {error && !explained ? <ErrorAlert error={error} /> : null}
      {others.length > 0 ? (
        <Text size="sm" c="red" role="alert">
          {others.join(' ')}
        </Text>
      ) : null}
      <Group justify="flex-end">
        <Button variant="default" onClick={onCancel} disabled={pending}>
          Cancel
        </Button>
        <Button type="submit" loading={pending} disabled={submitDisabled}>
          {submitLabel}
        </Button>
      </Group>
    </>
  );
}
