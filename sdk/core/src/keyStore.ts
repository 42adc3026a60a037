// Where the device's DPoP key pair lives between page loads. In browsers: IndexedDB, which stores a WebCrypto key
// as the key object itself, so a non-extractable private key is kept without ever being readable by script (not even
// by this library). Elsewhere (Node, React Native, tests): memory by default, or any store the app plugs in (React
// Native's secure storage, a file for a CLI). The key is per app (one record per publishable key).

export interface DpopKeyStore {
  load(): Promise<CryptoKeyPair | undefined>;
  save(pair: CryptoKeyPair): Promise<void>;
  clear(): Promise<void>;
}

export function memoryKeyStore(): DpopKeyStore {
  let pair: CryptoKeyPair | undefined;
  return {
    load: async () => pair,
    save: async (p) => {
      pair = p;
    },
    clear: async () => {
      pair = undefined;
    },
  };
}

const DB_NAME = 'onboard';
const STORE = 'dpop-keys';

function promised<T>(request: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error('IndexedDB request failed'));
  });
}

function openDatabase(factory: IDBFactory): Promise<IDBDatabase> {
  const request = factory.open(DB_NAME, 1);
  request.onupgradeneeded = () => {
    if (!request.result.objectStoreNames.contains(STORE)) request.result.createObjectStore(STORE);
  };
  return promised(request);
}

/** A key store in IndexedDB under `name` (the client uses one name per publishable key). */
export function indexedDbKeyStore(name: string, factory: IDBFactory = globalThis.indexedDB): DpopKeyStore {
  let db: Promise<IDBDatabase> | undefined;
  const run = async <T>(mode: IDBTransactionMode, action: (store: IDBObjectStore) => IDBRequest<T>): Promise<T> => {
    db ??= openDatabase(factory);
    const store = (await db).transaction(STORE, mode).objectStore(STORE);
    return promised(action(store));
  };
  return {
    async load() {
      const value = (await run('readonly', (s) => s.get(name))) as CryptoKeyPair | undefined;
      return value && value.privateKey && value.publicKey ? value : undefined;
    },
    async save(pair) {
      await run('readwrite', (s) => s.put({ privateKey: pair.privateKey, publicKey: pair.publicKey }, name));
    },
    async clear() {
      await run('readwrite', (s) => s.delete(name));
    },
  };
}

/** IndexedDB when the runtime has it (browsers), else memory. */
export function defaultKeyStore(name: string): DpopKeyStore {
  return typeof globalThis.indexedDB === 'undefined' ? memoryKeyStore() : indexedDbKeyStore(name);
}
