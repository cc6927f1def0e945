import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { applyPodDefaults, defaultPullPolicy, imageTag } from './pod-defaults.ts';
import { computePodQOS } from './pod-qos.ts';
import type { Pod } from './pod.ts';

describe('applyPodDefaults', () => {
  it("fills upstream's defaults of a pod, its containers and volumes", () => {
    const pod: Pod = {
      metadata: { name: 'web' },
      spec: {
        hostNetwork: true,
        containers: [
          {
            name: 'app',
            image: 'nginx',
            ports: [{ containerPort: 80 }],
            resources: { limits: { cpu: '1' }, requests: { memory: '1Gi' } },
            livenessProbe: { httpGet: { port: 80 } },
            env: [{ name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
          },
        ],
        volumes: [
          { name: 'none' },
          { name: 'cm', configMap: { name: 'c' } },
          { name: 'secret', secret: { secretName: 's', defaultMode: 0o400 } },
          { name: 'token', projected: { sources: [{ serviceAccountToken: { path: 't' } }] } },
        ],
      },
    };
    applyPodDefaults(pod);
    assert.deepEqual(pod.spec, {
      hostNetwork: true,
      dnsPolicy: 'ClusterFirst',
      restartPolicy: 'Always',
      securityContext: {},
      terminationGracePeriodSeconds: 30,
      schedulerName: 'default-scheduler',
      enableServiceLinks: true,
      containers: [
        {
          name: 'app',
          image: 'nginx',
          imagePullPolicy: 'Always',
          terminationMessagePath: '/dev/termination-log',
          terminationMessagePolicy: 'File',
          ports: [{ containerPort: 80, protocol: 'TCP', hostPort: 80 }],
          resources: { limits: { cpu: '1' }, requests: { memory: '1Gi', cpu: '1' } },
          livenessProbe: { httpGet: { port: 80, path: '/', scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 },
          env: [{ name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name', apiVersion: 'v1' } } }],
        },
      ],
      volumes: [
        { name: 'none', emptyDir: {} },
        { name: 'cm', configMap: { name: 'c', defaultMode: 420 } },
        { name: 'secret', secret: { secretName: 's', defaultMode: 0o400 } },
        { name: 'token', projected: { defaultMode: 420, sources: [{ serviceAccountToken: { path: 't', expirationSeconds: 3600 } }] } },
      ],
    });
  });

  it('pulls :latest and untagged images always, the rest if not present', () => {
    assert.equal(defaultPullPolicy('nginx'), 'Always');
    assert.equal(defaultPullPolicy('nginx:latest'), 'Always');
    assert.equal(defaultPullPolicy('registry.k8s.io/pause:3.10'), 'IfNotPresent');
    assert.equal(defaultPullPolicy('localhost:5000/app'), 'Always');
    assert.equal(defaultPullPolicy(`nginx@sha256:${'a'.repeat(64)}`), 'IfNotPresent');
    assert.equal(defaultPullPolicy(''), 'IfNotPresent', 'an unparsable reference has no tag');
    assert.equal(imageTag('example.com:443/team/app:v1'), 'v1');
  });
});

describe('computePodQOS', () => {
  const withResources = (...resources: Record<string, Record<string, string>>[]): Pod => ({
    metadata: {},
    spec: { containers: resources.map((r, i) => ({ name: `c${i}`, resources: r })) },
  });
  it('is BestEffort without cpu or memory, Guaranteed when requests equal limits everywhere, else Burstable', () => {
    assert.equal(computePodQOS(withResources({}, { limits: { 'example.com/gpu': '1' } })), 'BestEffort');
    assert.equal(computePodQOS(withResources({ limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '1000m', memory: '1Gi' } })), 'Guaranteed');
    assert.equal(computePodQOS(withResources({ limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '1', memory: '1Gi' } }, {})), 'Burstable');
    assert.equal(computePodQOS(withResources({ requests: { cpu: '100m' } })), 'Burstable');
    assert.equal(computePodQOS(withResources({ limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '500m', memory: '1Gi' } })), 'Burstable');
  });
});
