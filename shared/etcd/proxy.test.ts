import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { resetSocket, startProxy, type TcpProxy } from './proxy.ts';

/** How long a wait may take before it counts as a hang; never a timing assertion. */
const WAIT_MS = 30_000;

/** A client connection through the proxy that collects what the echo server sends back. */
interface Client {
  socket: Socket;
  received(): string;
  waitFor(text: string): Promise<void>;
  closed: Promise<void>;
}

async function open(port: number): Promise<Client> {
  const socket = connect({ host: '127.0.0.1', port });
  await once(socket, 'connect');
  let received = '';
  const waiters = new Set<() => void>();
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString('utf8');
    for (const w of [...waiters]) w();
  });
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return {
    socket,
    received: () => received,
    waitFor: (text) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no ${JSON.stringify(text)} within ${WAIT_MS} ms; received ${JSON.stringify(received)}`)), WAIT_MS);
        const check = (): void => {
          if (!received.includes(text)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
        check();
      }),
    closed,
  };
}

describe('TCP proxy', () => {
  let echo: Server;
  let proxy: TcpProxy;
  const serverSockets = new Set<Socket>();

  before(async () => {
    echo = createServer((socket) => {
      serverSockets.add(socket);
      socket.on('close', () => serverSockets.delete(socket));
      socket.on('error', () => {});
      socket.pipe(socket);
    });
    echo.listen(0, '127.0.0.1');
    await once(echo, 'listening');
    const address = echo.address();
    proxy = await startProxy({ targetPort: typeof address === 'object' && address ? address.port : 0 });
  });
  after(async () => {
    await proxy.close();
    for (const s of serverSockets) s.destroy();
    echo.close();
  });

  it('forwards both ways', async () => {
    const c = await open(proxy.port);
    c.socket.write('hello');
    await c.waitFor('hello');
    assert.equal(proxy.connections, 1);
    c.socket.destroy();
  });

  it('cut() resets live connections on both sides; new connections work', async () => {
    const c = await open(proxy.port);
    c.socket.write('a');
    await c.waitFor('a');
    const upstreamSockets = [...serverSockets];
    proxy.cut();
    await c.closed;
    assert.equal(proxy.connections, 0);
    // The server side of the cut connection is gone too.
    await Promise.all(upstreamSockets.map((s) => (s.destroyed ? Promise.resolve() : new Promise((resolve) => s.once('close', resolve)))));
    const d = await open(proxy.port);
    d.socket.write('b');
    await d.waitFor('b');
    d.socket.destroy();
  });

  it('pause() holds bytes of live and new connections back until resume(), losing none', async () => {
    const live = await open(proxy.port);
    live.socket.write('1');
    await live.waitFor('1');
    proxy.pause();
    live.socket.write('2');
    const fresh = await open(proxy.port);
    fresh.socket.write('x');
    // Nothing may come through while paused, however long one looks (this wait only gives it a chance).
    await sleep(200);
    assert.equal(live.received(), '1');
    assert.equal(fresh.received(), '');
    proxy.resume();
    live.socket.write('3');
    await live.waitFor('123');
    await fresh.waitFor('x');
    assert.equal(live.received(), '123');
    live.socket.destroy();
    fresh.socket.destroy();
  });
});

describe('resetSocket', () => {
  /**
   * In a process of its own, since the failure is a process that never exits: a socket whose
   * shutdown is pending (end() called) is reset in the next tick. A plain resetAndDestroy() there
   * fails with EINVAL and leaves a handle Node waits for forever at exit.
   */
  const program = (how: 'resetSocket' | 'resetAndDestroy'): string => `
    import { connect, createServer } from 'node:net';
    import { resetSocket } from ${JSON.stringify(new URL('./proxy.ts', import.meta.url).href)};
    const server = createServer((s) => { s.on('error', () => {}); s.resume(); });
    server.listen(0, '127.0.0.1', () => {
      const socket = connect({ port: server.address().port, host: '127.0.0.1' }, () => {
        socket.end();
        process.nextTick(() => {
          ${how === 'resetSocket' ? 'resetSocket(socket)' : 'socket.resetAndDestroy()'};
          server.close();
        });
      });
      socket.on('error', (err) => { console.error(err.message); process.exitCode = 3; });
    });`;

  /** The exit code, or 'hung' when the process is still there after `waitMs` (then killed). */
  const run = (how: 'resetSocket' | 'resetAndDestroy', waitMs: number): Promise<number | 'hung'> =>
    new Promise((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', program(how)], {
        cwd: fileURLToPath(new URL('../..', import.meta.url)),
        stdio: 'ignore',
      });
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        resolve('hung');
      }, waitMs);
      child.once('exit', (code) => {
        clearTimeout(timer);
        resolve(code ?? -1);
      });
    });

  it('destroys a socket whose shutdown is pending, and the process exits', async () => {
    assert.equal(await run('resetSocket', WAIT_MS), 0);
  });

  it('(the Node behaviour it avoids: resetAndDestroy then fails and the process never exits)', async () => {
    // A short wait: a slow machine can only make this pass, never fail (the process exits in well under a second when it exits at all).
    assert.equal(await run('resetAndDestroy', 5_000), 'hung');
  });

  it('still resets a socket that is not ending', async () => {
    const server = createServer((s) => s.resume());
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const accepted = once(server, 'connection');
    const socket = connect({ port, host: '127.0.0.1' });
    await once(socket, 'connect');
    const [peer] = (await accepted) as [Socket];
    const peerError = new Promise<string>((resolve) => peer.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? '')));
    resetSocket(socket);
    assert.equal(await peerError, 'ECONNRESET');
    server.close();
  });
});
