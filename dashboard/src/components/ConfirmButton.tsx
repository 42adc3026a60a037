// A destructive action behind a confirmation that says what will happen (archive, revoke, remove, rotate...). The
// dialog stays open while the action runs and shows why it failed.
import { useState, type ReactNode } from 'react';
import { Button, Group, Modal, Stack, Text, type ButtonProps } from '@mantine/core';
import { ErrorAlert } from './ErrorAlert';

export function ConfirmButton({
  label,
  title,
  message,
  confirmLabel,
  onConfirm,
  color = 'red',
  ...buttonProps
}: ButtonProps & {
  label: ReactNode;
  title: string;
  message: ReactNode;
  confirmLabel: string;
  /** Resolves when done (the dialog closes) or rejects (the dialog shows the failure). */
  onConfirm: () => Promise<unknown>;
}) {
  const [opened, setOpened] = useState(false);
  const [running, setRunning] = useState(false);
  const [error, setError] = useState<unknown>();
  const close = () => {
    if (running) return;
    setOpened(false);
    setError(undefined);
  };
  const confirm = () => {
    setRunning(true);
    setError(undefined);
    onConfirm()
      .then(() => setOpened(false))
      .catch((err: unknown) => setError(err))
      .finally(() => setRunning(false));
  };
  return (
    <>
      <Button color={color} variant="light" {...buttonProps} onClick={() => setOpened(true)}>
        {label}
      </Button>
      <Modal opened={opened} onClose={close} title={title} centered>
        <Stack gap="md">
          {typeof message === 'string' ? <Text size="sm">{message}</Text> : message}
          {error ? <ErrorAlert error={error} /> : null}
          <Group justify="flex-end">
            <Button variant="default" onClick={close} disabled={running}>
              Cancel
            </Button>
            <Button color={color} onClick={confirm} loading={running}>
              {confirmLabel}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
