import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineResource, type ResourceDefinition } from './definition.ts';
import { runtimeConfig } from './registry.ts';

function def(group: string, version: string, plural: string, extra: Partial<ResourceDefinition> = {}): ResourceDefinition {
  return defineResource({
    group,
    version,
    kind: plural,
    plural,
    singular: plural,
    namespaced: true,
    verbs: ['get'],
    schema: { type: 'object' },
    strategy: { validate: () => [] },
    ...extra,
  });
}

const configmaps = def('', 'v1', 'configmaps');
const namespaces = def('', 'v1', 'namespaces');
const csidrivers = def('storage.k8s.io', 'v1', 'csidrivers');
const csinodes = def('storage.k8s.io', 'v1', 'csinodes');
const legacyBeta = def('storage.k8s.io', 'v1beta1', 'csistoragecapacities', { enabledByDefault: true });
const newBeta = def('storage.k8s.io', 'v1beta1', 'volumeattributesclasses');
const alpha = def('networking.k8s.io', 'v1alpha1', 'clustercidrs');
const stableOff = def('networking.k8s.io', 'v1', 'servicecidrs', { enabledByDefault: false });
const all = [configmaps, namespaces, csidrivers, csinodes, legacyBeta, newBeta, alpha, stableOff];

/** The plurals served under a --runtime-config value. */
function served(flag: string): string[] {
  const enabled = runtimeConfig(flag, all);
  return all.filter(enabled).map((d) => `${d.group || 'core'}/${d.version}/${d.plural}`);
}

describe('runtimeConfig defaults', () => {
  it('serves stable versions, not alpha ones, and beta ones only when they declare it', () => {
    assert.deepEqual(served(''), [
      'core/v1/configmaps',
      'core/v1/namespaces',
      'storage.k8s.io/v1/csidrivers',
      'storage.k8s.io/v1/csinodes',
      'storage.k8s.io/v1beta1/csistoragecapacities',
    ]);
  });
});

