// PostgreSQL LISTEN/NOTIFY as a feed of "this changed" signals between the service's processes. In-process caches of
// database rows (the gate's API keys) subscribe: a trigger NOTIFYs when a row they cache changes, PostgreSQL delivers
// the notification to every listening process when the changing transaction commits, and each drops what it cached.
//
// One dedicated connection per process (outside the knex pool: a pooled connection would be handed to queries, and a
// LISTEN lives only as long as its session). While it is not connected a cache must not serve anything: `connected`
// is false, and each (re)connection calls every subscriber's `onReset`, because notifications sent while it was away
// are lost.
//
// The listening connection's round trips also carry other work (FeedCarrier): any statement is a sync, so a statement
// that has to reach the database anyway (a DPoP proof's replay record) can be the round trip instead of `select 1`,
// one statement where there were two.
import pg from 'pg';
import type { Logger } from 'pino';

export interface ChangeSubscriber {
  /** A notification on the channel (its payload, e.g. the id of what changed). */
  onChange(payload: string): void;
  /** The feed lost or (re)gained its connection: anything cached may be stale. */
  onReset(): void;
}

/** A statement run as one of the listening connection's round trips. */
export interface FeedStatement {
  /** Its prepared statement's name on the connection. */
  name: string;
  text: string;
  values: unknown[];
  /** Its rows, once it has run; before the round trip's other callers are answered. */
  done(rows: Record<string, unknown>[]): void;
  /** It failed, or the connection did while it ran: whether it took effect is unknown. */
  failed(err: unknown): void;
}

/** Work that may leave with the feed's round trips: asked for one statement as each is sent. */
export interface FeedCarrier {
  take(): FeedStatement | undefined;
}

export interface ChangeFeed {
  /** True while the listening connection is up: only then may a cache trust that it hears every change. */
  readonly connected: boolean;
  /**
   * Resolves once every change committed before this call has been heard (its subscribers told); rejects when the
   * connection fails meanwhile. A round trip on the listening connection: PostgreSQL hands a session the notifications
   * pending for it before it answers the session's next query, and a commit signals every listener before the
   * committing client hears it succeeded. So a change another process has answered for is always heard first. Calls
   * made while one is on its way share the next round trip: one per batch of requests, not one per request.
   */
  sync(): Promise<void>;
  /**
   * The round trip waiting behind the one on the wire, not sent yet, if there is one: what a carrier has for the feed
   * by the time it is sent leaves with it. Rejects as sync() does (then nothing was taken from the carriers).
   */
  queuedSync(): Promise<void> | undefined;
  /** Where round trips take a statement from as they are sent: the first carrier with one gives it. */
  carry(carrier: FeedCarrier): void;
  subscribe(channel: string, subscriber: ChangeSubscriber): void;
  close(): Promise<void>;
}

/** How long to wait before reconnecting after the listening connection failed. */
const RECONNECT_DELAY_MS = 1_000;
const CHANNEL = /^[a-z_][a-z0-9_]{0,62}$/;

export function startChangeFeed(databaseUrl: string, log: Pick<Logger, 'warn'>): ChangeFeed {
  const subscribers = new Map<string, ChangeSubscriber[]>();
  let client: pg.Client | undefined;
  let connected = false;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;

  const resetAll = () => {
    for (const list of subscribers.values()) for (const s of list) s.onReset();
  };

  function lost(err?: unknown): void {
    if (!connected && client === undefined) return;
    connected = false;
    const old = client;
    client = undefined;
    resetAll();
    old?.removeAllListeners();
    old?.on('error', () => undefined);
    void old?.end().catch(() => undefined);
    if (closed) return;
    if (err) log.warn({ err }, 'change feed connection lost; caches are bypassed until it is back');
    retry = setTimeout(() => void connect(), RECONNECT_DELAY_MS);
  }

  async function connect(): Promise<void> {
    retry = undefined;
    const c = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5_000 });
    client = c;
    c.on('error', lost);
    c.on('end', () => lost());
    c.on('notification', (msg) => {
      for (const s of subscribers.get(msg.channel) ?? []) s.onChange(msg.payload ?? '');
    });
    try {
      await c.connect();
      for (const channel of subscribers.keys()) await c.query(`LISTEN ${channel}`);
      if (closed || client !== c) return;
      // Listening from here on; whatever was cached before may have missed a change.
      resetAll();
      connected = true;
    } catch (err) {
      if (client === c) lost(err);
    }
  }

  const carriers: FeedCarrier[] = [];
  function carried(): FeedStatement | undefined {
    for (const carrier of carriers) {
      const statement = carrier.take();
      if (statement) return statement;
    }
    return undefined;
  }

  // The round trip on the wire, and the one that starts when it is back (for calls made after the first was sent).
  let syncing: Promise<void> | undefined;
  let nextSync: Promise<void> | undefined;
  function startSync(): Promise<void> {
    const c = client;
    if (!connected || !c) return Promise.reject(new Error('the change feed is not connected'));
    const statement = carried();
    const sent = statement
      ? c.query({ name: statement.name, text: statement.text, values: statement.values }).then(
          (result) => statement.done(result.rows as Record<string, unknown>[]),
          (err: unknown) => {
            statement.failed(err);
            throw err;
          },
        )
      : c.query('select 1');
    const p: Promise<void> = sent.then(
      () => {
        if (syncing === p) syncing = undefined;
      },
      (err: unknown) => {
        if (syncing === p) syncing = undefined;
        throw err;
      },
    );
    return p;
  }
  function sync(): Promise<void> {
    if (!syncing) return (syncing = startSync());
    // A round trip already sent may have left before the caller's change committed: wait for the next one.
    nextSync ??= syncing
      .catch(() => undefined)
      .then(() => {
        nextSync = undefined;
        return (syncing = startSync());
      });
    return nextSync;
  }

  return {
    get connected() {
      return connected;
    },
    sync,
    queuedSync: () => nextSync,
    carry(carrier) {
      carriers.push(carrier);
    },
    subscribe(channel, subscriber) {
      if (!CHANNEL.test(channel)) throw new Error(`not a channel name: ${channel}`);
      const list = subscribers.get(channel);
      if (list) {
        list.push(subscriber);
        return;
      }
      subscribers.set(channel, [subscriber]);
      // The first subscriber of a channel: listen on it (the current connection, or the next one's connect()).
      if (connected && client) {
        connected = false;
        client.query(`LISTEN ${channel}`).then(
          () => {
            resetAll();
            connected = true;
          },
          (err: unknown) => lost(err),
        );
      } else if (!client && !retry && !closed) {
        void connect();
      }
    },
    async close() {
      closed = true;
      clearTimeout(retry);
      connected = false;
      const c = client;
      client = undefined;
      c?.removeAllListeners();
      c?.on('error', () => undefined);
      await c?.end().catch(() => undefined);
    },
  };
}
