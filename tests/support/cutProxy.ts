// A TCP proxy a test can cut and restore, to make a dependency (the Stellar RPC) unreachable for a while without
// losing its state: cut() closes the listening port and every open connection (callers then get ECONNREFUSED, as
// from a host that is down), restore() listens again on the same port.
import { createServer, connect, type Server, type Socket } from 'node:net';
import { freePort } from '../../src/infra/freePort';

export interface CutProxy {
  /** http://127.0.0.1:<port> */
  url: string;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function cutProxy(target: { host: string; port: number }): Promise<CutProxy> {
  const port = await freePort();
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server = createServer((client) => {
        const upstream = connect(target.port, target.host);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on('close', () => sockets.delete(s));
          s.on('error', () => s.destroy());
        }
        client.pipe(upstream).pipe(client);
      });
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
  const cut = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      if (!server) return resolve();
      server.close(() => resolve());
      server = undefined;
    });
  await listen();
  return { url: `http://127.0.0.1:${port}`, cut, restore: listen, close: cut };
}
