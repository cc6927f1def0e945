import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { parseFlagTable } from '../../../shared/process/flags.ts';
import { flags, migrateConfig } from './config.ts';

const configOf = (argv: string[]): ReturnType<typeof migrateConfig> => migrateConfig(parseFlagTable(argv, flags));

describe('corral migrate flags', () => {
  it('one store each side: a data dir (resolved) or etcd URLs; the defaults', () => {
    assert.deepEqual(configOf(['--from-data-dir', 'rel/dir', '--to-etcd-servers', 'http://127.0.0.1:2379, http://10.0.0.2:2379']), {
      from: { kind: 'embedded', dataDir: resolve('rel/dir') },
      to: { kind: 'etcd', endpoints: ['http://127.0.0.1:2379', 'http://10.0.0.2:2379'] },
      prefix: '/registry',
      force: false,
      compact: true,
      batchSize: 500,
      etcdRequestTimeoutMs: 10_000,
    });
    const back = configOf(['--from-etcd-servers=https://e:2379', '--to-data-dir=/d', '--etcd-prefix=/other/', '--force', '--compact=false', '--batch-size=7']);
    assert.deepEqual(
      [back.from, back.to, back.prefix, back.force, back.compact, back.batchSize],
      [{ kind: 'etcd', endpoints: ['https://e:2379'] }, { kind: 'embedded', dataDir: '/d' }, '/other', true, false, 7],
    );
  });

  it('lists every problem of a command line at once', () => {
    assert.throws(
      () =>
        configOf([
          '--from-data-dir=/a',
          '--from-etcd-servers=http://e:2379',
          '--to-etcd-servers=ftp://x,localhost:2379',
          '--batch-size=0',
          '--force=maybe',
          '--etcd-request-timeout=0s',
        ]),
      {
        message: [
          '--from-data-dir and --from-etcd-servers exclude each other: give one, the store to copy',
          '--to-etcd-servers "ftp://x" is not an http:// or https:// URL',
          '--to-etcd-servers "localhost:2379" is not an http:// or https:// URL',
          '--batch-size 0 must be between 1 and 10000, inclusive',
          'invalid argument "maybe" for "--force" flag: strconv.ParseBool: parsing "maybe": invalid syntax',
          '--etcd-request-timeout 0s must be greater than 0',
        ].join('\n'),
      },
    );
    assert.throws(() => configOf([]), {
      message:
        'one of --from-data-dir and --from-etcd-servers is required: the store to copy\none of --to-data-dir and --to-etcd-servers is required: the store to copy into',
    });
    assert.throws(() => configOf(['--from-etcd-servers=,', '--to-data-dir=/d']), { message: '--from-etcd-servers names no URL' });
  });

  it('refuses to copy a store into itself', () => {
    assert.throws(() => configOf(['--from-data-dir=/d/', '--to-data-dir=/x/../d']), { message: 'the source and the target are the same store' });
    assert.throws(() => configOf(['--from-etcd-servers=http://a:1,http://b:1', '--to-etcd-servers=http://b:1']), {
      message: 'the source and the target are the same store',
    });
  });

  it('an unknown flag is an error of the parser (the command exits 2 with the usage)', () => {
    assert.throws(() => parseFlagTable(['--from-dir=/d'], flags), /Unknown option '--from-dir'/);
  });
});
