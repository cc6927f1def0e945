/**
 * The protobuf writer of the codebase: wire-level writing (tags, varints, doubles, strings, bytes,
 * nested messages with their length prefixes) into one scratch buffer. Everything corral sends as
 * protobuf goes through it: objects by their schemas (encode.ts), the `k8s\0` envelope
 * (envelope.ts), watch frames (watch.ts), and the gnostic form of the OpenAPI v2 document
 * (apiserver/endpoints/openapi/v2-protobuf.ts). It knows no schema; what to write is the caller's.
 */
import { allocBuffer, type NodeBuffer } from './node-buffer.ts';
import { putUint32, varintSize } from './wire.ts';

/**
 * A growable buffer written front to back. A length-delimited value reserves room for its length
 * prefix before its content is written: as many bytes as the caller guesses (what the same field
 * took last time), and the content is moved when the guess was wrong, as lengths are minimal
 * varints in upstream's encoding. Guessing from the last value of the field keeps most moves away
 * in lists, whose items are alike; a wrong guess costs one move, as a one-byte reservation would.
 */
export class Writer {
  buf: NodeBuffer;
  pos = 0;

  constructor(size: number) {
    this.buf = allocBuffer(size);
  }

  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = allocBuffer(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  byte(b: number): void {
    this.ensure(1);
    this.buf[this.pos++] = b;
  }

  /** An unsigned varint of at most 32 bits (tags, lengths, booleans). */
  uint32(v: number): void {
    this.ensure(5);
    this.pos = putUint32(this.buf, this.pos, v);
  }

  /** A signed integer as a 64-bit two's complement varint: negatives take 10 bytes, as Go's int32 and int64 do. */
  int64(v: number): void {
    if (v >= 0 && v <= 0x7fffffff) {
      this.uint32(v);
      return;
    }
    const abs = Math.abs(v);
    let hi = Math.floor(abs / 4294967296) >>> 0;
    let lo = (abs - hi * 4294967296) >>> 0;
    if (v < 0) {
      lo = (~lo + 1) >>> 0;
      hi = (~hi + (lo === 0 ? 1 : 0)) >>> 0;
    }
    this.varint64(lo, hi);
  }

  varint64(lo: number, hi: number): void {
    this.ensure(10);
    const buf = this.buf;
    let pos = this.pos;
    while (hi !== 0) {
      buf[pos++] = (lo & 127) | 128;
      lo = ((lo >>> 7) | (hi << 25)) >>> 0;
      hi >>>= 7;
    }
    while (lo > 127) {
      buf[pos++] = (lo & 127) | 128;
      lo >>>= 7;
    }
    buf[pos++] = lo;
    this.pos = pos;
  }

  double(v: number): void {
    this.ensure(8);
    this.buf.writeDoubleLE(v, this.pos);
    this.pos += 8;
  }

  /** A length-prefixed UTF-8 string. */
  string(s: string): void {
    const n = s.length;
    // Short ASCII strings are copied here: below about 20 units, cheaper than a call into the
    // runtime. At most 3 bytes per UTF-16 unit: the length fits one byte.
    if (n < 20) {
      this.ensure(1 + 3 * n);
      const buf = this.buf;
      const start = this.pos + 1;
      let p = start;
      for (let i = 0; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) {
          p = start + buf.utf8Write(s, start, 3 * n);
          break;
        }
        buf[p++] = c;
      }
      buf[this.pos] = p - start;
      this.pos = p;
      return;
    }
    // UTF-8 takes 1 to 3 bytes per UTF-16 unit. The length prefix is guessed for ASCII, the
    // common case, where it is exact; otherwise the content moves to make room for a longer one.
    const max = 3 * n;
    const guess = varintSize(n);
    this.ensure(varintSize(max) + max);
    const buf = this.buf;
    const start = this.pos + guess;
    const len = buf.utf8Write(s, start, max);
    const width = varintSize(len);
    if (width !== guess) buf.copyWithin(this.pos + width, start, start + len);
    this.pos = putUint32(buf, this.pos, len) + len;
  }

  bytes(b: Uint8Array): void {
    this.uint32(b.length);
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** Bytes written as they are, without a length. */
  raw(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** Reserves `width` bytes for the length of a nested message; returns where it goes. */
  begin(width = 1): number {
    this.ensure(width);
    const at = this.pos;
    this.pos += width;
    return at;
  }

  /**
   * Writes the length of the message begun at `at` with `reserved` bytes for it, moving its
   * content when the length takes another number of bytes; returns the number it took.
   */
  end(at: number, reserved = 1): number {
    const start = at + reserved;
    const len = this.pos - start;
    if (len < 128 && reserved === 1) {
      this.buf[at] = len;
      return 1;
    }
    const width = varintSize(len);
    if (width !== reserved) {
      if (width > reserved) this.ensure(width - reserved);
      this.buf.copyWithin(at + width, start, this.pos);
      this.pos += width - reserved;
    }
    putUint32(this.buf, at, len);
    return width;
  }

  /** A copy of what was written. */
  result(): Buffer {
    const out = Buffer.allocUnsafe(this.pos);
    this.buf.copy(out, 0, 0, this.pos);
    return out;
  }
}

/**
 * One writer serves every call (encoding is synchronous and never re-entered). It keeps its grown
 * buffer, up to 64 MiB, so that encoding a large list again neither regrows nor page-faults; a
 * larger result takes the buffer itself, and the next call starts afresh.
 */
let scratch = new Writer(64 * 1024);
const maxKeptScratch = 64 * 1024 * 1024;

/**
 * Runs `write` on the one writer, started empty, and returns what it wrote. `write` must not call
 * withWriter itself.
 */
export function withWriter(write: (w: Writer) => void): Buffer {
  const w = scratch;
  w.pos = 0;
  try {
    write(w);
    if (w.buf.length <= maxKeptScratch) return w.result();
    scratch = new Writer(64 * 1024);
    return w.buf.subarray(0, w.pos);
  } catch (err) {
    if (w.buf.length > maxKeptScratch) scratch = new Writer(64 * 1024);
    throw err;
  }
}
