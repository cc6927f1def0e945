/**
 * Free loopback ports for the processes that the e2e harness, the cluster topology and the
 * benchmarks start and tell which port to bind.
 *
 * Why not a bind to port 0: the kernel takes those from its ephemeral range, the range it also
 * takes the source port of every outgoing connection from. A port chosen that way is closed again
 * and handed to a process that binds it seconds later; meanwhile it may have become the source
 * port of some connection (an API server's to etcd), and the bind fails with EADDRINUSE (it did in
 * CI, for haproxy's port). Ports here come from below the ephemeral range, which only an explicit
 * bind takes, and each is checked by binding it.
 *
 * Processes that choose at the same time (the test runner runs test files side by side) could
 * still pick one port, each seeing it free before either child binds it. So each chosen port is
 * also reserved for a while in a directory every process on the machine shares: a file per port,
 * created exclusively; a port another process reserved less than `reservationMs` ago is skipped.
 */
import { mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where ports are chosen when the kernel does not say its ephemeral range (macOS's starts at 49152). */
const fallbackRange = { first: 20000, last: 32767 } as const;
/** The lowest port chosen: well above the well-known and registered ports that daemons keep. */
const lowestPort = 10000;
const attemptsPerPort = 200;

/** Ports handed out by this process, never handed out twice (another caller may not have bound one yet). */
const handedOut = new Set<number>();

/** Where the processes of this machine reserve the ports they hand out. */
const reservations = join(tmpdir(), 'corral-port-reservations');
/** How long a reservation stands: long enough for the process told the port to start and bind it. */
const reservationMs = 120_000;

/**
 * Reserves `port` for this process unless another reserved it recently. Where reservations cannot
 * be written (a read-only temp dir), every port is taken as free to reserve: the bind check alone
 * applies, as before reservations.
 */
function reserve(port: number): boolean {
  const file = join(reservations, String(port));
  try {
    mkdirSync(reservations, { recursive: true });
    writeFileSync(file, String(process.pid), { flag: 'wx' });
    return true;
  } catch (err) {
    if (!(err instanceof Error && 'code' in err && err.code === 'EEXIST')) return true;
  }
  try {
    if (Date.now() - statSync(file).mtimeMs < reservationMs) return false;
    // A reservation long past: its port is anyone's again.
    unlinkSync(file);
    writeFileSync(file, String(process.pid), { flag: 'wx' });
    return true;
  } catch {
    // Another process took it over just now.
    return false;
  }
}

/** The ports to choose from: those below Linux's ephemeral range, or the fallback range. */
function candidateRange(): { first: number; last: number } {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (low !== undefined && Number.isInteger(low) && low - 1 - lowestPort >= 1000) return { first: lowestPort, last: low - 1 };
  } catch {
    // Not Linux: the fallback range lies below the other systems' ephemeral ranges.
  }
  return fallbackRange;
}

function listen(server: Server, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => resolve(true));
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
}

/**
 * `count` distinct ports that were free on 127.0.0.1 a moment ago, outside the ephemeral range.
 * Every port stays bound until all are chosen, so none is chosen twice.
 */
export async function freePorts(count: number): Promise<number[]> {
  const { first, last } = candidateRange();
  const held: Server[] = [];
  const ports: number[] = [];
  try {
    for (let attempt = 0; ports.length < count; attempt++) {
      if (attempt >= attemptsPerPort * count) throw new Error(`no free port found on 127.0.0.1 between ${first} and ${last}`);
      const port = first + Math.floor(Math.random() * (last - first + 1));
      if (handedOut.has(port) || ports.includes(port)) continue;
      const server = createServer().unref();
      if (!(await listen(server, port))) continue;
      if (!reserve(port)) {
        await close(server);
        continue;
      }
      held.push(server);
      ports.push(port);
    }
  } finally {
    await Promise.all(held.map(close));
  }
  for (const port of ports) handedOut.add(port);
  return ports;
}

/** A port that was free on 127.0.0.1 a moment ago, outside the ephemeral range. */
export async function freePort(): Promise<number> {
  const [port] = await freePorts(1);
  if (port === undefined) throw new Error('no free port found on 127.0.0.1');
  return port;
}
