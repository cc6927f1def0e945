/** The storage conformance suite against the in-memory fake, so that in-process tests rest on etcd's semantics. */
import { storageConformance } from '../storage/conformance.ts';
import { MemoryEtcd } from './memory-etcd.ts';

storageConformance(
  'the in-memory fake',
  async () => {
    const storage = new MemoryEtcd();
    return { storage, compact: async (revision) => storage.compact(revision), close: async () => {} };
  },
  { expiresTtl: false },
);
