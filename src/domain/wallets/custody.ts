// Custody of wallet keys: the only module that sees a wallet's secret in clear. A new wallet's seed is encrypted at
// once with a fresh data key from the key management (AES-256-GCM, the encryption context {appId, walletId, network}
// as AAD, so a sealed secret moved to another row does not open); the data key is stored only wrapped. To use a key,
// withWalletKeypair records a `key.decrypt` audit entry first, then unwraps, lends the keypair to one function, and
// zeroes every plaintext copy it holds afterwards (data key, seed, the keypair's own copy). planKeyUses hands the
// entries of several uses to a caller's statement instead, and its keys are taken once that has committed.
// The keypairs sign natively (infra/stellar/nativeKeypair.ts).
import { randomBytes } from 'node:crypto';
import { Keypair } from '@stellar/stellar-sdk';
import type { Knex } from 'knex';
import { recordOutboxEvent } from '../events/outbox';
import { preparedQuery, withTx } from '../../infra/db/database';
import type { NetworkName } from '../../config';
import type { Deps } from '../deps';
import { open, seal } from '../../infra/kms/aesGcm';
import { NativeKeypair } from '../../infra/stellar/nativeKeypair';
import {
  contextBytes,
  KmsDecryptError,
  type EncryptionContext,
  type KeyManagement,
} from '../../infra/kms/keyManagement';
import { recordAudits, type AuditActor, type AuditInput } from '../audit/auditLog';
import { AppError } from '../errors';
import { newId } from '../ids';
import {
  findOwnedWallet,
  PUBLIC_COLUMNS,
  type Custody,
  toWalletRecord,
  type WalletOwner,
  type WalletRecord,
  type WalletRow,
} from './store';

/** A wallet ready to be stored: its id and key are minted, its secret sealed. */
export interface SealedWallet {
  id: string;
  appId: string;
  owner: WalletOwner;
  network: NetworkName;
  publicKey: string;
  sealedSecret: Buffer;
  wrappedDataKey: Buffer;
  kmsKeyId: string;
  createdAt: Date;
}

/**
 * Mints a keypair and seals its seed for a new wallet. Calls the key management (a network call with AWS KMS), so
 * call it before opening the transaction that stores the wallet.
 */
export async function sealNewWallet(
  kms: KeyManagement,
  input: { appId: string; owner: WalletOwner; network: NetworkName; createdAt: Date },
): Promise<SealedWallet> {
  const id = newId('wal');
  const context: EncryptionContext = { appId: input.appId, walletId: id, network: input.network };
  const dataKey = await kms.generateDataKey(context);
  // Our own random seed rather than Keypair.random(), whose seed array stays behind unzeroed; the keypair copies it.
  const seed = randomBytes(32);
  const keypair = NativeKeypair.fromSeed(seed);
  seed.fill(0);
  try {
    return {
      ...input,
      id,
      publicKey: keypair.publicKey(),
      sealedSecret: seal(dataKey.plaintext, keypair.rawSecretKey(), contextBytes(context)),
      wrappedDataKey: dataKey.ciphertext,
      kmsKeyId: dataKey.keyId,
    };
  } finally {
    dataKey.plaintext.fill(0);
    keypair.wipe();
  }
}

/** What unsealing a wallet reads of its row (migration 0010). */
interface SealedWalletRow {
  id: string;
  app_id: string;
  network: NetworkName;
  public_key: string;
  custody: Custody;
  /** Null exactly for an external wallet (migration 0022). */
  sealed_secret: Buffer | null;
  wrapped_data_key: Buffer | null;
  kms_key_id: string | null;
}

/**
 * Stores a sealed wallet in its owner's slot; undefined when the slot is taken (the user already has a wallet on the
 * network, or the app one in the role): the unique indexes decide, so concurrent creations leave exactly one.
 */
