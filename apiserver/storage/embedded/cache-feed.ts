/**
 * The watch cache's feed from the embedded backend: its snapshot of the registry, then its watch
 * from the revision after it. Every key under the root is an object the store wrote, so a batch's
 * revision is its last event's.
 */
import type { CacheFeed } from '../cache/feed.ts';
import { StorageError } from '../etcd/errors.ts';
import type { EmbeddedStore } from './store.ts';

export function embeddedCacheFeed(store: EmbeddedStore): CacheFeed {
  return {
    list: async (root, accept) => store.snapshot(root, accept),
    watch(root, fromRevision, accept, handlers) {
      let cancelled = false;
      const watching = store
        .watchChanges(root, fromRevision, {
          onChanges: (changes) =>
            handlers.onChanges(
              changes.filter((c) => accept(c.key)),
              changes.at(-1)?.revision ?? 0,
            ),
          onError: (err) => handlers.onCancel(err),
        })
        .catch((err: unknown) => {
          if (!cancelled) handlers.onCancel(err instanceof StorageError ? err : new StorageError('Internal', root, String(err)));
          return undefined;
        });
      return {
        cancel: async () => {
          cancelled = true;
          await (await watching)?.cancel();
        },
      };
    },
  };
}
