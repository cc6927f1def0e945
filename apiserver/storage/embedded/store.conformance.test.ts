/** The storage conformance suite against the embedded backend (LMDB in a temp dir). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { storageConformance } from '../conformance.ts';
import { EmbeddedStore } from './store.ts';

storageConformance(
  'the embedded backend',
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'corral-embedded-'));
    const storage = new EmbeddedStore(join(dir, 'db'));
    return {
      storage,
      compact: async (revision) => void (await storage.compact(revision)),
      close: async () => {
        await storage.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
  { expiresTtl: true },
);
