import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from '../api/pod.ts';
import { errors, pod } from './pod-testing.ts';

const ephemeral = 'spec.ephemeralContainers[0]';
const notForEphemeral = 'Forbidden: cannot be set for an Ephemeral Container';

describe('container lists', () => {
  it('accepts sidecars, distinct host ports and matching host network ports', () => {
    assert.deepEqual(
      errors(
        pod(
          { hostNetwork: true, initContainers: [{ name: 'proxy', image: 'envoy', restartPolicy: 'Always', ports: [{ containerPort: 9901 }] }] },
          {
            ports: [
              { containerPort: 80, name: 'http' },
              { containerPort: 443, name: 'https' },
            ],
          },
        ),
      ),
      [],
    );
  });

  const cases: [string, Pod, string[]][] = [
    [
      'a repeated valid port name',
      pod(
        {},
        {
          ports: [
            { containerPort: 80, name: 'http' },
            { containerPort: 81, name: 'http' },
          ],
        },
      ),
      ['spec.containers[0].ports[1].name: Duplicate value: "http"'],
    ],
    [
      'restart policies on regular containers, and other than Always on init containers',
      pod({ initContainers: [{ name: 'init', image: 'busybox', restartPolicy: 'OnFailure' }] }, { restartPolicy: 'Always' }),
      [
        'spec.containers[0].restartPolicy: Forbidden: may not be set for non-init containers',
        'spec.initContainers[0].restartPolicy: Unsupported value: "OnFailure": supported values: "Always"',
      ],
    ],
    [
      'a resize policy on an init container',
      pod({ initContainers: [{ name: 'init', image: 'busybox', resizePolicy: [{ resourceName: 'cpu', restartPolicy: 'NotRequired' }] }] }),
      ['spec.initContainers[0].resizePolicy: Invalid value: [{"resourceName":"cpu","restartPolicy":"NotRequired"}]: must not be set for init containers'],
    ],
    [
      'host ports used twice among the containers, or twice in one init container',
      pod({
        containers: [
          { name: 'a', image: 'nginx', ports: [{ containerPort: 80, hostPort: 8080 }] },
          { name: 'b', image: 'nginx', ports: [{ containerPort: 81, hostPort: 8080 }] },
        ],
        initContainers: [
          { name: 'i0', image: 'busybox', ports: [{ containerPort: 90, hostPort: 8080 }] },
          // Upstream checks each init container as a list of one: the conflict is reported at index 0.
          {
            name: 'i1',
            image: 'busybox',
            ports: [
              { containerPort: 90, hostPort: 9090 },
              { containerPort: 91, hostPort: 9090 },
            ],
          },
        ],
      }),
      ['spec.containers[1].ports[0].hostPort: Duplicate value: "TCP//8080"', 'spec.initContainers[0].ports[1].hostPort: Duplicate value: "TCP//9090"'],
    ],
    [
      'host ports other than the container ports under hostNetwork',
      pod({ hostNetwork: true }, { ports: [{ containerPort: 80, hostPort: 8080 }] }),
      ['spec.containers[0].ports[0].hostPort: Invalid value: 8080: must match `containerPort` when `hostNetwork` is true'],
    ],
    [
      'an image with surrounding whitespace, after the other errors',
      pod({ restartPolicy: 'Sometimes' }, { image: ' nginx ' }),
      [
        'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
        'spec.containers[0].image: Invalid value: " nginx ": must not have leading or trailing whitespace',
      ],
    ],
    [
      'mounts that overlap devices, bad propagation and recursive read-only modes',
      pod(
        {
          volumes: [
            { name: 'data', emptyDir: {} },
            { name: 'block', persistentVolumeClaim: { claimName: 'disk' } },
          ],
        },
        {
          volumeMounts: [
            { name: 'block', mountPath: '/dev/xvda' },
            { name: 'data', mountPath: '/a', mountPropagation: 'Bidirectional' },
            { name: 'data', mountPath: '/b', mountPropagation: 'Sideways', recursiveReadOnly: 'Enabled' },
            { name: 'data', mountPath: '/c', readOnly: true, recursiveReadOnly: 'Always' },
          ],
          volumeDevices: [{ name: 'block', devicePath: '/dev/xvda' }],
        },
      ),
      [
        'spec.containers[0].volumeMounts[0].name: Invalid value: "block": must not already exist in volumeDevices',
        'spec.containers[0].volumeMounts[0].mountPath: Invalid value: "/dev/xvda": must not already exist as a path in volumeDevices',
        'spec.containers[0].volumeMounts.mountPropagation: Forbidden: Bidirectional mount propagation is available only to privileged containers',
        'spec.containers[0].volumeMounts.mountPropagation: Unsupported value: "Sideways": supported values: "Bidirectional", "HostToContainer", "None"',
        'spec.containers[0].volumeMounts.recursiveReadOnly: Forbidden: may only be specified when readOnly is true',
        'spec.containers[0].volumeMounts.recursiveReadOnly: Forbidden: may only be specified when mountPropagation is None or not specified',
        'spec.containers[0].volumeMounts.recursiveReadOnly: Unsupported value: "Always": supported values: "Disabled", "Enabled", "IfPossible"',
        'spec.containers[0].volumeDevices[0].name: Invalid value: "block": must not already exist in volumeMounts',
        'spec.containers[0].volumeDevices[0].devicePath: Invalid value: "/dev/xvda": must not already exist as a path in volumeMounts',
      ],
    ],
    [
      'devices repeated, with backsteps, or of volumes that are no claims',
      pod(
        {
          volumes: [
            { name: 'data', emptyDir: {} },
            { name: 'block', persistentVolumeClaim: { claimName: 'disk' } },
          ],
        },
        {
          volumeDevices: [
            { name: 'block', devicePath: '/dev/a' },
            { name: 'block', devicePath: '/dev/a' },
            { name: 'data', devicePath: '/dev/../b' },
          ],
        },
      ),
      [
        'spec.containers[0].volumeDevices[1].name: Invalid value: "block": must be unique',
        'spec.containers[0].volumeDevices[1].devicePath: Invalid value: "/dev/a": must be unique',
        'spec.containers[0].volumeDevices[2].name: Invalid value: "data": can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode',
        'spec.containers[0].volumeDevices[2].devicePath: Invalid value: "/dev/../b": can not contain backsteps (\'..\')',
      ],
    ],
    [
      'ephemeral containers on create, with their own rules',
      pod({
        volumes: [{ name: 'data', emptyDir: {} }],
        ephemeralContainers: [
          {
            name: 'debug',
            image: 'busybox',
            targetContainerName: 'nope',
            ports: [{ containerPort: 80 }],
            resources: { limits: { cpu: '1' } },
            restartPolicy: 'Always',
            livenessProbe: { exec: { command: ['true'] } },
            lifecycle: { preStop: { exec: { command: ['true'] } } },
            volumeMounts: [{ name: 'data', mountPath: '/data', subPath: 'x' }],
          },
          { name: 'app', image: 'busybox', targetContainerName: 'app' },
        ],
      }),
      [
        `${ephemeral}.targetContainerName: Not found: "nope"`,
        `${ephemeral}.ports: ${notForEphemeral}`,
        `${ephemeral}.resources: ${notForEphemeral}`,
        `${ephemeral}.restartPolicy: ${notForEphemeral}`,
        `${ephemeral}.livenessProbe: ${notForEphemeral}`,
        `${ephemeral}.lifecycle: ${notForEphemeral}`,
        `${ephemeral}.volumeMounts[0].subPath: ${notForEphemeral}`,
        'spec.ephemeralContainers[1].name: Duplicate value: "app"',
        'spec.ephemeralContainers: Forbidden: cannot be set on create',
      ],
    ],
  ];
  for (const [name, p, expected] of cases) {
    it(`rejects ${name}`, () => assert.deepEqual(errors(p), expected));
  }
});
