import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createLogger } from './logging.ts';

function capture(level = 'info') {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: createLogger(level, 'apiserver', sink), lines };
}

describe('createLogger', () => {
  it('writes one JSON object per line with level, time, name and message', () => {
    const { logger, lines } = capture();
    logger.info({ verb: 'get', code: 200 }, 'request');
    logger.debug('hidden at info');
    assert.equal(lines.length, 1);
    assert.equal(lines[0]?.level, 30);
    assert.equal(lines[0]?.name, 'apiserver');
    assert.equal(lines[0]?.msg, 'request');
    assert.equal(lines[0]?.verb, 'get');
    assert.equal(typeof lines[0]?.time, 'number');
  });

  it('never writes credentials or object content, whatever logs them', () => {
    const { logger, lines } = capture();
    logger.info({ headers: { authorization: 'Bearer secret-token', cookie: 'c=1', accept: 'application/json' } }, 'a');
    logger.info({ req: { headers: { authorization: 'Basic eDp5' } } }, 'b');
    logger.info({ authorization: 'Bearer t' }, 'c');
    logger.info({ object: { kind: 'Secret', data: { password: 'aHVudGVyMg==' }, stringData: { token: 't' } }, body: '{"data":{}}' }, 'd');
    const text = JSON.stringify(lines);
    for (const secret of ['secret-token', 'eDp5', 'Bearer t', 'aHVudGVyMg==', '"token":"t"', '{\\"data\\"']) assert.ok(!text.includes(secret), secret);
    assert.deepEqual(lines[0]?.headers, { authorization: '[Redacted]', cookie: '[Redacted]', accept: 'application/json' });
    assert.deepEqual(lines[3]?.object, { kind: 'Secret', data: '[Redacted]', stringData: '[Redacted]' });
  });
});
