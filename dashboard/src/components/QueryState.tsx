// The three states every page's data goes through before it can be shown: loading (a skeleton the size of what is
// coming), failed (the reason and a retry), and empty (what to do first). Pages render their data only in `children`.
import type { ReactNode } from 'react';
import { Button, Group, Paper, Skeleton, Stack, Text } from '@mantine/core';
import type { UseQueryResult } from '@tanstack/react-query';
import { ErrorAlert } from './ErrorAlert';

export function QueryState<T>({
  query,
  isEmpty,
  empty,
  children,
  rows = 3,
}: {
  query: UseQueryResult<T, unknown>;
  /** True when the answer has nothing to show: `empty` is shown instead. */
  isEmpty?: (data: T) => boolean;
  empty?: ReactNode;
  children: (data: T) => ReactNode;
  /** Skeleton lines while loading. */
  rows?: number;
}) {
  if (query.isPending) {
    return (
      <Stack gap="xs" aria-busy="true" aria-label="Loading">
        {Array.from({ length: rows }, (_, i) => (
          <Skeleton key={i} height={28} radius="sm" />
        ))}
      </Stack>
    );
  }
  if (query.isError) {
    return (
      <Stack gap="xs">
        <ErrorAlert error={query.error} title="Could not load this" />
        <Group>
          <Button variant="light" size="xs" onClick={() => void query.refetch()}>
            Try again
          </Button>
        </Group>
      </Stack>
    );
  }
  if (isEmpty?.(query.data) && empty) return <EmptyState>{empty}</EmptyState>;
  return <>{children(query.data)}</>;
}

export function EmptyState({ children }: { children: ReactNode }) {
  return (
    <Paper withBorder p="lg" radius="md" ta="center">
      {typeof children === 'string' ? <Text c="dimmed">{children}</Text> : children}
    </Paper>
  );
}
