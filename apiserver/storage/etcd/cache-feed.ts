/**
 * The watch cache's feed from etcd: a range over the registry root, then one watch after it
 * (watchEtcd: it resumes across reconnects without gaps or repeats). A batch's revision is the
 * newest of its raw events, keys outside any resource included (the compactor's key), so the
 * cache follows etcd's revision.
 */
import type { Etcd3 } from 'etcd3';
import type { CacheFeed } from '../cache/feed.ts';
import { decodeValue, prefixEnd, type StoredValue } from './store.ts';
import { toStorageEvents, watchEtcd } from './watch.ts';

export function etcdCacheFeed(client: Etcd3): CacheFeed {
  return {
    async list(root, accept, onBadValue) {
      const res = await client.kv.range({ key: Buffer.from(root), range_end: prefixEnd(root) });
      const entries: { key: string; value: StoredValue }[] = [];
      for (const kv of res.kvs) {
        const key = kv.key.toString('utf8');
        if (!accept(key)) continue;
        try {
          entries.push({ key, value: decodeValue(kv) });
        } catch (err) {
          onBadValue(err);
        }
      }
      return { revision: Number(res.header.revision), entries };
    },
    watch(root, fromRevision, accept, onBadValue, handlers) {
      const watch = watchEtcd(client, root, fromRevision, {
        onEvents: (events) => {
          let revision = 0;
          for (const event of events) revision = Math.max(revision, Number(event.kv.mod_revision));
          handlers.onEvents(toStorageEvents(events, accept, onBadValue), revision);
        },
        onCancel: (err) => handlers.onCancel(err),
      });
      return { cancel: () => watch.cancel() };
    },
  };
}
