import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Container, Pod } from '../api/pod.ts';
import { errors, pod } from './pod-testing.ts';

const c0 = 'spec.containers[0]';
const sleepMessage =
  'must be greater than 0 and less than terminationGracePeriodSeconds (30). Enable AllowPodLifecycleSleepActionZeroValue feature gate for zero sleep.';
const noSidecar = 'Forbidden: may not be set for init containers without restartPolicy=Always';

describe('probes and lifecycle hooks', () => {
  it('accepts one valid handler of each kind', () => {
    const container: Container = {
      ports: [{ name: 'http', containerPort: 8080 }],
      livenessProbe: { httpGet: { port: 8080, httpHeaders: [{ name: 'X-Probe', value: '1' }] }, terminationGracePeriodSeconds: 10 },
      readinessProbe: { tcpSocket: { port: 'http' }, successThreshold: 3 },
      startupProbe: { grpc: { port: 9090 }, failureThreshold: 30 },
      lifecycle: { postStart: { exec: { command: ['true'] } }, preStop: { sleep: { seconds: 5 } } },
    };
    assert.deepEqual(errors(pod({}, container)), []);
    assert.deepEqual(errors(pod({}, { livenessProbe: { exec: { command: ['true'] } }, lifecycle: { preStop: { tcpSocket: { port: 80 } } } })), []);
  });

  const cases: [string, Pod, string[]][] = [
    ['a probe without handler', pod({}, { livenessProbe: {} }), [`${c0}.livenessProbe: Required value: must specify a handler type`]],
    [
      'a probe with two handlers',
      pod({}, { readinessProbe: { exec: { command: ['true'] }, httpGet: { port: 80 } } }),
      [`${c0}.readinessProbe.httpGet: Forbidden: may not specify more than 1 handler type`],
    ],
    ['an exec action without command', pod({}, { startupProbe: { exec: { command: [] } } }), [`${c0}.startupProbe.exec.command: Required value`]],
    [
      'a bad httpGet action',
      pod({}, { livenessProbe: { httpGet: { port: 0, scheme: 'FTP', httpHeaders: [{ name: 'X Bad' }] } } }),
      [
        `${c0}.livenessProbe.httpGet.port: Invalid value: 0: must be between 1 and 65535, inclusive`,
        `${c0}.livenessProbe.httpGet.scheme: Unsupported value: "FTP": supported values: "HTTP", "HTTPS"`,
        `${c0}.livenessProbe.httpGet.httpHeaders: Invalid value: "X Bad": a valid HTTP header must consist of alphanumeric characters or '-' (e.g. 'X-Header-Name', regex used for validation is '[-A-Za-z0-9]+')`,
      ],
    ],
    [
      'a named port that is no IANA service name',
      pod({}, { readinessProbe: { tcpSocket: { port: 'web-http-port-name' } } }),
      [`${c0}.readinessProbe.tcpSocket.port: Invalid value: "web-http-port-name": must be no more than 15 characters`],
    ],
    [
      'a grpc port out of range',
      pod({}, { readinessProbe: { grpc: { port: 70000 } } }),
      [`${c0}.readinessProbe.grpc.port: Invalid value: 70000: must be between 1 and 65535, inclusive`],
    ],
    [
      'negative probe counters',
      pod({}, { readinessProbe: { exec: { command: ['true'] }, initialDelaySeconds: -1, failureThreshold: -2 } }),
      [
        `${c0}.readinessProbe.initialDelaySeconds: Invalid value: -1: must be greater than or equal to 0`,
        `${c0}.readinessProbe.failureThreshold: Invalid value: -2: must be greater than or equal to 0`,
      ],
    ],
    [
      'a success threshold other than 1 on liveness and startup probes',
      pod({}, { livenessProbe: { exec: { command: ['true'] }, successThreshold: 2 }, startupProbe: { exec: { command: ['true'] }, successThreshold: 3 } }),
      [`${c0}.livenessProbe.successThreshold: Invalid value: 2: must be 1`, `${c0}.startupProbe.successThreshold: Invalid value: 3: must be 1`],
    ],
    [
      'a probe grace period that is not positive, or on a readiness probe',
      pod(
        {},
        {
          livenessProbe: { exec: { command: ['true'] }, terminationGracePeriodSeconds: 0 },
          readinessProbe: { exec: { command: ['true'] }, terminationGracePeriodSeconds: 5 },
        },
      ),
      [
        `${c0}.livenessProbe.terminationGracePeriodSeconds: Invalid value: 0: must be greater than 0`,
        `${c0}.readinessProbe.terminationGracePeriodSeconds: Invalid value: 5: must not be set for readinessProbes`,
      ],
    ],
    [
      'lifecycle hooks without or with two handlers',
      pod({}, { lifecycle: { postStart: {}, preStop: { exec: { command: ['true'] }, sleep: { seconds: 1 } } } }),
      [
        `${c0}.lifecycle.postStart: Required value: must specify a handler type`,
        `${c0}.lifecycle.preStop.sleep: Forbidden: may not specify more than 1 handler type`,
      ],
    ],
    [
      'sleeps of zero seconds or beyond the grace period',
      pod({}, { lifecycle: { postStart: { sleep: { seconds: 0 } }, preStop: { sleep: { seconds: 31 } } } }),
      [`${c0}.lifecycle.postStart.sleep: Invalid value: 0: ${sleepMessage}`, `${c0}.lifecycle.preStop.sleep: Invalid value: 31: ${sleepMessage}`],
    ],
    [
      'hooks and probes on an init container that is no sidecar',
      pod({
        initContainers: [
          {
            name: 'init',
            image: 'busybox',
            lifecycle: { preStop: { exec: { command: ['true'] } } },
            livenessProbe: { exec: { command: ['true'] } },
            readinessProbe: { exec: { command: ['true'] } },
            startupProbe: { exec: { command: ['true'] } },
          },
        ],
      }),
      [
        `spec.initContainers[0].lifecycle: ${noSidecar}`,
        `spec.initContainers[0].livenessProbe: ${noSidecar}`,
        `spec.initContainers[0].readinessProbe: ${noSidecar}`,
        `spec.initContainers[0].startupProbe: ${noSidecar}`,
      ],
    ],
    [
      'a bad probe on a sidecar',
      pod({ initContainers: [{ name: 'proxy', image: 'envoy', restartPolicy: 'Always', startupProbe: { exec: { command: ['true'] }, successThreshold: 2 } }] }),
      ['spec.initContainers[0].startupProbe.successThreshold: Invalid value: 2: must be 1'],
    ],
  ];
  for (const [name, p, expected] of cases) {
    it(`rejects ${name}`, () => assert.deepEqual(errors(p), expected));
  }

  it('accepts hooks and probes on a sidecar', () => {
    const sidecar: Container = {
      name: 'proxy',
      image: 'envoy',
      restartPolicy: 'Always',
      lifecycle: { preStop: { sleep: { seconds: 2 } } },
      readinessProbe: { httpGet: { port: 9901 } },
      livenessProbe: { tcpSocket: { port: 9901 } },
    };
    assert.deepEqual(errors(pod({ initContainers: [sidecar] })), []);
  });
});
