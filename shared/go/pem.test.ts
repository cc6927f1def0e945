import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodePem, encodePem, pemBlocks, type PemBlock } from './pem.ts';

const bytes = (text: string): Buffer => Buffer.from(text, 'latin1');
const summary = (blocks: PemBlock[]): [string, string, Record<string, string>][] =>
  blocks.map((b) => [b.type, b.bytes.toString('latin1'), Object.fromEntries(b.headers)]);
const blocksOf = (text: string): [string, string, Record<string, string>][] => summary(pemBlocks(bytes(text)));

describe("pemBlocks (Go's pem.Decode in a loop)", () => {
  it('reads blocks in order, ignoring text before, between and after them', () => {
    const text = 'intro\n-----BEGIN A-----\nYWJj\n-----END A-----\nbetween\n-----BEGIN B-----\nZGVm\n-----END B-----\nthe end';
    assert.deepEqual(blocksOf(text), [
      ['A', 'abc', {}],
      ['B', 'def', {}],
    ]);
  });

  it('reads leading Key: value lines as headers, and nothing else', () => {
    const text = '-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n DEK-Info : x \n\nYWJj\n-----END RSA PRIVATE KEY-----\n';
    assert.deepEqual(blocksOf(text), [['RSA PRIVATE KEY', 'abc', { 'Proc-Type': '4,ENCRYPTED', 'DEK-Info': 'x' }]]);
    // A colon after the first body line is no header but bad base64: the block is skipped.
    assert.deepEqual(blocksOf('-----BEGIN A-----\nYWJj\nKey: value\n-----END A-----\n'), []);
  });

  it('takes CRLF line ends, split base64, blanks, and an empty body', () => {
    assert.deepEqual(blocksOf('-----BEGIN A-----  \r\nYW\r\n J\tj\r\n-----END A-----\r\n'), [['A', 'abc', {}]]);
    assert.deepEqual(blocksOf('-----BEGIN A-----\n-----END A-----\n'), [['A', '', {}]]);
  });

  it('skips what pem.Decode skips', () => {
    // BEGIN inside a line.
    assert.deepEqual(blocksOf('x -----BEGIN A-----\nYWJj\n-----END A-----\n'), []);
    // END inside a line, of another type, or followed by more text on its line.
    assert.deepEqual(blocksOf('-----BEGIN A-----\nYWJj-----END A-----\n'), []);
    assert.deepEqual(blocksOf('-----BEGIN A-----\nYWJj\n-----END B-----\n'), []);
    assert.deepEqual(blocksOf('-----BEGIN A-----\nYWJj\n-----END A----- x\n'), []);
    // A body that is not strict padded base64.
    assert.deepEqual(blocksOf('-----BEGIN A-----\nYWJ\n-----END A-----\n'), []);
    assert.deepEqual(blocksOf('-----BEGIN A-----\n!!!!\n-----END A-----\n'), []);
    // A BEGIN line that does not end in five dashes.
    assert.deepEqual(blocksOf('-----BEGIN A----- x\nYWJj\n-----END A-----\n'), []);
  });

  it('goes on after a skipped block', () => {
    const text = '-----BEGIN A-----\n!!!!\n-----END A-----\n-----BEGIN B-----\nYWJj\n-----END B-----\n';
    assert.deepEqual(blocksOf(text), [['B', 'abc', {}]]);
  });

  it('needs a line between headers and END', () => {
    assert.deepEqual(blocksOf('-----BEGIN A-----\nK: v\n-----END A-----\n'), []);
    assert.deepEqual(blocksOf('-----BEGIN A-----\nK: v\n\n-----END A-----\n'), [['A', '', { K: 'v' }]]);
  });
});

describe('decodePem', () => {
  it('gives the first block and the bytes after its END line', () => {
    const { block, rest } = decodePem(bytes('-----BEGIN A-----\nYWJj\n-----END A-----\nrest\n'));
    assert.equal(block?.type, 'A');
    assert.equal(rest.toString('latin1'), 'rest\n');
  });

  it('gives null and all the input when there is no block', () => {
    const { block, rest } = decodePem(bytes('no pem'));
    assert.equal(block, null);
    assert.equal(rest.toString('latin1'), 'no pem');
  });
});

describe('encodePem', () => {
  it('writes 64-character lines that decode again', () => {
    const der = Buffer.alloc(60, 7);
    const text = encodePem('CERTIFICATE', der);
    assert.match(text, /^-----BEGIN CERTIFICATE-----\n[A-Za-z0-9+/]{64}\n[A-Za-z0-9+/]{16}\n-----END CERTIFICATE-----\n$/);
    assert.deepEqual(pemBlocks(Buffer.from(text))[0]?.bytes, der);
  });
});
