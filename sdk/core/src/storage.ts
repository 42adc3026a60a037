// Where the session survives a reload: a small string store. Browsers get localStorage, whose `storage` event also
// tells every other tab of the origin that the session changed (sign-in, refresh, sign-out), which is how tabs stay
// in step. Elsewhere: memory, or the app's own (React Native's secure storage, a file).
// The refresh token kept here is bound to the device's DPoP key (the service refuses it with any other key's proof),
// and that key is non-extractable, so a copy of the stored record alone cannot continue the session.

export interface StorageAdapter {
  get(key: string): string | null | Promise<string | null>;
  set(key: string, value: string): void | Promise<void>;
  remove(key: string): void | Promise<void>;
  /** Calls `onChange` when someone else (another tab) changed `key`; returns the unsubscribe. */
  watch?(key: string, onChange: () => void): () => void;
}

export function memoryStorage(): StorageAdapter {
  const values = new Map<string, string>();
  return {
    get: (key) => values.get(key) ?? null,
    set: (key, value) => {
      values.set(key, value);
    },
    remove: (key) => {
      values.delete(key);
    },
  };
}

/** localStorage, with the `storage` event for changes made by other tabs. */
export function browserStorage(): StorageAdapter {
  const local = globalThis.localStorage;
  return {
    get: (key) => local.getItem(key),
    set: (key, value) => local.setItem(key, value),
    remove: (key) => local.removeItem(key),
    watch(key, onChange) {
      const listener = (event: StorageEvent) => {
        if (event.key === key || event.key === null) onChange();
      };
      globalThis.addEventListener('storage', listener);
      return () => globalThis.removeEventListener('storage', listener);
    },
  };
}

function hasLocalStorage(): boolean {
  try {
    return typeof globalThis.localStorage !== 'undefined' && typeof globalThis.addEventListener === 'function';
  } catch {
    return false; // a sandboxed frame throws on access
  }
}

export function defaultStorage(): StorageAdapter {
  return hasLocalStorage() ? browserStorage() : memoryStorage();
}

/**
 * Runs `task` while holding a lock named `name` across every tab of the origin (Web Locks), so that two tabs never
 * refresh one session at once (the second would present a rotated refresh token: a reuse, which ends the session).
 * Without Web Locks (Node, React Native) there is one client per process and the in-process single flight suffices.
 */
export function withCrossTabLock<T>(name: string, task: () => Promise<T>): Promise<T> {
  const locks = (globalThis.navigator as (Navigator & { locks?: LockManager }) | undefined)?.locks;
  if (!locks) return task();
  return locks.request(name, task) as Promise<T>;
}
