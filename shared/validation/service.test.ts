import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fieldErrorString } from '../api/field.ts';
import { applyServiceCreateDefaults } from '../api/service-defaults.ts';
import type { Service } from '../api/service.ts';
import { validateService } from './service.ts';

/** The causes of a service as a client sends it, after upstream's defaults. */
function messages(spec: Service['spec']): string[] {
  const svc: Service = { metadata: { name: 'web', namespace: 'default' }, spec };
  applyServiceCreateDefaults(svc);
  return validateService(svc).map(fieldErrorString);
}

describe('Service validation', () => {
  it('accepts the common shapes', () => {
    assert.deepEqual(messages({ ports: [{ port: 80 }], selector: { app: 'web' } }), []);
    assert.deepEqual(messages({ clusterIP: 'None' }), []);
    assert.deepEqual(messages({ type: 'ExternalName', externalName: 'db.example.com.' }), []);
    assert.deepEqual(messages({ type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }] }), []);
    assert.deepEqual(messages({ type: 'LoadBalancer', ports: [{ port: 80 }] }), []);
    assert.deepEqual(messages({ ports: [{ port: 80 }], sessionAffinity: 'ClientIP' }), []);
  });

  it("reports upstream's causes", () => {
    assert.deepEqual(messages({}), ['spec.ports: Required value']);
    assert.deepEqual(messages({ type: 'ExternalName' }), ['spec.externalName: Required value']);
    assert.deepEqual(messages({ type: 'NodePort', clusterIP: 'None', ports: [{ port: 80 }] }), [
      'spec.clusterIPs[0]: Invalid value: "None": may not be set to \'None\' for NodePort services',
    ]);
    assert.deepEqual(messages({ ports: [{ port: 80, nodePort: 30000 }] }), ["spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"]);
    assert.deepEqual(messages({ ports: [{ port: 80 }], clusterIP: '10.0.0.1', clusterIPs: ['10.0.0.2'] }), [
      'spec.clusterIPs: Invalid value: []string{"10.0.0.2"}: first value must match `clusterIP`',
    ]);
    assert.deepEqual(messages({ ports: [{ port: 80 }], clusterIP: '10.0.0.300' }), [
      'spec.clusterIPs[0]: Invalid value: "10.0.0.300": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
    ]);
    assert.deepEqual(messages({ ports: [{ port: 80, targetPort: 'no_such-name' }], selector: { 'a b': 'c' } }), [
      'spec.ports[0].targetPort: Invalid value: "no_such-name": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
      "spec.selector: Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    ]);
    assert.deepEqual(messages({ ports: [{ port: 80 }], sessionAffinity: 'None', sessionAffinityConfig: { clientIP: { timeoutSeconds: 5 } } }), []);
    assert.deepEqual(messages({ ports: [{ port: 80, nodePort: 30001 }], type: 'NodePort', externalTrafficPolicy: 'Remote' }), [
      'spec.externalTrafficPolicy: Unsupported value: "Remote": supported values: "Cluster", "Local"',
    ]);
  });
});
