import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { notFound } from './respond.ts';
import { defaultHealthChecks, serveHealthz } from './healthz.ts';

describe('serveHealthz under another base path', () => {
  let server: Server;
  let failing: string | undefined;

  before(async () => {
    const checks = { ...defaultHealthChecks(), leader: () => failing };
    server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      for (const base of ['/healthz', '/readyz']) if (serveHealthz(res, url.pathname, url.searchParams, checks, pino({ level: 'silent' }), base)) return;
      notFound(res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  after(() => server.close());

  const get = (path: string): Promise<{ status: number; text: string }> =>
    new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, path }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      });
      req.on('error', reject);
      req.end();
    });

  it('names the endpoint in its verdict and serves each check under it', async () => {
    failing = undefined;
    assert.deepEqual(await get('/readyz'), { status: 200, text: 'ok' });
    assert.deepEqual(await get('/readyz?verbose'), { status: 200, text: '[+]ping ok\n[+]leader ok\nreadyz check passed\n' });
    assert.deepEqual(await get('/readyz/leader'), { status: 200, text: 'ok' });
    failing = 'not leading';
    assert.deepEqual(await get('/readyz'), { status: 500, text: '[+]ping ok\n[-]leader failed: reason withheld\nreadyz check failed\n' });
    assert.deepEqual(await get('/healthz'), { status: 500, text: '[+]ping ok\n[-]leader failed: reason withheld\nhealthz check failed\n' });
    assert.deepEqual(await get('/readyz/leader'), { status: 500, text: 'internal server error: not leading\n' });
    assert.equal((await get('/readyz/nothing')).status, 404);
    assert.equal((await get('/livez')).status, 404);
  });
});
