// The development outbox (GET /dashboard/dev/outbox?to=, served only when the service keeps mail in its dev outbox
// on a local address): the sign-in page shows the code it just sent, so signing in needs no mail server.
import { useQuery } from '@tanstack/react-query';

export interface OutboxMessage {
  kind: string;
  subject: string;
  text: string;
  sentAt: string;
}

async function readOutbox(to: string): Promise<OutboxMessage[]> {
  const response = await fetch(`${import.meta.env.BASE_URL}dev/outbox?to=${encodeURIComponent(to)}`, {
    cache: 'no-store',
  });
  if (!response.ok) return [];
  const body = (await response.json()) as { messages?: OutboxMessage[] };
  return Array.isArray(body.messages) ? body.messages : [];
}

/** The newest sign-in code sent to `to` after `since`, polled each second while `enabled`. */
export function useDevOutboxCode(to: string, since: number, enabled: boolean) {
  return useQuery({
    queryKey: ['devOutbox', to, since],
    queryFn: async () => {
      const messages = await readOutbox(to);
      const fresh = messages.find((m) => Date.parse(m.sentAt) >= since - 1000 && /\b\d{6}\b/.test(m.text));
      return fresh ? (/\b(\d{6})\b/.exec(fresh.text)?.[1] ?? null) : null;
    },
    enabled,
    refetchInterval: (query) => (query.state.data ? false : 1000),
  });
}