describe('runtimeConfig keys', () => {
  it('enables a group version with a bare key or any of strconv.ParseBool true values', () => {
    for (const flag of [
      'networking.k8s.io/v1alpha1',
      'networking.k8s.io/v1alpha1=true',
      'networking.k8s.io/v1alpha1=1',
      'networking.k8s.io/v1alpha1=T',
      'networking.k8s.io/v1alpha1=True',
    ]) {
      assert.ok(served(flag).includes('networking.k8s.io/v1alpha1/clustercidrs'), flag);
    }
  });

  it('disables a group version with false, 0, f, F, FALSE or False', () => {
    for (const value of ['false', '0', 'f', 'F', 'FALSE', 'False']) {
      assert.deepEqual(
        served(`storage.k8s.io/v1=${value}`).filter((s) => s.startsWith('storage.k8s.io/v1/')),
        [],
        value,
      );
    }
  });

  it('reads v1, api/v1 and anything below them as the core group', () => {
    // upstream maps `v1/<resource>` to the whole core group version too, not to the resource
    for (const flag of ['v1=false', 'api/v1=false', 'v1/configmaps=false', 'api/v1/configmaps=false']) {
      assert.deepEqual(
        served(flag).filter((s) => s.startsWith('core/')),
        [],
        flag,
      );
    }
    assert.ok(served('v1=false,api/all=true').every((s) => !s.startsWith('core/')));
  });

  it('api/all, api/ga, api/beta and api/alpha address every registered version of their stability', () => {
    assert.equal(served('api/all=true').length, all.length);
    assert.deepEqual(served('api/alpha'), [...served(''), 'networking.k8s.io/v1alpha1/clustercidrs']);
    assert.deepEqual(served('api/beta=true'), [...served('').slice(0, 5), 'storage.k8s.io/v1beta1/volumeattributesclasses']);
    assert.ok(!served('api/beta=false').includes('storage.k8s.io/v1beta1/csistoragecapacities'));
    assert.deepEqual(served('api/ga=false,api/beta=true'), ['storage.k8s.io/v1beta1/csistoragecapacities', 'storage.k8s.io/v1beta1/volumeattributesclasses']);
    // a stability key replaces the resource-level defaults of the versions it names
    assert.ok(served('api/ga=true').includes('networking.k8s.io/v1/servicecidrs'));
  });

  it('lets a version choice win over a stability key, whatever the order in the flag', () => {
    assert.deepEqual(served('v1=true,api/all=false'), ['core/v1/configmaps', 'core/v1/namespaces']);
    assert.deepEqual(served('api/all=false,storage.k8s.io/v1=true'), ['storage.k8s.io/v1/csidrivers', 'storage.k8s.io/v1/csinodes']);
  });

  it('lets a resource choice win over its version choice', () => {
    assert.deepEqual(
      served('storage.k8s.io/v1=false,storage.k8s.io/v1/csidrivers=true').filter((s) => s.startsWith('storage.k8s.io/v1/')),
      ['storage.k8s.io/v1/csidrivers'],
    );
    assert.ok(!served('storage.k8s.io/v1/csinodes=false').includes('storage.k8s.io/v1/csinodes'));
    assert.ok(served('storage.k8s.io/v1/csinodes=false').includes('storage.k8s.io/v1/csidrivers'));
    assert.deepEqual(
      served('networking.k8s.io/v1alpha1/clustercidrs=true').filter((s) => s.startsWith('networking')),
      ['networking.k8s.io/v1alpha1/clustercidrs'],
    );
  });

  it('lets a version choice replace the resource defaults of that version', () => {
    assert.ok(!served('storage.k8s.io/v1beta1=false').includes('storage.k8s.io/v1beta1/csistoragecapacities'));
    assert.ok(served('networking.k8s.io/v1=true').includes('networking.k8s.io/v1/servicecidrs'));
  });

  it('ignores api/legacy and empty items, trims spaces, and lets a repeated key take its last value', () => {
    assert.deepEqual(served('api/legacy=false,,'), served(''));
    assert.ok(served(' networking.k8s.io/v1alpha1 = true ').includes('networking.k8s.io/v1alpha1/clustercidrs'));
    assert.ok(!served('networking.k8s.io/v1alpha1=true,networking.k8s.io/v1alpha1=false').includes('networking.k8s.io/v1alpha1/clustercidrs'));
  });
});

describe('runtimeConfig errors (upstream startup messages)', () => {
  const error = (flag: string): string => {
    try {
      runtimeConfig(flag, all);
    } catch (err) {
      return (err as Error).message;
    }
    return 'no error';
  };

  it('rejects turning off everything and nothing else', () => {
    assert.equal(error('api/all=false'), 'invalid key with only api/all=false');
  });

  it('rejects keys of the wrong shape and unknown groups', () => {
    assert.equal(error('storage.k8s.io/v1/csidrivers/extra=true'), 'runtime-config invalid key storage.k8s.io/v1/csidrivers/extra');
    assert.equal(error('batch'), 'runtime-config invalid key batch');
    assert.equal(error('batch/v1=false,apps/v1'), 'unknown api groups batch,apps');
  });

  it('rejects unregistered versions of known groups', () => {
    assert.equal(error('storage.k8s.io/v9=true'), 'group version storage.k8s.io/v9 that has not been registered');
    assert.equal(error('v2'), 'runtime-config invalid key v2');
    assert.equal(error('api/v2=true'), 'unknown api groups api');
  });

  it('rejects values that are not booleans', () => {
    assert.equal(error('storage.k8s.io/v1=yes'), 'invalid value of storage.k8s.io/v1: yes, err: strconv.ParseBool: parsing "yes": invalid syntax');
    assert.equal(error('v1=maybe'), 'invalid value of /v1: maybe, err: strconv.ParseBool: parsing "maybe": invalid syntax');
    assert.equal(error('api/all=yes'), 'invalid value api/all=yes');
    assert.equal(error('api/alpha=True'), 'invalid value api/alpha=True');
  });

  it('rejects resources that are not lower case', () => {
    assert.equal(
      error('storage.k8s.io/v1/CSIDrivers=false'),
      'invalid key storage.k8s.io/v1/CSIDrivers: group/version/resource and resource is always lowercase plural, not "CSIDrivers"',
    );
  });
});
