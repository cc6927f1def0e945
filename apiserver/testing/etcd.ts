/**
 * A real etcd for one test file (or suite): started in a temp dir before its tests, stopped and
 * removed after them, with a client. Call at the top level or inside `describe`.
 *
 * On a machine without etcd no hooks are registered (top-level hooks run even when every test is
 * skipped), so the suites that use it must skip there: `describe('…', { skip: skipUnlessEtcd() }, …)`.
 */
import { after, before } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { skipUnlessEtcd } from '../../shared/etcd/availability.ts';
import { startEtcd, type EtcdProcess } from '../../shared/etcd/process.ts';
import { startProxy, type TcpProxy } from '../../shared/etcd/proxy.ts';
import { connectEtcd, type EtcdClient } from '../storage/etcd/store.ts';

export interface TestEtcd {
  /** The temp dir, which holds etcd's data in `etcd/`. */
  dir: string;
  process: EtcdProcess;
  client: EtcdClient;
}

async function startTestEtcd(name: string): Promise<TestEtcd> {
  const dir = mkdtempSync(join(tmpdir(), `corral-${name}-`));
  const process = await startEtcd({ dataDir: join(dir, 'etcd') });
  return { dir, process, client: connectEtcd({ endpoints: process.endpoints }) };
}

async function stopTestEtcd(etcd: TestEtcd): Promise<void> {
  etcd.client.close();
  await etcd.process.stop();
  rmSync(etcd.dir, { recursive: true, force: true });
}

/** Registers the before/after hooks; the returned getter is valid inside the tests. */
export function useEtcd(name: string): () => TestEtcd {
  let current: TestEtcd | undefined;
  const missing = skipUnlessEtcd();
  if (!missing) {
    before(async () => {
      current = await startTestEtcd(name);
    });
    after(async () => {
      if (current) await stopTestEtcd(current);
    });
  }
  return () => {
    if (!current) throw new Error(missing ? `useEtcd: ${missing}; skip the suite with skipUnlessEtcd()` : 'useEtcd: etcd is only there while the tests run');
    return current;
  };
}

export interface ProxiedEtcd extends TestEtcd {
  /** A TCP proxy in front of etcd that tests cut and pause. */
  proxy: TcpProxy;
  /** A client through the proxy: what is under test. (`client` goes straight to etcd.) */
  viaProxy: EtcdClient;
}

/** As useEtcd, with a TCP proxy in front of etcd and a second client through it. */
export function useProxiedEtcd(name: string): () => ProxiedEtcd {
  let current: ProxiedEtcd | undefined;
  const missing = skipUnlessEtcd();
  if (!missing) {
    before(async () => {
      const base = await startTestEtcd(name);
      const proxy = await startProxy({ targetPort: base.process.clientPort });
      current = { ...base, proxy, viaProxy: connectEtcd({ endpoints: [proxy.url] }) };
    });
    after(async () => {
      if (!current) return;
      current.viaProxy.close();
      await current.proxy.close();
      await stopTestEtcd(current);
    });
  }
  return () => {
    if (!current)
      throw new Error(missing ? `useProxiedEtcd: ${missing}; skip the suite with skipUnlessEtcd()` : 'useProxiedEtcd: etcd is only there while the tests run');
    return current;
  };
}
