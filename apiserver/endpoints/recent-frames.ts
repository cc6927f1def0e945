/**
 * The watch frames of the most recent events, shared by every watcher an event goes to.
 *
 * Every watcher of an event receives the same object (GenericStore's `served`) and encodes it into
 * its stream's frame as the event is dispatched, which the watch cache does within a few turns of
 * the event loop (watch-cache.ts `dispatch`). So a frame is wanted only while its event is being
 * dispatched: the newest frames are kept here, bounded by count and by bytes, and a watcher that
 * asks later (one resuming from history) encodes its event again.
 *
 * Why not keep frames with their objects, weakly (as before): the watch cache holds each object in
 * its history for 75 s, so every event kept a WeakMap entry, a Map and a WeakRef that long, and
 * every major GC had to process them: at 5,000 nodes, 54,000 of each on the replica that streams
 * the Leases to the controller manager, for one watcher that wanted each frame once.
 */

/** What is kept for one object: its frames by format and event type, and what encoding it takes. */
export interface ObjectFrames {
  /** Frames by `frameKey`. */
  readonly frames: Map<string, Uint8Array>;
  /** `isLargeJson` of the object, weighed once for all its watchers. */
  large?: boolean;
  /** Frames of a large object being written, by `frameKey`, for the watchers that ask meanwhile. */
  pending?: Map<string, Promise<Uint8Array>>;
}

export class RecentFrames {
  private readonly byObject = new Map<object, ObjectFrames>();
  /**
   * The objects of `byObject` in the order their frames were first kept, from `head`: the first is
   * the first to go. A queue of its own because walking the Map from its start to find its oldest
   * entry steps over every entry deleted since the Map last compacted itself, thousands of them
   * under a steady stream of events.
   */
  private order: object[] = [];
  private head = 0;
  private bytes = 0;

  constructor(
    /** Objects whose frames are kept at most. */
    private readonly maxObjects: number,
    /** Bytes of frames kept at most (the newest object's are kept whatever their size). */
    private readonly maxBytes: number,
  ) {}

  /** The frames kept for `object`, made (empty) and counted as the newest when there are none. */
  of(object: object): ObjectFrames {
    let found = this.byObject.get(object);
    if (found === undefined) {
      found = { frames: new Map() };
      this.byObject.set(object, found);
      this.order.push(object);
      this.evict(object);
    }
    return found;
  }

  /** The frame kept for `object` under `key`, if any. */
  get(object: object, key: string): Uint8Array | undefined {
    return this.byObject.get(object)?.frames.get(key);
  }

  /** Keeps `frame` for `object` under `key`, letting the oldest objects' frames go while over the bounds. */
  set(object: object, key: string, frame: Uint8Array): void {
    const frames = this.of(object).frames;
    this.bytes += frame.byteLength - (frames.get(key)?.byteLength ?? 0);
    frames.set(key, frame);
    this.evict(object);
  }

  /** Objects whose frames are kept (for tests and metrics). */
  get size(): number {
    return this.byObject.size;
  }

  /** Bytes of the frames kept. */
  get keptBytes(): number {
    return this.bytes;
  }

  private evict(newest: object): void {
    while (this.byObject.size > this.maxObjects || this.bytes > this.maxBytes) {
      const oldest = this.order[this.head];
      if (oldest === undefined || oldest === newest) break;
      this.head++;
      const kept = this.byObject.get(oldest);
      this.byObject.delete(oldest);
      for (const frame of kept?.frames.values() ?? []) this.bytes -= frame.byteLength;
    }
    // The queue drops what it has passed once that is most of it: amortized, a constant per object.
    if (this.head > 1024 && this.head * 2 > this.order.length) {
      this.order = this.order.slice(this.head);
      this.head = 0;
    }
  }
}

const protobufKeys = new Map<string, string>();

/** The key of one frame of an object: its format and event type (made once per type). */
export function frameKey(format: 'json' | 'protobuf', type: string): string {
  if (format === 'json') return type;
  let key = protobufKeys.get(type);
  if (key === undefined) protobufKeys.set(type, (key = `protobuf ${type}`));
  return key;
}
