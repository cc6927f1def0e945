import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createServer } from 'node:net';
import { describe, it } from 'node:test';
import { freePort, freePorts } from './free-ports.ts';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** Linux's ephemeral range, when this is Linux. */
function ephemeralRange(): [number, number] | undefined {
  try {
    const [low = 0, high = 0] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    return [low, high];
  } catch {
    return undefined;
  }
}

describe('freePorts', () => {
  it('hands out distinct ports outside the ephemeral range that a server can bind', async () => {
    const ports = await freePorts(20);
    assert.equal(new Set(ports).size, 20);
    const range = ephemeralRange();
    for (const port of ports) {
      assert.ok(port >= 1024 && port <= 65535, `${port}`);
      if (range) assert.ok(port < range[0] || port > range[1], `${port} is in the ephemeral range ${range.join('-')}`);
    }
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(ports[0], '127.0.0.1', resolve);
    });
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('never hands out a port twice, even once it is free again', async () => {
    const first = await freePorts(50);
    const more = await Promise.all(Array.from({ length: 50 }, () => freePort()));
    assert.equal(new Set([...first, ...more]).size, 100);
  });

  it('never hands one port to two processes choosing side by side', async () => {
    // 2 × 400 of some 22,000 candidates: without reservations about 7 would be chosen twice.
    const choose = `import('./shared/net/free-ports.ts').then(async (m) => console.log(JSON.stringify(await m.freePorts(400))))`;
    const run = promisify(execFile);
    const outputs = await Promise.all([0, 1].map(() => run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', choose], { cwd: repoRoot })));
    const [first = [], second = []] = outputs.map((o) => JSON.parse(o.stdout) as number[]);
    assert.equal(first.length, 400);
    assert.equal(second.length, 400);
    const taken = new Set(first);
    assert.deepEqual(
      second.filter((port) => taken.has(port)),
      [],
    );
  });
});
