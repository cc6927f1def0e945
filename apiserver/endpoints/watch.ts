/**
 * The watch verb: validates the watch's query, then streams watch events (JSON: one document per
 * line, `{"type":"ADDED","object":{...}}`; protobuf: length-prefixed WatchEvent frames) until the
 * client leaves, `timeoutSeconds` passes, or the watch cannot continue (a final ERROR event
 * carrying a Status, e.g. 410 Expired).
 */
import { badRequest, invalid, notAcceptable, toStatusError } from '../../shared/api/errors.ts';
import { FieldPath, forbidden, notSupported, type FieldError } from '../../shared/api/field.ts';
import type { KubeObject } from '../../shared/api/types.ts';
import type { GenericStore } from '../registry/store.ts';
import type { ResourceDefinition } from '../registry/definition.ts';
import { queryBool } from '../../shared/go/parse-bool.ts';
import { apiVersionOf } from '../registry/definition.ts';
import { buildListFilter } from './list-filter.ts';
import { checkResourceVersion } from './resource-version.ts';
import { negotiate, type Representation } from './negotiation.ts';
import { objectType, statusType, watchContentType, watchFrame } from './serialize.ts';
import type { IncludeObject } from './table.ts';
import { eventEncoder } from './watch-frames.ts';

/** Upstream's MinRequestTimeout: a watch without timeoutSeconds ends between 30 and 60 minutes. */
const minWatchTimeoutSeconds = 1800;
/** How often an idle watch that asked for bookmarks gets one. */
const bookmarkIntervalMs = 60_000;
/** How long before its timeout a watch that asked for bookmarks gets a last one. */
const bookmarkBeforeTimeoutMs = 2_000;

export interface WatchStream {
  /**
   * Sends one frame; false when the frame was not sent because the stream is closed or closing (the
   * client left, or fell too far behind and was cut off: it resumes from its last version).
   */
  write(frame: Uint8Array): boolean;
  end(): void;
  /** Registers what to do when the client goes away. */
  onClose(handler: () => void): void;
}

export interface WatchResponse {
  kind: 'watch';
  contentType: string;
  start(stream: WatchStream): Promise<void>;
}

function contentTypeOf(representation: Representation): string {
  if (representation.kind === 'object') return watchContentType(representation.format);
  const as = representation.kind === 'table' ? 'Table' : 'PartialObjectMetadata';
  const base = representation.format === 'protobuf' ? 'application/vnd.kubernetes.protobuf' : 'application/json';
  return `${base};as=${as};g=meta.k8s.io;v=${representation.version}`;
}

