// The empty state of a filterable list: an operator must tell "the filters hide everything" (with a way to clear
// them) from "nothing has happened yet".
import { Button } from '@mantine/core';
import { EmptyMessage } from './EmptyMessage';

export function FilteredEmptyState({
  filtered,
  noMatch,
  onClearFilters,
  nothingYet,
  hint,
}: {
  filtered: boolean;
  /** The title when filters are on: "No entries match these filters". */
  noMatch: string;
  onClearFilters: () => void;
  /** The title when there are no filters: "Nothing recorded yet". */
  nothingYet: string;
  /** What fills the list, under `nothingYet`. */
  hint: string;
}) {
  return filtered ? (
    <EmptyMessage title={noMatch}>
      <Button variant="light" size="xs" onClick={onClearFilters}>
        Clear filters
      </Button>
    </EmptyMessage>
  ) : (
    <EmptyMessage title={nothingYet}>{hint}</EmptyMessage>
  );
}
