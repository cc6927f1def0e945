/**
 * How a watch turns events into frames, for each representation a watch can take: the object
 * itself (JSON or protobuf), its PartialObjectMetadata, or a one-row Table. Every watcher of an
 * event receives the same object (see GenericStore's `served`), so each frame is encoded once per
 * event and representation and the same bytes go to every watcher that asked for it: a thousand
 * watchers of a 100 KB object cost one encoding and one buffer, not a thousand.
 */
import type { KubeObject } from '../../shared/api/types.ts';
import type { ResourceDefinition } from '../registry/definition.ts';
import type { Representation } from './negotiation.ts';
import { objectType, ownBytes, partialMetadataType, sharedFrame, watchFrame, watchFrameYielding } from './serialize.ts';
import { frameKey } from './recent-frames.ts';
import { rowCells } from '../registry/table.ts';
import { partialObjectMetadata, toTable, type IncludeObject, type TableKind } from './table.ts';

/**
 * Encodes one event of a watch; `now` is the time its Table cells (ages) are computed at. A large
 * object's frame may take a while (a promise): the watch sends its frames in order all the same.
 */
export type EventEncoder = (type: string, object: KubeObject, now: Date) => Uint8Array | Promise<Uint8Array>;

/**
 * The encoder of one watch. Tables carry their column definitions in the watch's first event only,
 * as upstream sends them, so each Table watch has its own encoder (it remembers that first event).
 */
export function eventEncoder(def: ResourceDefinition, representation: Representation, includeObject: IncludeObject): EventEncoder {
  const format = representation.format === 'protobuf' ? 'protobuf' : 'json';
  if (representation.kind === 'object') {
    const messageType = objectType(def);
    return (type, object) => watchFrameYielding(type, object, format, messageType);
  }
  const { version } = representation;
  if (representation.kind === 'metadata') {
    // Every metadata watch of an event shares its frame, kept with the event's object.
    const messageType = partialMetadataType(version, false);
    const keys = new Map<string, string>();
    return (type, object) => {
      let key = keys.get(type);
      if (key === undefined) keys.set(type, (key = `metadata ${version} ${frameKey(format, type)}`));
      return sharedFrame(object, key, () => watchFrame(type, partialObjectMetadata(object, version), format, messageType));
    };
  }
  let first = true;
  return (type, object, now) => {
    const frame = tableFrame(def, type, object, { includeObject, version, columns: first }, now);
    first = false;
    return frame;
  };
}

/** What a Table frame depends on besides the event: each combination is a frame of its own. */
export interface TableVariant {
  includeObject: IncludeObject;
  version: string;
  /** Whether the column definitions are in it (a watch's first event) or empty (every later one). */
  columns: boolean;
}

/**
 * A Table frame kept with its event's object, valid while the row's cells stay the same; held
 * weakly: shared while streams hold it.
 */
interface KeptTableFrame {
  cells: string;
  frame: WeakRef<Uint8Array>;
}

const tableFrames = new WeakMap<KubeObject, Map<string, KeptTableFrame>>();

/**
 * The Table frame of one event: built on first demand, then shared by every Table watch of the
 * same variant while the row's cells are unchanged. Cells are computed for each watcher (they are
 * few and cheap, and an age moves with the clock), so a shared frame is byte for byte the frame
 * that watcher would have built; only the encoding of the row's object, the expensive part, is
 * done once. One frame per variant is kept, the latest.
 */
export function tableFrame(def: TableKind, type: string, object: KubeObject, variant: TableVariant, now: Date): Uint8Array {
  const cells = JSON.stringify(rowCells(def, object, now));
  const key = `${def.group}\0${def.kind}\0${type}\0${variant.version}\0${variant.includeObject}\0${variant.columns}`;
  let byVariant = tableFrames.get(object);
  if (!byVariant) {
    byVariant = new Map();
    tableFrames.set(object, byVariant);
  }
  const kept = byVariant.get(key);
  const keptFrame = kept?.cells === cells ? kept.frame.deref() : undefined;
  if (keptFrame) return keptFrame;
  const table = toTable(def, [object], { resourceVersion: object.metadata.resourceVersion ?? '' }, variant.includeObject, variant.version, now);
  if (!variant.columns) table.columnDefinitions = [];
  const frame = ownBytes(`${JSON.stringify({ type, object: table })}\n`);
  byVariant.set(key, { cells, frame: new WeakRef(frame) });
  return frame;
}
