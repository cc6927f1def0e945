import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { FlagReader, flagUsage, parseFlagTable, withDefaults, type FlagTable } from './flags.ts';

const table: FlagTable = {
  name: { type: 'string', default: 'x', help: 'a name' },
  on: { type: 'bool', default: 'false', help: 'a pflag bool' },
  wait: { type: 'string', default: '1s', help: 'a duration' },
  help: { type: 'boolean', help: 'help' },
};

describe('flags', () => {
  it('reads --name value, --name=value and defaults', () => {
    assert.deepEqual(parseFlagTable(['--name', 'a', '--wait=2s'], table), { name: 'a', on: 'false', wait: '2s', help: undefined });
  });

  it('a bool flag alone is true; its value goes after =', () => {
    assert.equal(parseFlagTable(['--on'], table)['on'], 'true');
    assert.equal(parseFlagTable(['--on=false'], table)['on'], 'false');
    assert.throws(() => parseFlagTable(['--on', 'false'], table), /Unexpected argument 'false'/);
  });

  it('refuses unknown flags', () => {
    assert.throws(() => parseFlagTable(['--nope'], table), /Unknown option '--nope'/);
  });

  it('FlagReader collects every problem, in pflag words, then throws them together', () => {
    const r = new FlagReader(parseFlagTable(['--on=maybe', '--wait=soon'], table));
    assert.equal(r.bool('on', false), false);
    assert.equal(r.duration('wait', '1s'), 0);
    assert.throws(() => r.finish(), {
      message:
        'invalid argument "maybe" for "--on" flag: strconv.ParseBool: parsing "maybe": invalid syntax\n' +
        'invalid argument "soon" for "--wait" flag: time: invalid duration "soon"',
    });
  });

  it('a positive duration reports a bad value once', () => {
    const r = new FlagReader(parseFlagTable(['--wait=0s'], table));
    r.positiveDuration('wait', '1s');
    assert.deepEqual(r.errors, ['--wait 0s must be greater than 0']);
  });

  it('usage lists every flag with its default; withDefaults changes defaults only', () => {
    const text = flagUsage('cmd', withDefaults(table, { name: 'y', missing: 'z' }));
    assert.match(text, /^Usage: cmd \[flags\]/);
    assert.match(text, /--name +a name \(default "y"\)/);
    assert.doesNotMatch(text, /missing/);
  });
});
