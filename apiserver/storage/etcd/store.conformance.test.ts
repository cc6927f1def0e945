/** The storage conformance suite against etcd itself (EtcdStore over a real etcd). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { skipUnlessEtcd } from '../../../shared/etcd/availability.ts';
import { startEtcd } from '../../../shared/etcd/process.ts';
import { storageConformance } from '../conformance.ts';
import { connectEtcd, EtcdStore } from './store.ts';

storageConformance(
  'etcd',
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'corral-storage-conformance-'));
    const etcd = await startEtcd({ dataDir: join(dir, 'etcd') });
    const client = connectEtcd({ endpoints: etcd.endpoints });
    return {
      storage: new EtcdStore(client, '/registry'),
      compact: async (revision) => void (await client.kv.compact({ revision })),
      close: async () => {
        client.close();
        await etcd.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
  { expiresTtl: true, skip: skipUnlessEtcd() },
);
