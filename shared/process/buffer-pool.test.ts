import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bufferPoolSize, useSmallBufferPool } from './buffer-pool.ts';

describe('useSmallBufferPool', () => {
  it('makes a small Buffer pin at most bufferPoolSize bytes once the current pool is used up', () => {
    useSmallBufferPool();
    assert.ok(Buffer.poolSize <= bufferPoolSize);
    // Use up whatever pool was current before (Node 24's is 64 KiB): small allocations fill it.
    for (let used = 0; used < 128 * 1024; used += 1024) Buffer.allocUnsafe(1024);
    const alpn = Buffer.from([2, 0x68, 0x32]);
    assert.ok(alpn.buffer.byteLength <= bufferPoolSize, `a 3-byte Buffer keeps ${alpn.buffer.byteLength} bytes alive`);
  });
});
