// The filters above a list, as one search landmark, with "Clear filters" once any is on, so a view narrowed by
// several filters (or opened from a shared address) is one click from the whole list.
import type { ReactNode } from 'react';
import { Button, Group, SimpleGrid, type SimpleGridProps } from '@mantine/core';

export function FilterBar({
  label,
  cols,
  filtered,
  onClearFilters,
  children,
}: {
  /** The landmark's accessible name: "Filter transactions". */
  label: string;
  cols: SimpleGridProps['cols'];
  filtered: boolean;
  onClearFilters: () => void;
  children: ReactNode;
}) {
  return (
    <>
      <SimpleGrid cols={cols} spacing="sm" role="search" aria-label={label}>
        {children}
      </SimpleGrid>
      {filtered ? (
        <Group>
          <Button variant="subtle" size="xs" onClick={onClearFilters}>
            Clear filters
          </Button>
        </Group>
      ) : null}
    </>
  );
}