export function watchRequest(
  def: ResourceDefinition,
  store: GenericStore,
  namespace: string,
  query: URLSearchParams,
  accept: string | undefined,
): WatchResponse {
  const representation = negotiate(accept, true);
  // YAML has no streaming form upstream.
  if (representation.format === 'yaml') throw notAcceptable(['application/json', 'application/vnd.kubernetes.protobuf']);
  const frameFormat = representation.format === 'protobuf' ? 'protobuf' : 'json';
  const includeObjectText = query.get('includeObject') ?? 'Metadata';
  const includeObject: IncludeObject = includeObjectText === 'None' || includeObjectText === 'Object' ? includeObjectText : 'Metadata';
  const encode = eventEncoder(def, representation, includeObject);
  const resourceVersion = query.get('resourceVersion') ?? '';
  const resourceVersionMatch = query.get('resourceVersionMatch') ?? '';
  const allowBookmarks = queryBool(query.get('allowWatchBookmarks'));
  const sendInitialEventsText = query.get('sendInitialEvents');
  const requestedInitialEvents = sendInitialEventsText !== null ? queryBool(sendInitialEventsText) : undefined;
  // Upstream's validateWatchOptions: every problem is reported, in this order.
  const errors: FieldError[] = [];
  const rvm = FieldPath.root('resourceVersionMatch');
  if (requestedInitialEvents !== undefined && resourceVersionMatch !== 'NotOlderThan') {
    errors.push(forbidden(rvm, 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
  }
  if (resourceVersionMatch) {
    if (requestedInitialEvents === undefined) errors.push(forbidden(rvm, 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
    if (resourceVersionMatch !== 'NotOlderThan') errors.push(notSupported(rvm, resourceVersionMatch, ['NotOlderThan']));
    if (query.get('continue')) errors.push(forbidden(rvm, 'resourceVersionMatch is forbidden when continue is provided'));
  }
  if (errors.length) throw invalid({ group: 'meta.k8s.io', kind: 'ListOptions' }, '', errors);
  checkResourceVersion(resourceVersion);
  // Upstream 1.32 (WatchList on by default) turns a watch without a version (unset or 0) and without
  // sendInitialEvents/resourceVersionMatch into sendInitialEvents=true, NotOlderThan: the same
  // initial ADDED events as before, now closed by the initial-events-end bookmark when bookmarks
  // are allowed (SetListOptionsDefaults).
  const sendInitialEvents = requestedInitialEvents ?? (resourceVersion === '' || resourceVersion === '0');
  const timeoutText = query.get('timeoutSeconds');
  if (timeoutText !== null && !/^\d+$/.test(timeoutText)) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(timeoutText)}: invalid syntax`);
  // 0 means unset, as upstream reads it.
  const timeoutSeconds = timeoutText && Number(timeoutText) > 0 ? Number(timeoutText) : minWatchTimeoutSeconds * (1 + Math.random());
  const filter = buildListFilter(def, query.get('labelSelector') ?? '', query.get('fieldSelector') ?? '');
  const resumeFrom = resourceVersion && resourceVersion !== '0' ? Number(resourceVersion) : undefined;
  const bookmark = (revision: number, initialEventsEnd: boolean): Uint8Array =>
    watchFrame(
      'BOOKMARK',
      {
        kind: def.kind,
        apiVersion: apiVersionOf(def),
        metadata: { resourceVersion: String(revision), ...(initialEventsEnd ? { annotations: { 'k8s.io/initial-events-end': 'true' } } : {}) },
      },
      frameFormat,
      objectType(def),
    );

  return {
    kind: 'watch',
    contentType: contentTypeOf(representation),
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
        stream.write(watchFrame('ERROR', toStatusError(err).status, frameFormat, statusType));
        finish();
      };
      // Frames leave in order: one still being encoded (a large object's) holds back those after it.
      let queued: Promise<void> | undefined;
      const send = (frame: Uint8Array | Promise<Uint8Array>): void => {
        if (closed) return;
        if (queued === undefined && !(frame instanceof Promise)) {
          // A client too slow to take its events is cut off; it resumes from its last version.
          if (!stream.write(frame)) finish();
          return;
        }
        const mine: Promise<void> = (queued ?? Promise.resolve())
          .then(() => frame)
          .then((bytes) => {
            if (!closed && !stream.write(bytes)) finish();
          }, fail)
          .finally(() => {
            if (queued === mine) queued = undefined;
          });
        queued = mine;
      };
      stream.onClose(finish);
      timers.push(setTimeout(finish, timeoutSeconds * 1000));
      let watch;
      try {
        watch = await store.watch(
          namespace,
          {
            filter,
            initialEvents: sendInitialEvents,
            consistent: resourceVersion === '',
            ...(resumeFrom !== undefined ? { fromRevision: resumeFrom } : {}),
          },
          {
            event(type, object: KubeObject) {
              if (closed) return;
              lastRevision = Number(object.metadata.resourceVersion);
              send(encode(type, object, new Date()));
            },
            synced(revision) {
              if (closed) return;
              lastRevision = Math.max(lastRevision, revision);
              if (sendInitialEvents && allowBookmarks) send(bookmark(revision, true));
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
        const sendBookmark = (): void => {
          if (!closed && lastRevision > 0) send(bookmark(lastRevision, false));
        };
        // One timer per watch for the periodic bookmark, re-armed rather than replaced.
        const ticker = setTimeout(function tick() {
          sendBookmark();
          if (!closed) ticker.refresh();
        }, bookmarkIntervalMs);
        timers.push(ticker);
        // Like upstream, a bookmark shortly before the watch times out, so the client resumes from it.
        timers.push(setTimeout(sendBookmark, Math.max(0, timeoutSeconds * 1000 - bookmarkBeforeTimeoutMs)));
      }
    },
  };
}
