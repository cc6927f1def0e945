/** The Buffer the codec's writer and reader work on; importing this module checks that the runtime's Buffer has its methods. */

/**
 * Node's Buffer methods behind `write(s, offset, 'utf8')`, `toString('utf8', start, end)` and the
 * like, which @types/node does not declare: called directly they skip the encoding-name dispatch
 * and argument checks, and utf8Write needs no subarray view (as TextEncoder.encodeInto does).
 */
export interface NodeBuffer extends Buffer {
  /** Writes at most `max` bytes of `s` at `offset`; returns the bytes written. */
  utf8Write(s: string, offset: number, max: number): number;
  utf8Slice(start: number, end: number): string;
  latin1Slice(start: number, end: number): string;
  base64Slice(start: number, end: number): string;
}

const bufferProto = Buffer.prototype as Partial<NodeBuffer>;
if (
  typeof bufferProto.utf8Write !== 'function' ||
  typeof bufferProto.utf8Slice !== 'function' ||
  typeof bufferProto.latin1Slice !== 'function' ||
  typeof bufferProto.base64Slice !== 'function'
) {
  throw new Error('protobuf codec: this runtime’s Buffer lacks utf8Write, utf8Slice, latin1Slice or base64Slice');
}

export function allocBuffer(size: number): NodeBuffer {
  return Buffer.allocUnsafe(size) as NodeBuffer;
}