export async function insertSealedWallet(db: Knex, wallet: SealedWallet): Promise<WalletRecord | undefined> {
  const [row] = await db('wallets')
    .insert({
      id: wallet.id,
      app_id: wallet.appId,
      user_id: wallet.owner.userId ?? null,
      role: wallet.owner.role ?? null,
      network: wallet.network,
      public_key: wallet.publicKey,
      sealed_secret: wallet.sealedSecret,
      wrapped_data_key: wallet.wrappedDataKey,
      kms_key_id: wallet.kmsKeyId,
      created_at: wallet.createdAt,
    })
    .onConflict()
    .ignore()
    .returning<WalletRow[]>(PUBLIC_COLUMNS);
  return row ? toWalletRecord(row) : undefined;
}

/**
 * Creates the wallet of an owner's slot (an end user's on `network`, or the app's in a role). When the slot is
 * already taken, by an earlier or a concurrent call, answers that wallet with `created: false`: safe to race.
 */
export async function createWallet(
  deps: Pick<Deps, 'db' | 'kms' | 'clock' | 'jobs'>,
  input: {
    appId: string;
    network: NetworkName;
    /** A user wallet's `wallet.created` event status (webhooks). */ createdStatus?: 'pending' | 'unfunded';
  } & WalletOwner,
): Promise<{ wallet: WalletRecord; created: boolean }> {
  const owner: WalletOwner = input.userId !== undefined ? { userId: input.userId } : { role: input.role };
  const sealed = await sealNewWallet(deps.kms, {
    appId: input.appId,
    owner,
    network: input.network,
    createdAt: deps.clock.now(),
  });
  // The key was sealed above (KMS is a network call); the row and its `wallet.created` event commit together.
  const wallet = await withTx(deps.db, async (trx) => {
    const inserted = await insertSealedWallet(trx, sealed);
    if (inserted && input.createdStatus) {
      await recordOutboxEvent(deps, trx, {
        appId: input.appId,
        type: 'wallet.created',
        data: { walletId: inserted.id, address: inserted.publicKey, status: input.createdStatus },
        at: inserted.createdAt,
      });
    }
    return inserted;
  });
  if (wallet) return { wallet, created: true };
  const existing = await findOwnedWallet(deps.db, { appId: input.appId, network: input.network, owner });
  if (!existing) throw new Error(`wallet ${sealed.id} was refused, but its owner's slot is empty`);
  return { wallet: existing, created: false };
}

/** What the service answers when asked to sign for (or provision) a wallet in the user's own custody. */
export function externalWalletCannotSign(): AppError {
  return new AppError('WALLET_ADAPTER_NOT_SUPPORTED', {
    message:
      "This wallet is the user's own Stellar wallet: the service holds no key for it. Build the transaction, sign it with the wallet and submit it",
  });
}

/**
 * Records an account of the user's own wallet as the user's wallet on `network` (no key material). Answers the
 * user's existing wallet when the slot is taken; 409 WALLET_ACCOUNT_IN_USE when the account is already a wallet
 * elsewhere on this service (a G-address is one wallet, so the ledger follower and histories stay unambiguous).
 */
export async function insertExternalWallet(
  deps: Pick<Deps, 'db' | 'clock' | 'jobs'>,
  input: { appId: string; userId: string; network: NetworkName; publicKey: string; existsOnLedger: boolean },
): Promise<WalletRecord> {
  const owner: WalletOwner = { userId: input.userId };
  const now = deps.clock.now();
  return withTx(deps.db, async (trx) => {
    const mine = await findOwnedWallet(trx, { appId: input.appId, network: input.network, owner });
    if (mine) return mine;
    const [row] = await trx('wallets')
      .insert({
        id: newId('wal'),
        app_id: input.appId,
        user_id: input.userId,
        role: null,
        network: input.network,
        public_key: input.publicKey,
        custody: 'external',
        funding_state: input.existsOnLedger ? 'funded' : 'unfunded',
        funded_at: input.existsOnLedger ? now : null,
        created_at: now,
      })
      .onConflict()
      .ignore()
      .returning<WalletRow[]>(PUBLIC_COLUMNS);
    if (!row) {
      const again = await findOwnedWallet(trx, { appId: input.appId, network: input.network, owner });
      if (again) return again;
      throw new AppError('WALLET_ACCOUNT_IN_USE', {
        message: 'This Stellar account is already a wallet on this service; use another account',
      });
    }
    const wallet = toWalletRecord(row);
    await recordOutboxEvent(deps, trx, {
      appId: input.appId,
      type: 'wallet.created',
      data: { walletId: wallet.id, address: wallet.publicKey, status: 'external' },
      at: now,
    });
    return wallet;
  });
}

