/**
 * The watch cache's feed from etcd: a range over the registry root, then one watch after it
 * (watchEtcd: it resumes across reconnects without gaps or repeats). A batch's revision is the
 * newest of its raw events, keys outside any resource included (the compactor's key), so the
 * cache follows etcd's revision.
 */
import type { Etcd3 } from 'etcd3';
import type { CacheFeed } from '../cache/feed.ts';
import { ChangeDecoder } from '../changes.ts';
import { decodeStoredTextsYielding } from '../stored-value.ts';
import { prefixEnd, storedText } from './store.ts';
import { toStoredChanges, watchEtcd } from './watch.ts';

export function etcdCacheFeed(client: Etcd3): CacheFeed {
  return {
    async list(root, { accept, onBadValue }) {
      const res = await client.kv.range({ key: Buffer.from(root), range_end: prefixEnd(root) });
      const texts = res.kvs.map(storedText).filter((t) => accept(t.key));
      return { revision: Number(res.header.revision), entries: await decodeStoredTextsYielding(texts, onBadValue) };
    },
    watch(root, fromRevision, keys, handlers) {
      const decoder = new ChangeDecoder(keys, (err) => keys.onBadValue(err));
      const watch = watchEtcd(client, root, fromRevision, {
        onEvents: (events) => {
          let revision = 0;
          for (const event of events) revision = Math.max(revision, Number(event.kv.mod_revision));
          decoder.push(toStoredChanges(events, keys.accept), (decoded) => handlers.onEvents(decoded, revision));
        },
        onCancel: (err) => decoder.after(() => handlers.onCancel(err)),
      });
      return {
        cancel: () => {
          decoder.stop();
          return watch.cancel();
        },
      };
    },
  };
}
