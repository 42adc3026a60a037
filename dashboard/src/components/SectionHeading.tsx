// A section's title and what it is for, the title named by `id` (for the section's or form's aria-labelledby).
import type { ReactNode } from 'react';
import { Stack, Text, Title } from '@mantine/core';

export function SectionHeading({
  id,
  title,
  children,
  level = 2,
}: {
  id: string;
  title: ReactNode;
  /** What the section is for, under the title. */
  children?: ReactNode;
  /** 2 for a section of a page, 3 for a part of a section. */
  level?: 2 | 3;
}) {
  return (
    <Stack gap={2}>
      <Title order={level} size={level === 2 ? 'h3' : 'h5'} id={id}>
        {title}
      </Title>
      {children ? (
        <Text size="sm" c="dimmed">
          {children}
        </Text>
      ) : null}
    </Stack>
  );
}