export interface KeyUse {
  walletId: string;
  /** Why the key is needed, recorded in the audit log: `tx.sign`, `auth_entry.sign`, `wallet.activate`... */
  purpose: string;
  actor: AuditActor;
  /** The client address of the request causing it (absent for background work). */
  ip?: string;
}

/** A wallet's sealed key, checked to be one the service holds. */
interface SealedKey {
  appId: string;
  network: NetworkName;
  publicKey: string;
  sealed: { sealed_secret: Buffer; wrapped_data_key: Buffer; kms_key_id: string };
}

/**
 * Wallets' sealed keys as read, by wallet id (ciphertext only: nothing here opens a key). A wallet's key material is
 * written once, with its row, and never changes, so keys read before the transaction that audits their use are the
 * ones it would read (readSealedKeys, planKeyUses).
 */
export interface SealedKeys {
  readonly rows: ReadonlyMap<string, SealedWalletRow>;
}

/** Reads the sealed keys of `walletIds` (those that exist), to be handed to planKeyUses later. */
export async function readSealedKeys(db: Knex, walletIds: string[]): Promise<SealedKeys> {
  const ids = [...new Set(walletIds)];
  if (ids.length === 0) return { rows: new Map() };
  const { rows } = await preparedQuery<SealedWalletRow>(db, 'wallet-sealed-keys', SEALED_KEYS_SQL, [ids]);
  return { rows: new Map(rows.map((r) => [r.id, r])) };
}

/** A prepared statement: every sponsored run reads the keys that sign it (database.ts preparedQuery). */
const SEALED_KEYS_SQL = `select id, app_id, network, public_key, custody, sealed_secret, wrapped_data_key, kms_key_id
  from wallets where id = any($1::text[])`;

/** The sealed key a wallet row holds: 404 WALLET_NOT_FOUND when there is no row, 422 for an external wallet. */
function sealedKeyOf(row: SealedWalletRow | undefined): SealedKey {
  if (!row) throw new AppError('WALLET_NOT_FOUND', { message: 'No such wallet' });
  // Every path that signs checks custody first; this is the last line, so a missed check is a clear 422, not a crash.
  if (row.custody === 'external' || !row.sealed_secret || !row.wrapped_data_key || !row.kms_key_id)
    throw externalWalletCannotSign();
  return {
    appId: row.app_id,
    network: row.network,
    publicKey: row.public_key,
    sealed: { sealed_secret: row.sealed_secret, wrapped_data_key: row.wrapped_data_key, kms_key_id: row.kms_key_id },
  };
}

/**
 * The sealed keys of `walletIds`, in the order asked, taken from `known` when it has them and read otherwise: 404
 * WALLET_NOT_FOUND for an unknown one, 422 for an external one.
 */
async function sealedKeysOf(db: Knex, walletIds: string[], known?: SealedKeys): Promise<SealedKey[]> {
  const missing = walletIds.filter((id) => !known?.rows.has(id));
  const read = missing.length > 0 ? (await readSealedKeys(db, missing)).rows : undefined;
  return walletIds.map((id) => sealedKeyOf(known?.rows.get(id) ?? read?.get(id)));
}

/** The `key.decrypt` audit entries of `uses`. */
function keyDecryptAudits(keys: SealedKey[], uses: KeyUse[], at: Date): AuditInput[] {
  return uses.map((use, i) => ({
    appId: keys[i]!.appId,
    action: 'key.decrypt' as const,
    actor: use.actor,
    walletId: use.walletId,
    purpose: use.purpose,
    ...(use.ip !== undefined ? { ip: use.ip } : {}),
    at,
  }));
}

/** The `key.decrypt` audit entries of `uses` (one insert). */
async function auditKeyUses(db: Knex, keys: SealedKey[], uses: KeyUse[], at: Date): Promise<void> {
  await recordAudits(db, keyDecryptAudits(keys, uses, at));
}

