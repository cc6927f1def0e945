import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { etcdBinary, findExecutable, skipUnlessEtcd } from './availability.ts';

describe('skipUnlessEtcd', () => {
  const dir = mkdtempSync(join(tmpdir(), 'corral-availability-'));
  const empty = join(dir, 'empty');
  mkdirSync(empty);
  const etcd = join(dir, 'etcd');
  writeFileSync(etcd, '#!/bin/sh\n');
  chmodSync(etcd, 0o755);
  const notExecutable = join(dir, 'etcd-data');
  writeFileSync(notExecutable, '');
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('runs the suite when etcd is on PATH', () => {
    assert.equal(skipUnlessEtcd({ PATH: [empty, dir].join(delimiter) }), false);
    assert.equal(findExecutable('etcd', [empty, dir].join(delimiter)), etcd);
  });

  it('skips with the reason when it is not', () => {
    const reason = skipUnlessEtcd({ PATH: empty });
    assert.equal(typeof reason, 'string');
    assert.match(String(reason), /^etcd is not installed: no etcd on PATH \(install etcd/);
  });

  it('honours CORRAL_ETCD_BINARY: a path must be an executable file', () => {
    assert.equal(etcdBinary({ CORRAL_ETCD_BINARY: etcd }), etcd);
    assert.equal(etcdBinary({}), 'etcd');
    assert.equal(skipUnlessEtcd({ PATH: empty, CORRAL_ETCD_BINARY: etcd }), false);
    assert.match(String(skipUnlessEtcd({ PATH: dir, CORRAL_ETCD_BINARY: notExecutable })), /etcd-data is not an executable file/);
    assert.match(String(skipUnlessEtcd({ PATH: dir, CORRAL_ETCD_BINARY: dir })), /is not an executable file/);
  });

  it('fails instead of skipping under CORRAL_REQUIRE_ETCD=1', () => {
    assert.throws(() => skipUnlessEtcd({ PATH: empty, CORRAL_REQUIRE_ETCD: '1' }), /^Error: CORRAL_REQUIRE_ETCD=1, but etcd is not installed: no etcd on PATH/);
    assert.equal(skipUnlessEtcd({ PATH: dir, CORRAL_REQUIRE_ETCD: '1' }), false);
  });
});
