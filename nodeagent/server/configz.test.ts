import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultKubeletConfiguration } from '../config/defaults.ts';
import { configzBody, versionedKubeletConfiguration } from './configz.ts';

describe('configz', () => {
  it('wraps the configuration under kubeletconfig, without type meta', () => {
    const body = JSON.parse(configzBody(defaultKubeletConfiguration({})));
    assert.deepEqual(Object.keys(body), ['kubeletconfig']);
    assert.equal(body.kubeletconfig.kind, undefined);
    assert.equal(body.kubeletconfig.apiVersion, undefined);
  });

  it('encodes as Go does: durations as text, pointers kept, zero values and empty collections omitted, structs kept', () => {
    const config = defaultKubeletConfiguration({ staticPodPath: '/etc/kubernetes/manifests', featureGates: { NodeSwap: true } });
    const v = versionedKubeletConfiguration(config);
    assert.equal(v.enableServer, true);
    assert.equal(v.staticPodPath, '/etc/kubernetes/manifests');
    assert.equal(v.syncFrequency, '1m0s');
    assert.equal(v.shutdownGracePeriod, '0s');
    assert.equal(v.port, 10250);
    assert.equal(v.readOnlyPort, undefined);
    assert.equal(v.tlsCertFile, undefined);
    assert.equal(v.clusterDNS, undefined);
    assert.equal(v.podPidsLimit, -1);
    assert.equal(v.serializeImagePulls, true);
    assert.equal(v.maxParallelImagePulls, undefined);
    assert.deepEqual(v.featureGates, { NodeSwap: true });
    assert.deepEqual(v.authentication, {
      x509: {},
      webhook: { enabled: true, cacheTTL: '2m0s' },
      anonymous: { enabled: false },
    });
    assert.deepEqual(v.authorization, { mode: 'Webhook', webhook: { cacheAuthorizedTTL: '5m0s', cacheUnauthorizedTTL: '30s' } });
    assert.deepEqual(v.memorySwap, {});
    assert.deepEqual(v.logging, {
      format: 'text',
      flushFrequency: '5s',
      verbosity: 0,
      options: { text: { infoBufferSize: '0' }, json: { infoBufferSize: '0' } },
    });
    // Upstream's order, which the field table keeps.
    assert.deepEqual(Object.keys(v).slice(0, 4), ['enableServer', 'staticPodPath', 'podLogsDir', 'syncFrequency']);
  });
});
