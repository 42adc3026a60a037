// What the pushes list and a push's page both show: its status, its progress (paid of all, with what is still on the
// way, failed or skipped), and how often it is read again while it runs.
import { Badge, Group, Loader, Progress, Stack, Text } from '@mantine/core';
import type { DistributionPush } from '../../../generated/dashboard/types.gen';
import { trimAmount } from '../components/format';
import { assetCode } from './common';

/** A running push is read again this often, so its progress moves on screen. */
export const RUNNING_REFRESH_MS = 2000;

export function PushStatusBadge({ push }: { push: DistributionPush }) {
  return push.status === 'running' ? (
    <Badge color="blue" variant="light" leftSection={<Loader size={10} color="blue" aria-hidden />}>
      Running
    </Badge>
  ) : (
    <Badge color="green" variant="light">
      Completed
    </Badge>
  );
}

const share = (n: number, total: number) => (total > 0 ? (n / total) * 100 : 0);

/** "1 pending · 2 failed": the recipients not paid, by status; empty when every one was paid. */
export function unpaidCounts(counts: DistributionPush['counts']): string {
  return (['pending', 'submitted', 'failed', 'skipped'] as const)
    .filter((status) => counts[status] > 0)
    .map((status) => `${counts[status].toLocaleString()} ${status}`)
    .join(' · ');
}

/**
 * A bar of the recipients paid (then failed and skipped, in their colours) with the counts in words under it; the
 * unpaid ones by status too unless `withUnpaid` is false (a page that shows every count already).
 */
export function PushProgress({ push, withUnpaid = true }: { push: DistributionPush; withUnpaid?: boolean }) {
  const { counts } = push;
  const paid = `${counts.paid.toLocaleString()} of ${counts.total.toLocaleString()} paid`;
  const rest = unpaidCounts(counts);
  return (
    <Stack gap={4} miw={180}>
      <Progress.Root
        size="md"
        role="progressbar"
        aria-label={`Recipients paid: ${push.name}`}
        aria-valuemin={0}
        aria-valuemax={counts.total}
        aria-valuenow={counts.paid}
        aria-valuetext={paid}
      >
        <Progress.Section value={share(counts.paid, counts.total)} color="teal" withAria={false} />
        <Progress.Section value={share(counts.failed, counts.total)} color="red" withAria={false} />
        <Progress.Section value={share(counts.skipped, counts.total)} color="gray.5" withAria={false} />
      </Progress.Root>
      <Group gap={6} wrap="nowrap">
        <Text size="sm" style={{ whiteSpace: 'nowrap' }}>
          {paid}
        </Text>
        <Text size="sm" c="dimmed" style={{ whiteSpace: 'nowrap' }}>
          ({trimAmount(push.paidAmount)} {assetCode(push.asset)})
        </Text>
      </Group>
      {withUnpaid && rest ? (
        <Text size="xs" c="dimmed">
          {rest}
        </Text>
      ) : null}
    </Stack>
  );
}
