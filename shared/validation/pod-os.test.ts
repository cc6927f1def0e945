import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from '../api/pod.ts';
import { errors, pod } from './pod-testing.ts';

const notWindows = 'Forbidden: cannot be set for a windows pod';

describe('the operating system of a pod', () => {
  it('accepts Linux and Windows pods that keep to their own fields', () => {
    assert.deepEqual(errors(pod({ os: { name: 'linux' }, securityContext: { runAsUser: 1000, seccompProfile: { type: 'RuntimeDefault' } } })), []);
    assert.deepEqual(errors(pod({ os: { name: 'windows' }, securityContext: { windowsOptions: { runAsUserName: 'ContainerUser' } } })), []);
    assert.deepEqual(
      errors(
        pod(
          { hostNetwork: true, securityContext: { windowsOptions: { hostProcess: true, runAsUserName: 'NT AUTHORITY\\SYSTEM' } } },
          { securityContext: { windowsOptions: { hostProcess: true } } },
        ),
      ),
      [],
    );
  });

  const cases: [string, Pod, string[]][] = [
    ['an empty OS name', pod({ os: { name: '' } }), ['spec.os.name: Required value: cannot be empty']],
    ['an unknown OS', pod({ os: { name: 'darwin' } }), ['spec.os: Unsupported value: "darwin": supported values: "linux", "windows"']],
    [
      'Windows options in a Linux pod',
      pod({ os: { name: 'linux' }, securityContext: { windowsOptions: {} } }, { securityContext: { windowsOptions: {} } }),
      [
        'spec.securityContext.windowsOptions: Forbidden: windows options cannot be set for a linux pod',
        'spec.containers[0].securityContext.windowsOptions: Forbidden: windows options cannot be set for a linux pod',
      ],
    ],
    [
      'Linux-only fields in a Windows pod',
      pod(
        {
          os: { name: 'windows' },
          hostUsers: true,
          hostPID: true,
          hostIPC: true,
          shareProcessNamespace: false,
          securityContext: {
            appArmorProfile: { type: 'RuntimeDefault' },
            seLinuxOptions: { level: 's0' },
            seccompProfile: { type: 'RuntimeDefault' },
            fsGroup: 1,
            fsGroupChangePolicy: 'Always',
            sysctls: [{ name: 'kernel.domainname', value: 'x' }],
            runAsUser: 1,
            runAsGroup: 1,
            supplementalGroups: [],
            supplementalGroupsPolicy: 'Merge',
          },
        },
        {
          securityContext: {
            capabilities: {},
            readOnlyRootFilesystem: true,
            privileged: false,
            allowPrivilegeEscalation: true,
            procMount: 'Default',
            runAsUser: 1,
          },
        },
      ),
      [
        `spec.securityContext.appArmorProfile: ${notWindows}`,
        `spec.securityContext.seLinuxOptions: ${notWindows}`,
        `spec.hostUsers: ${notWindows}`,
        `spec.hostPID: ${notWindows}`,
        `spec.hostIPC: ${notWindows}`,
        `spec.securityContext.seccompProfile: ${notWindows}`,
        `spec.securityContext.fsGroup: ${notWindows}`,
        `spec.securityContext.fsGroupChangePolicy: ${notWindows}`,
        `spec.securityContext.sysctls: ${notWindows}`,
        `spec.shareProcessNamespace: ${notWindows}`,
        `spec.securityContext.runAsUser: ${notWindows}`,
        `spec.securityContext.runAsGroup: ${notWindows}`,
        `spec.securityContext.supplementalGroups: ${notWindows}`,
        `spec.securityContext.supplementalGroupsPolicy: ${notWindows}`,
        `spec.containers[0].securityContext.capabilities: ${notWindows}`,
        `spec.containers[0].securityContext.readOnlyRootFilesystem: ${notWindows}`,
        `spec.containers[0].securityContext.privileged: ${notWindows}`,
        `spec.containers[0].securityContext.allowPrivilegeEscalation: ${notWindows}`,
        `spec.containers[0].securityContext.procMount: ${notWindows}`,
        `spec.containers[0].securityContext.runAsUser: ${notWindows}`,
      ],
    ],
    [
      'a container hostProcess setting that contradicts the pod',
      pod({ securityContext: { windowsOptions: { hostProcess: true } } }, { securityContext: { windowsOptions: { hostProcess: false } } }),
      [
        'spec.containers[0].securityContext.windowsOptions.hostProcess: Invalid value: false: pod hostProcess value must be identical if both are specified, was true',
      ],
    ],
    [
      'host process containers mixed with others, without hostNetwork',
      pod({ initContainers: [{ name: 'init', image: 'busybox' }] }, { securityContext: { windowsOptions: { hostProcess: true } } }),
      [
        'spec: Invalid value: "": If pod contains any hostProcess containers then all containers must be HostProcess containers',
        'spec.hostNetwork: Invalid value: false: hostNetwork must be true if pod contains any hostProcess containers',
      ],
    ],
  ];
  for (const [name, p, expected] of cases) {
    it(`rejects ${name}`, () => assert.deepEqual(errors(p), expected));
  }
});
