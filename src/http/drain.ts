// Graceful shutdown of the HTTP server: stop taking connections, let the requests already running finish (each
// answered, with `Connection: close` so keep-alive clients reconnect elsewhere), then close what is left. The caller
// closes the database pool only after this, so no request is cut off mid-write or left waiting for a pool that is gone.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

export interface HttpDrain {
  /** True once draining began: readiness answers 503 so that a load balancer stops sending requests here. */
  readonly draining: boolean;
  /** Requests being answered now. */
  readonly inFlight: number;
  /**
   * Stops accepting, waits up to `ms` for the running requests to be answered, then closes every connection.
   * Resolves with the number of requests that were still running at the deadline (0 when all finished).
   */
  drain(ms: number): Promise<number>;
}

export function trackRequests(server: Server): HttpDrain {
  let inFlight = 0;
  let draining = false;
  let onIdle: (() => void) | undefined;

  server.on('request', (_req: IncomingMessage, res: ServerResponse) => {
    inFlight += 1;
    // A request that arrives on a kept-alive connection while draining is still answered, and that connection ends.
    if (draining) res.setHeader('Connection', 'close');
    res.once('close', () => {
      inFlight -= 1;
      if (inFlight === 0) onIdle?.();
    });
  });

  async function drain(ms: number): Promise<number> {
    draining = true;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    // Idle kept-alive connections carry no request: they are closed now, the busy ones after their answer.
    server.closeIdleConnections();
    if (inFlight > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((resolve) => (onIdle = resolve)),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, ms))),
      ]);
      clearTimeout(timer);
      onIdle = undefined;
    }
    const left = inFlight;
    server.closeAllConnections();
    await closed;
    return left;
  }

  return {
    get draining() {
      return draining;
    },
    get inFlight() {
      return inFlight;
    },
    drain,
  };
}
