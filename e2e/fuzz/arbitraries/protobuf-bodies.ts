/**
 * Protobuf request bodies (`application/vnd.kubernetes.protobuf`): a valid object in its `k8s\0`
 * envelope, then broken on purpose: truncated, bytes overwritten, garbage after it, an envelope of
 * the right type around garbage, the wrong type, no prefix, only the prefix, and unknown fields
 * of nested groups deeper than any decoder should follow by recursion.
 */
import fc from 'fast-check';
import type { Schema } from '../../../shared/api/schema.ts';
import { encodeEnvelope, envelopePrefix } from '../../../shared/codec/protobuf/envelope.ts';
import { encodeObject } from '../../../shared/codec/protobuf/object.ts';

export interface ProtobufBody {
  body: Buffer;
  note: string;
}

/** An unknown field 15 as `depth` nested groups (start-group tags, then as many end-group tags). */
function nestedGroups(depth: number): Buffer {
  return Buffer.concat([Buffer.alloc(depth, 0x7b), Buffer.alloc(depth, 0x7c)]);
}

/** A varint-length-delimited field 1 nested `depth` times: each level a message holding the next. */
function nestedMessages(depth: number): Buffer {
  let inner = Buffer.alloc(0);
  for (let i = 0; i < depth; i++) {
    const len: number[] = [];
    let n = inner.length;
    do {
      len.push((n & 0x7f) | (n > 0x7f ? 0x80 : 0));
      n >>>= 7;
    } while (n > 0);
    inner = Buffer.concat([Buffer.of(0x0a, ...len), inner]);
  }
  return inner;
}

export function protobufBody(apiVersion: string, kind: string, object: Record<string, unknown>, schema: Schema | undefined): fc.Arbitrary<ProtobufBody> {
  let valid: Buffer | undefined;
  try {
    valid = schema ? Buffer.from(encodeObject(object, schema, { apiVersion, kind })) : undefined;
  } catch {
    valid = undefined;
  }
  const envelope = (raw: Uint8Array, av = apiVersion, k = kind): Buffer => Buffer.from(encodeEnvelope(av, k, raw));
  const garbage = fc.uint8Array({ maxLength: 256 });
  const variants: fc.Arbitrary<ProtobufBody>[] = [
    garbage.map((g) => ({ body: envelope(g), note: `protobuf: envelope of ${kind} around ${g.length} random bytes` })),
    garbage.map((g) => ({ body: Buffer.concat([Buffer.from(envelopePrefix), g]), note: `protobuf: prefix then ${g.length} random bytes` })),
    fc.constant({ body: Buffer.from(envelopePrefix), note: 'protobuf: only the prefix' }),
    fc.constant({ body: Buffer.alloc(0), note: 'protobuf: empty body' }),
    fc.constant({ body: Buffer.from(JSON.stringify(object)), note: 'protobuf: a JSON body' }),
    fc.constantFrom(['v1', 'Status'], ['v1', ''], ['', kind], ['bogus/v9', kind], [apiVersion, 'Bogus']).map(([av, k]) => ({
      body: envelope(valid ? valid.subarray(0) : Buffer.alloc(0), av, k),
      note: `protobuf: envelope typed ${av}/${k}`,
    })),
    fc.constantFrom(1_000, 100_000).map((d) => ({ body: envelope(nestedGroups(d)), note: `protobuf: unknown field of ${d} nested groups` })),
    fc.constantFrom(100, 10_000).map((d) => ({ body: envelope(nestedMessages(d)), note: `protobuf: metadata nested ${d} messages deep` })),
  ];
  if (valid) {
    const v = valid;
    variants.push(
      fc.constant({ body: v, note: 'protobuf: valid' }),
      fc.integer({ min: 0, max: v.length - 1 }).map((n) => ({ body: v.subarray(0, n), note: `protobuf: valid object truncated to ${n} of ${v.length} bytes` })),
      fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 8 }).map((flips) => {
        const copy = Buffer.from(v);
        const places = flips.map(([at, byte]) => [envelopePrefix.length + (at % Math.max(1, copy.length - envelopePrefix.length)), byte] as const);
        for (const [at, byte] of places) copy[at] = byte;
        return { body: copy, note: `protobuf: valid object with bytes overwritten (${places.map(([at, byte]) => `${at}=${byte}`).join(',')})` };
      }),
      garbage.map((g) => ({ body: Buffer.concat([v, g]), note: `protobuf: valid object then ${g.length} random bytes` })),
    );
  }
  return fc.oneof(...variants);
}
