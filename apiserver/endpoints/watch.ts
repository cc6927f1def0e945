/**
 * The watch verb: validates the watch's query, then streams watch events (one JSON document per
 * line: `{"type":"ADDED","object":{...}}`) until the client leaves, `timeoutSeconds` passes, or the
 * watch cannot continue (a final ERROR event carrying a Status, e.g. 410 Expired).
 */
import { badRequest, invalid, toStatusError } from '../../shared/api/errors.ts';
import { FieldPath, forbidden, type FieldError } from '../../shared/api/field.ts';
import type { KubeObject } from '../../shared/api/types.ts';
import type { GenericStore } from '../registry/store.ts';
import type { ResourceDefinition } from '../registry/definition.ts';
import { isTrue } from '../server/requestinfo.ts';
import { buildListFilter } from './list-filter.ts';

/** Upstream's MinRequestTimeout: a watch without timeoutSeconds ends between 30 and 60 minutes. */
const minWatchTimeoutSeconds = 1800;
/** How often an idle watch that asked for bookmarks gets one. */
const bookmarkIntervalMs = 60_000;

export interface WatchStream {
  /** Sends one frame; returns false when the client is gone. */
  write(frame: string): void;
  end(): void;
  /** Registers what to do when the client goes away. */
  onClose(handler: () => void): void;
}

export interface WatchResponse {
  kind: 'watch';
  start(stream: WatchStream): Promise<void>;
}

function frame(type: string, object: unknown): string {
  return `${JSON.stringify({ type, object })}\n`;
}

/**
 * Frames by object and event type. Watches served from the cache receive the same (never mutated)
 * object for one event, so each event is serialized once however many watchers receive it.
 */
const frames = new WeakMap<KubeObject, Partial<Record<string, string>>>();

function eventFrame(type: string, object: KubeObject): string {
  let byType = frames.get(object);
  if (!byType) {
    byType = {};
    frames.set(object, byType);
  }
  return (byType[type] ??= frame(type, object));
}

export function watchRequest(def: ResourceDefinition, store: GenericStore, namespace: string, query: URLSearchParams): WatchResponse {
  const resourceVersion = query.get('resourceVersion') ?? '';
  const resourceVersionMatch = query.get('resourceVersionMatch') ?? '';
  const allowBookmarks = isTrue(query.get('allowWatchBookmarks'));
  const sendInitialEventsText = query.get('sendInitialEvents');
  const sendInitialEvents = sendInitialEventsText !== null ? isTrue(sendInitialEventsText) : undefined;
  const errors: FieldError[] = [];
  if (sendInitialEvents !== undefined) {
    if (resourceVersionMatch !== 'NotOlderThan') {
      errors.push(forbidden(FieldPath.root('resourceVersionMatch'), 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
    }
    if (!allowBookmarks) errors.push(forbidden(FieldPath.root('allowWatchBookmarks'), 'sendInitialEvents requires setting allowWatchBookmarks to true'));
  } else if (resourceVersionMatch) {
    errors.push(forbidden(FieldPath.root('resourceVersionMatch'), 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
  }
  if (errors.length) throw invalid({ group: 'meta.k8s.io', kind: 'ListOptions' }, '', errors);
  if (resourceVersion && resourceVersion !== '0' && !/^\d+$/.test(resourceVersion)) throw badRequest(`invalid resource version: ${resourceVersion}`);
  const timeoutText = query.get('timeoutSeconds');
  if (timeoutText !== null && !/^\d+$/.test(timeoutText)) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(timeoutText)}: invalid syntax`);
  const timeoutSeconds = timeoutText ? Number(timeoutText) : minWatchTimeoutSeconds * (1 + Math.random());
  const filter = buildListFilter(def, query.get('labelSelector') ?? '', query.get('fieldSelector') ?? '');
  const resumeFrom = resourceVersion && resourceVersion !== '0' ? Number(resourceVersion) : undefined;
  const bookmark = (revision: number, initialEventsEnd: boolean): string =>
    frame('BOOKMARK', {
      kind: def.kind,
      apiVersion: def.group ? `${def.group}/${def.version}` : def.version,
      metadata: { resourceVersion: String(revision), ...(initialEventsEnd ? { annotations: { 'k8s.io/initial-events-end': 'true' } } : {}) },
    });

  return {
    kind: 'watch',
    async start(stream) {
      let lastRevision = resumeFrom ?? 0;
      let closed = false;
      const timers: NodeJS.Timeout[] = [];
      let release = async (): Promise<void> => {};
      const finish = (): void => {
        if (closed) return;
        closed = true;
        for (const t of timers) clearTimeout(t);
        void release();
        stream.end();
      };
      // A watch that cannot start or continue ends with an ERROR event carrying its Status.
      const fail = (err: unknown): void => {
        if (closed) return;
        stream.write(frame('ERROR', toStatusError(err).status));
        finish();
      };
      stream.onClose(finish);
      timers.push(setTimeout(finish, timeoutSeconds * 1000));
      let watch;
      try {
        watch = await store.watch(
        namespace,
        { filter, sendInitialEvents: sendInitialEvents === true, consistent: resourceVersion === '', ...(resumeFrom !== undefined ? { fromRevision: resumeFrom } : {}) },
        {
          event(type, object: KubeObject) {
            if (closed) return;
            lastRevision = Number(object.metadata.resourceVersion);
            stream.write(eventFrame(type, object));
          },
          synced(revision) {
            if (closed) return;
            lastRevision = Math.max(lastRevision, revision);
            if (sendInitialEvents && allowBookmarks) stream.write(bookmark(revision, true));
          },
          error: fail,
          closed: finish,
        },
      );
      } catch (err) {
        fail(err);
        return;
      }
      release = () => watch.cancel();
      if (closed) await watch.cancel();
      if (allowBookmarks) {
        const tick = (): void => {
          if (closed) return;
          if (lastRevision > 0) stream.write(bookmark(lastRevision, false));
          timers.push(setTimeout(tick, bookmarkIntervalMs));
        };
        timers.push(setTimeout(tick, bookmarkIntervalMs));
      }
    },
  };
}
