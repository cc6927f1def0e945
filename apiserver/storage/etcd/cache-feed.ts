/**
 * The watch cache's feed from etcd: a range over the registry root, then one watch after it
 * (watchEtcd: it resumes across reconnects without gaps or repeats). A batch's revision is the
 * newest of its raw events, keys outside any resource included (the compactor's key), so the
 * cache follows etcd's revision.
 *
 * The watch asks for no previous values: the cache holds every current value under the root (the
 * listing, then every change in order), so a change's previous value is the one it holds
 * (changes.ts, 'held'). etcd would otherwise read each key at its revision before, once per event
 * and replica, and send it along: at 5,000 nodes, every Lease renewal twice over.
 */
import type { StoredChange } from '../changes.ts';
import type { CacheFeed } from '../cache/feed.ts';
import { prefixEnd, type EtcdClient } from './store.ts';
import { watchEtcd } from './watch.ts';

export function etcdCacheFeed(client: EtcdClient): CacheFeed {
  return {
    async list(root, accept) {
      const res = await client.kvCalls.range({ key: Buffer.from(root), rangeEnd: prefixEnd(root) });
      return { revision: res.revision, texts: res.kvs.filter((t) => accept(t.key)) };
    },
    watch(root, fromRevision, accept, handlers) {
      const watch = watchEtcd(
        client,
        root,
        fromRevision,
        {
          onChanges: (changes) => {
            // In revision order: the last one's is the batch's.
            const revision = changes[changes.length - 1]!.revision;
            const held: StoredChange[] = [];
            for (const change of changes) {
              if (!accept(change.key)) continue;
              change.previous = 'held';
              held.push(change);
            }
            handlers.onChanges(held, revision);
          },
          onCancel: (err) => handlers.onCancel(err),
        },
        false,
      );
      return { cancel: () => watch.cancel() };
    },
  };
}
