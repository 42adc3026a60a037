// A failed request or action, in words an operator can act on (api/errors.ts), with the request id to quote.
import { Alert, Text } from '@mantine/core';
import { failureOf } from '../api/errors';

export function ErrorAlert({ error, title }: { error: unknown; title?: string }) {
  const failure = failureOf(error);
  return (
    <Alert color="red" variant="light" title={title} role="alert">
      <Text size="sm">{failure.message}</Text>
      {failure.requestId ? (
        <Text size="xs" c="dimmed">
          Request id: {failure.requestId}
        </Text>
      ) : null}
    </Alert>
  );
}
