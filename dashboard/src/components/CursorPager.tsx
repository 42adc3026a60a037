// Previous/Next paging for the lists the API pages by cursor (users, webhook events): the API only hands out the
// next page's cursor, so the cursors of the pages already passed are kept to go back without offsets.
import { useState } from 'react';
import { Button, Group, Text } from '@mantine/core';

export interface CursorStack {
  /** The cursor to ask for the current page with; undefined on the first page. */
  cursor: string | undefined;
  /** How many pages come before the current one. */
  pagesBefore: number;
  back: () => void;
  forward: (nextCursor: string) => void;
}

/** The cursors of the pages before the current one; a change in any of `filters` starts again at the first page. */
export function useCursorStack(filters: readonly unknown[]): CursorStack {
  const [state, setState] = useState({ filters, cursors: [] as string[] });
  const same = state.filters.length === filters.length && state.filters.every((f, i) => Object.is(f, filters[i]));
  if (!same) setState({ filters, cursors: [] });
  // Already the first page in this render, so no request goes out with the old filters' cursor.
  const cursors = same ? state.cursors : [];
  return {
    cursor: cursors.at(-1),
    pagesBefore: cursors.length,
    back: () => setState((s) => ({ ...s, cursors: s.cursors.slice(0, -1) })),
    forward: (nextCursor) => setState((s) => ({ ...s, cursors: [...s.cursors, nextCursor] })),
  };
}

export function CursorPager({
  pages,
  pageSize,
  shown,
  total,
  nextCursor,
  busy,
  noun,
}: {
  pages: CursorStack;
  pageSize: number;
  /** How many items the current page holds. */
  shown: number;
  /** How many in all; a list that does not count them says only which ones are shown ("Pushes 21–40"). */
  total?: number;
  nextCursor: string | null | undefined;
  /** True while a page is loading: both buttons wait for it. */
  busy: boolean;
  /** What the list counts, singular and plural: ['user', 'users']. */
  noun: readonly [one: string, many: string];
}) {
  const first = pages.pagesBefore * pageSize + 1;
  const last = first + shown - 1;
  return (
    <Group justify="space-between" wrap="wrap" gap="xs">
      <Text size="sm" c="dimmed" aria-live="polite">
        {total === undefined
          ? `${noun[1].charAt(0).toUpperCase()}${noun[1].slice(1)} ${first}–${last}`
          : `${first}–${last} of ${total} ${total === 1 ? noun[0] : noun[1]}`}
      </Text>
      <Group gap="xs">
        <Button variant="default" size="xs" disabled={pages.pagesBefore === 0 || busy} onClick={pages.back}>
          Previous
        </Button>
        <Button
          variant="default"
          size="xs"
          disabled={!nextCursor || busy}
          onClick={() => nextCursor && pages.forward(nextCursor)}
        >
          Next
        </Button>
      </Group>
    </Group>
  );
}
