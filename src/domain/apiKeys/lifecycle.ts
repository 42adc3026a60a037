// The life of an API key, as pure rules over its stored dates: the status shown in the Dashboard is derived at read
// time (never stored), so a key whose expiry or rotation overlap passes needs no job to flip a column.
export type ApiKeyStatus = 'active' | 'rotating' | 'expired' | 'revoked';

export interface KeyDates {
  revokedAt: Date | null;
  expiresAt: Date | null;
  /** When a rotation replaced the key (null if it never was). */
  rotatedAt: Date | null;
}

/**
 * revoked > expired > rotating > active, as the gate sees it: a revoked key answers API_KEY_NOT_FOUND whatever its
 * dates, and a key whose end has come answers API_KEY_EXPIRED whether that end was an expiry date or a rotation's.
 */
export function apiKeyStatus(key: KeyDates, now: Date): ApiKeyStatus {
  if (key.revokedAt) return 'revoked';
  if (key.expiresAt && key.expiresAt.getTime() <= now.getTime()) return 'expired';
  if (key.rotatedAt) return 'rotating';
  return 'active';
}

/** When a rotated key stops working: after the overlap, but never later than an expiry it already had. */
export function rotationEnd(now: Date, overlapSeconds: number, currentExpiry: Date | null): Date {
  const end = new Date(now.getTime() + overlapSeconds * 1000);
  return currentExpiry && currentExpiry.getTime() < end.getTime() ? currentExpiry : end;
}
