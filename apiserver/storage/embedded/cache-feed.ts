/**
 * The watch cache's feed from the embedded backend: its snapshot of the registry, then its watch
 * from the revision after it. Every key under the root is an object the store wrote, so a batch's
 * revision is its last event's.
 */
import type { CacheFeed } from '../cache/feed.ts';
import { ChangeDecoder } from '../changes.ts';
import { decodeStoredTextsYielding } from '../stored-value.ts';
import { StorageError } from '../etcd/errors.ts';
import type { EmbeddedStore } from './store.ts';

export function embeddedCacheFeed(store: EmbeddedStore): CacheFeed {
  return {
    async list(root, { accept, onBadValue }) {
      const { revision, texts } = store.snapshot(root, accept);
      return { revision, entries: await decodeStoredTextsYielding(texts, onBadValue) };
    },
    watch(root, fromRevision, keys, handlers) {
      let cancelled = false;
      const decoder = new ChangeDecoder(keys, (err) => keys.onBadValue(err));
      const watching = store
        .watchChanges(root, fromRevision, {
          onChanges: (changes) => {
            const revision = changes.at(-1)?.revision ?? 0;
            decoder.push(
              changes.filter((c) => keys.accept(c.key)),
              (events) => handlers.onEvents(events, revision),
            );
          },
          onError: (err) => decoder.after(() => handlers.onCancel(err)),
        })
        .catch((err: unknown) => {
          if (!cancelled) handlers.onCancel(err instanceof StorageError ? err : new StorageError('Internal', root, String(err)));
          return undefined;
        });
      return {
        cancel: async () => {
          cancelled = true;
          decoder.stop();
          await (await watching)?.cancel();
        },
      };
    },
  };
}
