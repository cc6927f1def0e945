/**
 * Facts of the protobuf wire format itself, shared by the writer and the reader: wire types and
 * the sizes and bytes of unsigned varints.
 */

export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_BYTES = 2;
export const WIRE_START_GROUP = 3;
export const WIRE_END_GROUP = 4;
export const WIRE_FIXED32 = 5;

/** Writes an unsigned varint of at most 32 bits at `pos` (room assured); returns the position after it. */
export function putUint32(buf: Buffer, pos: number, v: number): number {
  while (v > 127) {
    buf[pos++] = (v & 127) | 128;
    v >>>= 7;
  }
  buf[pos++] = v;
  return pos;
}

export function varintSize(v: number): number {
  return v < 0x80 ? 1 : v < 0x4000 ? 2 : v < 0x200000 ? 3 : v < 0x10000000 ? 4 : 5;
}
