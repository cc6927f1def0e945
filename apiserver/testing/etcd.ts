/**
 * A real etcd for one test file (or suite): started in a temp dir before its tests, stopped and
 * removed after them, with a client. Call at the top level or inside `describe`.
 */
import { after, before } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Etcd3 } from 'etcd3';
import { startEtcd, type EtcdProcess } from '../../shared/etcd/process.ts';
import { connectEtcd } from '../storage/etcd/store.ts';

export interface TestEtcd {
  /** The temp dir, which holds etcd's data in `etcd/`. */
  dir: string;
  process: EtcdProcess;
  client: Etcd3;
}

/** Registers the before/after hooks; the returned getter is valid inside the tests. */
export function useEtcd(name: string): () => TestEtcd {
  let current: TestEtcd | undefined;
  before(async () => {
    const dir = mkdtempSync(join(tmpdir(), `corral-${name}-`));
    const process = await startEtcd({ dataDir: join(dir, 'etcd') });
    current = { dir, process, client: connectEtcd({ endpoints: process.endpoints }) };
  });
  after(async () => {
    if (!current) return;
    current.client.close();
    await current.process.stop();
    rmSync(current.dir, { recursive: true, force: true });
  });
  return () => {
    if (!current) throw new Error('useEtcd: etcd is only there while the tests run');
    return current;
  };
}
