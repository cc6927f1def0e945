import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isStatusError } from '../../shared/api/errors.ts';
import { bodyFormat, negotiate } from './negotiation.ts';

const table = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';

describe('negotiate', () => {
  it('answers JSON without an Accept, and by q, specificity and order with one', () => {
    assert.deepEqual(negotiate(undefined, true), { kind: 'object', format: 'json' });
    assert.deepEqual(negotiate('  ', true), { kind: 'object', format: 'json' });
    assert.deepEqual(negotiate('application/json;q=0.5, application/vnd.kubernetes.protobuf', true), { kind: 'object', format: 'protobuf' });
    assert.deepEqual(negotiate('*/*', true), { kind: 'object', format: 'json' });
    assert.deepEqual(negotiate('application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io', true), {
      kind: 'metadata',
      format: 'json',
      version: 'v1',
    });
  });

  it('answers a repeated Accept alike, tables allowed or not, and never lets an answer be changed', () => {
    const first = negotiate(table, true);
    assert.deepEqual(first, { kind: 'table', format: 'json', version: 'v1' });
    assert.equal(negotiate(table, true), first);
    assert.deepEqual(negotiate(table, false), { kind: 'object', format: 'json' });
    assert.ok(Object.isFrozen(first));
  });

  it('refuses an unacceptable Accept with 406 every time it is asked', () => {
    for (let i = 0; i < 2; i++)
      assert.throws(
        () => negotiate('text/plain', true),
        (err: unknown) => isStatusError(err, 'NotAcceptable'),
      );
  });

  it('keeps answering right past its bound on distinct Accept headers', () => {
    for (let i = 0; i < 600; i++) assert.deepEqual(negotiate(`application/vnd.kubernetes.protobuf;x=${i}`, true), { kind: 'object', format: 'protobuf' });
    assert.deepEqual(negotiate(table, true), { kind: 'table', format: 'json', version: 'v1' });
  });
});

describe('bodyFormat', () => {
  it('decodes JSON, YAML and protobuf bodies, and refuses others with 415 every time', () => {
    assert.equal(bodyFormat(undefined), 'json');
    assert.equal(bodyFormat('application/json; charset=utf-8'), 'json');
    assert.equal(bodyFormat('application/yaml'), 'yaml');
    assert.equal(bodyFormat('application/vnd.kubernetes.protobuf'), 'protobuf');
    assert.equal(bodyFormat('application/vnd.kubernetes.protobuf'), 'protobuf');
    for (let i = 0; i < 2; i++)
      assert.throws(
        () => bodyFormat('text/plain'),
        (err: unknown) => isStatusError(err, 'UnsupportedMediaType'),
      );
  });
});
