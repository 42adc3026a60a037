// What an empty list says, the same way on every page: what is missing, then how it gets filled (or a way out).
import type { ReactNode } from 'react';
import { Stack, Text } from '@mantine/core';

export function EmptyMessage({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Stack align="center" gap="xs">
      <Text fw={500}>{title}</Text>
      {typeof children === 'string' ? (
        <Text c="dimmed" size="sm">
          {children}
        </Text>
      ) : (
        children
      )}
    </Stack>
  );
}
