// A chart in its own titled section: the title, a sentence that says in words what the chart shows (what a screen
// reader reads: the drawing itself is hidden from it), then the chart. `actions` sits beside the title (a period
// selector); `status` is what shows while there is no chart to draw (loading, a failure, nothing to show yet).
import type { ReactNode } from 'react';
import { Group, Paper, Text, Title } from '@mantine/core';

export function ChartCard({
  id,
  title,
  summary,
  actions,
  status,
  children,
  testId,
}: {
  id: string;
  title: string;
  summary?: ReactNode;
  actions?: ReactNode;
  status?: ReactNode;
  /** The drawing; none while `status` stands in for it. */
  children?: ReactNode;
  testId?: string;
}) {
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby={id} data-testid={testId}>
      <Group justify="space-between" align="flex-start" wrap="wrap" gap="xs" mb={summary ? 0 : 'sm'}>
        <Title order={2} size="h4" id={id}>
          {title}
        </Title>
        {actions}
      </Group>
      {summary ? (
        <Text size="sm" c="dimmed" mb="md">
          {summary}
        </Text>
      ) : null}
      {status}
      {/* The summary above says what the chart shows; the drawing itself is not read out. */}
      {children ? <div aria-hidden="true">{children}</div> : null}
    </Paper>
  );
}
