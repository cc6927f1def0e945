/**
 * A TCP proxy on a loopback port for fault tests: clients connect to the proxy instead of etcd, and
 * the test breaks the path between them.
 *
 * - `cut()` resets every live connection (both sides get an RST), as a crashed middlebox or a
 *   network blip does; new connections are accepted and forwarded normally.
 * - `pause()` black-holes the path: connections (live and new) stay open but no byte moves either
 *   way until `resume()`, as in a network partition. Bytes are held back, never dropped, so a
 *   partition that heals in time leaves every stream intact; `cut()` while paused models one that
 *   does not.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface TcpProxyOptions {
  /** Where connections are forwarded: etcd's client port on 127.0.0.1. */
  targetPort: number;
  targetHost?: string;
  /** The proxy's own port (default: a free one). */
  port?: number;
}

export interface TcpProxy {
  port: number;
  /** `http://127.0.0.1:<port>`: an etcd endpoint that goes through the proxy. */
  url: string;
  /** Resets every live connection; later connections are forwarded. */
  cut(): void;
  /** Stops all traffic (live and new connections) until resume(). */
  pause(): void;
  resume(): void;
  /** Connections open right now (client side). */
  readonly connections: number;
  /** Resets every connection and stops listening. */
  close(): Promise<void>;
}

/**
 * Ends a socket with an RST where one can be sent. A socket whose write side is already ending
 * (end() called, as Node does itself on the peer's FIN) is destroyed instead: libuv refuses a
 * reset while a shutdown is pending (`reset EINVAL`), and Node then never closes the handle, so
 * the process can never exit: it spins at 100 % CPU in its exit cleanup, waiting for that handle
 * (Node 20 and 24). This once held a test file, and so CI, until its time ran out.
 */
export function resetSocket(socket: Socket): void {
  if (socket.writableEnded) socket.destroy();
  else socket.resetAndDestroy();
}

interface Pair {
  client: Socket;
  upstream: Socket;
}

export async function startProxy(opts: TcpProxyOptions): Promise<TcpProxy> {
  const targetHost = opts.targetHost ?? '127.0.0.1';
  const pairs = new Set<Pair>();
  let paused = false;

  // Copies `from` to `to` with backpressure; a paused proxy neither reads nor resumes reading.
  const forward = (from: Socket, to: Socket): void => {
    from.on('data', (chunk: Buffer) => {
      if (to.write(chunk)) return;
      from.pause();
      to.once('drain', () => {
        if (!paused) from.resume();
      });
    });
  };

  const server: Server = createServer({ pauseOnConnect: true }, (client) => {
    const upstream = connect({ host: targetHost, port: opts.targetPort });
    upstream.pause();
    const pair = { client, upstream };
    pairs.add(pair);
    // One side failing or closing takes the other down with an RST, so the peer notices at once.
    const teardown = (): void => {
      if (!pairs.delete(pair)) return;
      resetSocket(client);
      resetSocket(upstream);
    };
    for (const socket of [client, upstream]) {
      socket.on('error', teardown);
      socket.on('close', teardown);
      socket.setNoDelay(true);
    }
    forward(client, upstream);
    forward(upstream, client);
    if (!paused) {
      client.resume();
      upstream.resume();
    }
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;

  const cut = (): void => {
    for (const pair of [...pairs]) {
      pairs.delete(pair);
      resetSocket(pair.client);
      resetSocket(pair.upstream);
    }
  };

  return {
    port,
    url: `http://127.0.0.1:${port}`,
    cut,
    pause() {
      paused = true;
      for (const { client, upstream } of pairs) {
        client.pause();
        upstream.pause();
      }
    },
    resume() {
      paused = false;
      for (const { client, upstream } of pairs) {
        client.resume();
        upstream.resume();
      }
    },
    get connections() {
      return pairs.size;
    },
    async close() {
      cut();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** One breakable path to a whole etcd cluster: a proxy per member, broken together. */
export interface TcpProxyGroup {
  /** The members' endpoints through the proxies, in the order of the targets. */
  urls: string[];
  cut(): void;
  pause(): void;
  resume(): void;
  close(): Promise<void>;
}

/** A proxy in front of each of `targetPorts` (etcd client ports on 127.0.0.1). */
export async function startProxyGroup(targetPorts: readonly number[]): Promise<TcpProxyGroup> {
  const proxies = await Promise.all(targetPorts.map((targetPort) => startProxy({ targetPort })));
  return {
    urls: proxies.map((p) => p.url),
    cut: () => proxies.forEach((p) => p.cut()),
    pause: () => proxies.forEach((p) => p.pause()),
    resume: () => proxies.forEach((p) => p.resume()),
    close: async () => void (await Promise.all(proxies.map((p) => p.close()))),
  };
}
