// Idempotency-Keys for the dashboard's creating requests. One key per request body within one opening of a form: a
// retry of the same body after a lost answer reuses the key (the service replays its first answer: nothing is
// created twice), while a corrected form gets a new key (the same key with another body is refused as
// IDEMPOTENCY_KEY_REUSED, and a key whose first answer was a 400 would replay that 400). `reset` starts over when the
// form is opened again, so the same body sent on purpose a second time creates a second thing.
import { useRef } from 'react';

export interface IdempotencyKeys {
  /** The key for this body: the previous one while the body is unchanged, a new one otherwise. */
  keyFor: (body: unknown) => string;
  /** Forgets the previous body (a new opening of the form). */
  reset: () => void;
}

export function useIdempotencyKeyPerBody(): IdempotencyKeys {
  const last = useRef<{ body: string; key: string } | undefined>(undefined);
  return {
    keyFor: (body) => {
      const json = JSON.stringify(body);
      if (last.current?.body !== json) last.current = { body: json, key: crypto.randomUUID() };
      return last.current.key;
    },
    reset: () => {
      last.current = undefined;
    },
  };
}
