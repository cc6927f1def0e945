/**
 * Protobuf watch streams: length-delimited frames (4-byte big-endian length) of bare meta/v1
 * WatchEvent messages (no envelope: upstream encodes the event with its raw serializer) whose
 * object.raw is the object's own envelope.
 */
import { decoding, readLength, readString, readUint32, skipField, type Reader } from './reader.ts';
import { withWriter } from './writer.ts';

/** The Content-Type of a protobuf watch response. */
export const protobufWatchMediaType = 'application/vnd.kubernetes.protobuf;stream=watch';

/**
 * One frame of a protobuf watch stream: a 4-byte big-endian length, then a meta/v1 WatchEvent
 * {type=1, object=2 RawExtension{raw=1}} whose raw is the object's envelope (encodeObject's result).
 */
export function encodeWatchFrame(type: string, objectEnvelope: Uint8Array): Uint8Array {
  return withWriter((w) => {
    w.ensure(4);
    w.pos = 4;
    w.byte(0x0a);
    w.string(type);
    w.byte(0x12);
    const at = w.begin();
    w.byte(0x0a);
    w.bytes(objectEnvelope);
    w.end(at);
    w.buf.writeUInt32BE(w.pos - 4, 0);
  });
}

export interface WatchEventFrame {
  type: string;
  /** The object's envelope (decode it with decodeObject). */
  object: Uint8Array;
}

/** Decodes the body of one watch frame (without its length prefix). */
export function decodeWatchEvent(body: Uint8Array): WatchEventFrame {
  return decoding(body, readWatchEvent);
}

function readWatchEvent(r: Reader): WatchEventFrame {
  const end = r.buf.length;
  const event: WatchEventFrame = { type: '', object: new Uint8Array(0) };
  while (r.pos < end) {
    const tag = readUint32(r, end);
    if (tag === 0x0a) event.type = readString(r, end);
    else if (tag === 0x12) {
      const stop = readLength(r, end);
      while (r.pos < stop) {
        const inner = readUint32(r, stop);
        if (inner === 0x0a) {
          const rawEnd = readLength(r, stop);
          event.object = r.buf.subarray(r.pos, rawEnd);
          r.pos = rawEnd;
        } else skipField(r, inner & 7, stop, inner >>> 3);
      }
    } else skipField(r, tag & 7, end, tag >>> 3);
  }
  return event;
}

/** Splits a length-delimited stream (4-byte big-endian lengths) into frame bodies, across chunk boundaries. */
export class FrameSplitter {
  private pending: Buffer = Buffer.alloc(0);

  /** Adds a chunk; returns the frames it completes. */
  push(chunk: Uint8Array): Uint8Array[] {
    let data = this.pending.length ? Buffer.concat([this.pending, chunk]) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const frames: Uint8Array[] = [];
    while (data.length >= 4) {
      const len = data.readUInt32BE(0);
      if (data.length < 4 + len) break;
      frames.push(data.subarray(4, 4 + len));
      data = data.subarray(4 + len);
    }
    this.pending = Buffer.from(data);
    return frames;
  }

  /** Bytes of an incomplete frame still waiting for the rest. */
  get buffered(): number {
    return this.pending.length;
  }
}
