/**
 * Objects as protobuf bodies: an object's message (encode.ts, decode.ts) inside its envelope
 * (envelope.ts), written in one pass and read back with the envelope's apiVersion and kind.
 */
import type { Schema } from '../../api/schema.ts';
import { decodeInto } from './decode.ts';
import { writeMessage } from './encode.ts';
import { decodeEnvelope, writeEnvelopeHead, writeEnvelopeTail, type Envelope } from './envelope.ts';
import { layoutOf } from './layout.ts';
import { decoding } from './reader.ts';
import { withWriter } from './writer.ts';

/**
 * Encodes an object (or a list, or a Status) with its envelope in one pass. The type comes from
 * `typeMeta`, else from the value's own apiVersion and kind.
 */
export function encodeObject(value: Record<string, unknown>, schema: Schema, typeMeta?: { apiVersion: string; kind: string }): Uint8Array {
  const layout = layoutOf(schema);
  const apiVersion = typeMeta?.apiVersion ?? (typeof value.apiVersion === 'string' ? value.apiVersion : '');
  const kind = typeMeta?.kind ?? (typeof value.kind === 'string' ? value.kind : '');
  return withWriter((w) => {
    writeEnvelopeHead(w, apiVersion, kind);
    w.byte(0x12);
    const at = w.begin(layout.rawWidth);
    writeMessage(w, layout, value);
    layout.rawWidth = w.end(at, layout.rawWidth);
    writeEnvelopeTail(w);
  });
}

/**
 * Decodes an enveloped object into its JSON shape, with apiVersion and kind from the envelope
 * first (when the envelope names them).
 */
export function decodeObject(bytes: Uint8Array, schema: Schema): Record<string, unknown> {
  return decodeEnvelopedObject(decodeEnvelope(bytes), schema);
}

/** decodeObject of an envelope already read (its type chose the schema). */
export function decodeEnvelopedObject(envelope: Envelope, schema: Schema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (envelope.apiVersion) out.apiVersion = envelope.apiVersion;
  if (envelope.kind) out.kind = envelope.kind;
  return decoding(envelope.raw, (r) => decodeInto(r, layoutOf(schema), envelope.raw.length, out));
}
