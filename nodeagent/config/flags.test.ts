import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { kubeletFields, type FieldKind, type FieldTable } from './fields.ts';
import { applyConfigFlags, configFlags, parseConfigFlag, type ConfigFlagType } from './flags.ts';
import { defaultKubeletConfiguration } from './defaults.ts';

/** The field kinds a flag type may set. */
const accepts: Record<ConfigFlagType, FieldKind[]> = {
  bool: ['bool'],
  int32: ['int32'],
  int64: ['int64'],
  duration: ['duration'],
  string: ['string'],
  ip: ['string'],
  strings: ['strings'],
  map: ['stringMap'],
  langleMap: ['stringMap'],
  featureGates: ['boolMap'],
};

function kindAt(path: string): FieldKind | undefined {
  let table: FieldTable = kubeletFields;
  const parts = path.split('.');
  for (const [i, part] of parts.entries()) {
    const spec = table[part];
    if (!spec) return undefined;
    if (i === parts.length - 1) return spec.kind;
    table = spec.fields ?? {};
  }
  return undefined;
}

describe('configuration flags', () => {
  it('each sets an existing field of a matching type', () => {
    for (const [name, flag] of Object.entries(configFlags)) {
      const kind = kindAt(flag.field);
      assert.ok(kind !== undefined && accepts[flag.type].includes(kind), `--${name} → ${flag.field} (${kind})`);
    }
  });

  it('parse map flags as cliflag does', () => {
    assert.deepEqual(parseConfigFlag('system-reserved', configFlags['system-reserved']!, 'cpu=100m, memory=1Gi'), { cpu: '100m', memory: '1Gi' });
    assert.throws(() => parseConfigFlag('eviction-hard', configFlags['eviction-hard']!, 'memory.available=1Gi'), {
      message: 'invalid argument "memory.available=1Gi" for "--eviction-hard" flag: malformed pair, expect string<string',
    });
  });

  it('--feature-gates merges over the gates of the file: a flag gate wins, the others stay', () => {
    const config = defaultKubeletConfiguration({ featureGates: { NodeSwap: false, MemoryQoS: true } });
    applyConfigFlags(config, new Map([['feature-gates', { NodeSwap: true }]]));
    assert.deepEqual(config.featureGates, { NodeSwap: true, MemoryQoS: true });
  });
});
