// What the distribution push tests of both surfaces share: waiting for a push to complete through the API, and a
// recipient as one comparable line.
import { eventually } from './funding';

/** Polls `read` (a getDistributionPush or getServerDistributionPush call) until the push is `completed`; answers it. */
export async function untilPushCompleted(
  read: () => Promise<{ status: number; text: string; body: any }>,
  pushId: string,
  timeoutMs = 60_000,
): Promise<any> {
  let push: any;
  await eventually(
    `push ${pushId} is completed`,
    async () => {
      const res = await read();
      if (res.status !== 200) throw new Error(`reading push ${pushId} answered ${res.status}: ${res.text}`);
      push = res.body.content;
      return push.status === 'completed';
    },
    timeoutMs,
  );
  return push;
}

/** A recipient as [kind, value, status, failureCode], for comparing whole lists. */
export const recipientLine = (r: any): [string, string, string, string | null] => [
  r.recipient.kind,
  r.recipient.value,
  r.status,
  r.failureCode,
];