/** Unwraps `key`, lends its keypair to `use`, then wipes it (its seed zeroed, it cannot sign any more). */
async function lendKeypair<T>(
  kms: KeyManagement,
  walletId: string,
  key: SealedKey,
  use: (keypair: Keypair) => T | Promise<T>,
): Promise<T> {
  const keypair = await unseal(kms, { appId: key.appId, walletId, network: key.network }, key.sealed);
  try {
    if (keypair.publicKey() !== key.publicKey)
      throw new Error(`wallet ${walletId}: the decrypted key does not match its public key`);
    return await use(keypair);
  } finally {
    keypair.wipe();
  }
}

/**
 * Lends the wallet's keypair to `use`. The `key.decrypt` audit entry is committed before the key is unwrapped (a
 * decryption is never unrecorded, even when the caller's own transaction rolls back); after `use` settles, the
 * keypair's secret is zeroed, so a keypair kept beyond it cannot sign. 404 WALLET_NOT_FOUND for an unknown wallet.
 */
export async function withWalletKeypair<T>(
  deps: Pick<Deps, 'db' | 'kms' | 'clock'>,
  key: KeyUse,
  use: (keypair: Keypair) => T | Promise<T>,
): Promise<T> {
  const [sealed] = await sealedKeysOf(deps.db, [key.walletId]);
  await auditKeyUses(deps.db, [sealed!], [key], deps.clock.now());
  return lendKeypair(deps.kms, key.walletId, sealed!, use);
}

/** Key uses whose audit entries are committed (planKeyUses). */
export interface PreparedKeyUses {
  /** Lends the keypair of the `index`th use to `use`, as withWalletKeypair does. */
  withKeypair<T>(index: number, use: (keypair: Keypair) => T | Promise<T>): Promise<T>;
}

/**
 * Key uses whose `key.decrypt` audit entries the caller writes in a statement of its own, beside its own writes (a
 * run's record, submission.ts), so that one commit comes before any key is unwrapped instead of one per key.
 */
export interface PlannedKeyUses {
  /** The entries to write (auditEntriesSql). */
  audits: AuditInput[];
  /**
   * The keys, for the caller to take once the statement that wrote `audits` has committed, and only then: a key is
   * never unwrapped unrecorded.
   */
  recorded(): PreparedKeyUses;
}

/**
 * The sealed keys of `uses` and the audit entries of their use, to be written by the caller (PlannedKeyUses). The keys
 * come from `known` (readSealedKeys, e.g. read while the caller waited on the network) when it has them, else they are
 * read here: 404 WALLET_NOT_FOUND for an unknown wallet, 422 for an external one.
 */
export async function planKeyUses(
  deps: Pick<Deps, 'db' | 'kms' | 'clock'>,
  uses: KeyUse[],
  known?: SealedKeys,
): Promise<PlannedKeyUses> {
  const keys = await sealedKeysOf(
    deps.db,
    uses.map((u) => u.walletId),
    known,
  );
  return {
    audits: keyDecryptAudits(keys, uses, deps.clock.now()),
    recorded: () => ({
      async withKeypair(index, use) {
        const key = keys[index];
        if (!key) throw new RangeError(`no planned key use ${index}`);
        return lendKeypair(deps.kms, uses[index]!.walletId, key, use);
      },
    }),
  };
}

async function unseal(
  kms: KeyManagement,
  context: EncryptionContext,
  row: { sealed_secret: Buffer; wrapped_data_key: Buffer; kms_key_id: string },
): Promise<NativeKeypair> {
  const dataKey = await kms.decrypt({ ciphertext: row.wrapped_data_key, keyId: row.kms_key_id }, context);
  let seed: Buffer | undefined;
  try {
    seed = open(dataKey, row.sealed_secret, contextBytes(context));
    if (!seed)
      throw new KmsDecryptError(
        `wallet ${context.walletId}: the sealed secret does not open under its data key and context`,
      );
    return NativeKeypair.fromSeed(seed); // copies the seed
  } finally {
    dataKey.fill(0);
    seed?.fill(0);
  }
}
