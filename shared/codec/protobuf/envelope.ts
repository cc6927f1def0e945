/**
 * The envelope of every protobuf body: the prefix `k8s\0`, then a runtime.Unknown message
 * {typeMeta=1 {apiVersion=1, kind=2}, raw=2 (the object), contentEncoding=3, contentType=4}.
 * The object inside is the caller's (object.ts encodes both in one pass).
 */
import { ProtobufError, ProtobufPrefixError } from './errors.ts';
import { decoding, readLength, readString, readUint32, skipField, type Reader } from './reader.ts';
import { putUint32, varintSize } from './wire.ts';
import { withWriter, type Writer } from './writer.ts';

/** The Content-Type of protobuf bodies, each one enveloped. */
export const protobufMediaType = 'application/vnd.kubernetes.protobuf';
/** `k8s\0`: the magic prefix; its last byte selects the encoding (0: runtime.Unknown). */
export const envelopePrefix: Readonly<Uint8Array> = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);

export interface Envelope {
  apiVersion: string;
  kind: string;
  /** The object's own message (a view into the decoded bytes, not a copy). */
  raw: Uint8Array;
  contentEncoding: string;
  contentType: string;
}

export function writeEnvelopeHead(w: Writer, apiVersion: string, kind: string): void {
  w.ensure(4);
  w.buf.set(envelopePrefix, w.pos);
  w.pos += 4;
  w.byte(0x0a);
  const at = w.begin();
  w.byte(0x0a);
  w.string(apiVersion);
  w.byte(0x12);
  w.string(kind);
  w.end(at);
}

/** contentEncoding and contentType, always written and empty, as upstream writes them. */
export function writeEnvelopeTail(w: Writer): void {
  w.ensure(4);
  w.buf[w.pos++] = 0x1a;
  w.buf[w.pos++] = 0;
  w.buf[w.pos++] = 0x22;
  w.buf[w.pos++] = 0;
}

/** Wraps an encoded object in the `k8s\0` envelope. */
export function encodeEnvelope(apiVersion: string, kind: string, raw: Uint8Array): Uint8Array {
  return encodeEnvelopeParts(apiVersion, kind, [raw]);
}

/**
 * Wraps a message given in consecutive parts (a list's metadata, then its items, each encoded
 * once and kept) in the envelope: one buffer of the exact size, each part copied into it once.
 */
export function encodeEnvelopeParts(apiVersion: string, kind: string, parts: readonly Uint8Array[]): Uint8Array {
  const head = withWriter((w) => {
    writeEnvelopeHead(w, apiVersion, kind);
    w.byte(0x12);
  });
  const tail = withWriter(writeEnvelopeTail);
  let rawLength = 0;
  for (const part of parts) rawLength += part.length;
  const out = Buffer.allocUnsafe(head.length + varintSize(rawLength) + rawLength + tail.length);
  out.set(head, 0);
  let pos = putUint32(out, head.length, rawLength);
  for (const part of parts) {
    out.set(part, pos);
    pos += part.length;
  }
  out.set(tail, pos);
  return out;
}

/** Opens the envelope; throws ProtobufPrefixError without the `k8s\0` prefix. */
export function decodeEnvelope(bytes: Uint8Array): Envelope {
  if (bytes.length === 0) throw new ProtobufError('empty data');
  if (!startsWithPrefix(bytes)) {
    throw new ProtobufPrefixError(`provided data does not appear to be a protobuf message, expected prefix [${envelopePrefix.join(' ')}]`);
  }
  if (bytes.length === envelopePrefix.length) throw new ProtobufError('empty body');
  return decoding(bytes, readEnvelope);
}

function readEnvelope(r: Reader): Envelope {
  r.pos = envelopePrefix.length;
  const end = r.buf.length;
  const envelope: Envelope = { apiVersion: '', kind: '', raw: new Uint8Array(0), contentEncoding: '', contentType: '' };
  while (r.pos < end) {
    const tag = readUint32(r, end);
    if (tag === 0x0a) {
      const stop = readLength(r, end);
      while (r.pos < stop) {
        const inner = readUint32(r, stop);
        if (inner === 0x0a) envelope.apiVersion = readString(r, stop);
        else if (inner === 0x12) envelope.kind = readString(r, stop);
        else skipField(r, inner & 7, stop, inner >>> 3);
      }
    } else if (tag === 0x12) {
      const stop = readLength(r, end);
      envelope.raw = r.buf.subarray(r.pos, stop);
      r.pos = stop;
    } else if (tag === 0x1a) envelope.contentEncoding = readString(r, end);
    else if (tag === 0x22) envelope.contentType = readString(r, end);
    else skipField(r, tag & 7, end, tag >>> 3);
  }
  return envelope;
}

export function startsWithPrefix(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x6b && bytes[1] === 0x38 && bytes[2] === 0x73 && bytes[3] === 0x00;
}
