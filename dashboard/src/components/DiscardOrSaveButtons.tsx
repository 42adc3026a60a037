// The end of a form that edits a saved draft (settings, sign-in providers, domains): discard the draft or save it,
// both idle until something changed.
import { Button, Group } from '@mantine/core';

export function DiscardOrSaveButtons({
  saveLabel,
  dirty,
  saving,
  onDiscard,
  disabled = false,
}: {
  /** "Save settings", "Save domains"… */
  saveLabel: string;
  /** The draft differs from what is saved. */
  dirty: boolean;
  saving: boolean;
  onDiscard: () => void;
  /** Both off whatever the draft (an archived app cannot be changed). */
  disabled?: boolean;
}) {
  return (
    <Group justify="flex-end" wrap="wrap">
      <Button variant="default" onClick={onDiscard} disabled={disabled || !dirty || saving}>
        Discard changes
      </Button>
      <Button type="submit" loading={saving} disabled={disabled || !dirty}>
        {saveLabel}
      </Button>
    </Group>
  );
}
