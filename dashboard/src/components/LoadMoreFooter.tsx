// The end of an infinite list (transactions, audit log): how much of the total is on screen, and "Load more" while
// the API has a next page.
import { Button, Group, Text } from '@mantine/core';

export function LoadMoreFooter({
  shown,
  total,
  note,
  list,
}: {
  shown: number;
  total: number;
  /** Said right after "Showing N of T" (". An export holds…"). */
  note?: string;
  /** The useInfiniteQuery result the list comes from. */
  list: { hasNextPage: boolean; isFetchingNextPage: boolean; fetchNextPage: () => Promise<unknown> };
}) {
  return (
    <Group justify="space-between" wrap="wrap">
      <Text size="sm" c="dimmed">
        Showing {shown.toLocaleString()} of {total.toLocaleString()}
        {note}
      </Text>
      {list.hasNextPage ? (
        <Button variant="light" onClick={() => void list.fetchNextPage()} loading={list.isFetchingNextPage}>
          Load more
        </Button>
      ) : null}
    </Group>
  );
}
