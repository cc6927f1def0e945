/**
 * One API server per embedded store: LMDB would let several processes open it, but the watch
 * cache of each would miss the others' writes. `<dir>/owner.pid` names the process that has the
 * store; a start finding a live owner stops with a message that says replicas need etcd, and a
 * stale file (its process gone, a crash) is taken over.
 */
import { mkdirSync, openSync, readFileSync, rmSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { processExists } from '../../../shared/etcd/ownership.ts';

export function lockEmbeddedStore(dir: string): () => void {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'owner.pid');
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(file, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw err;
      const owner = Number(readFileSync(file, 'utf8'));
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && processExists(owner)) {
        throw new Error(`the embedded store in ${dir} is in use by process ${owner}: it serves one API server; run replicas on etcd (--etcd-servers)`);
      }
      // Left by a process that is gone: take it over.
      rmSync(file, { force: true });
    }
  }
}
