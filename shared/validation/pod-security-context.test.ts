import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from '../api/pod.ts';
import { errors, pod } from './pod-testing.ts';

const sc = 'spec.securityContext';
const csc = 'spec.containers[0].securityContext';
const idRange = 'must be between 0 and 2147483647, inclusive';
const sysctlRegex = '^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$';

describe('security contexts', () => {
  it('accepts valid pod and container security contexts', () => {
    const p = pod(
      {
        securityContext: {
          runAsUser: 1000,
          runAsGroup: 1000,
          runAsNonRoot: true,
          fsGroup: 2000,
          supplementalGroups: [3000],
          sysctls: [
            { name: 'net.ipv4.ip_forward', value: '1' },
            { name: 'kernel/shm_rmid_forced', value: '1' },
          ],
          fsGroupChangePolicy: 'OnRootMismatch',
          seccompProfile: { type: 'Localhost', localhostProfile: 'profiles/audit.json' },
          appArmorProfile: { type: 'RuntimeDefault' },
          supplementalGroupsPolicy: 'Strict',
          seLinuxOptions: { level: 's0:c123,c456' },
        },
      },
      {
        securityContext: {
          allowPrivilegeEscalation: false,
          capabilities: { add: ['NET_ADMIN'], drop: ['ALL'] },
          readOnlyRootFilesystem: true,
          procMount: 'Default',
          seccompProfile: { type: 'RuntimeDefault' },
          appArmorProfile: { type: 'Localhost', localhostProfile: 'k8s-nginx' },
          windowsOptions: { runAsUserName: 'CONTOSO\\svc-web' },
        },
      },
    );
    assert.deepEqual(errors(p), []);
    assert.deepEqual(errors(pod({ hostUsers: false }, { securityContext: { procMount: 'Unmasked' } })), []);
    assert.deepEqual(errors(pod({}, { securityContext: { privileged: true, allowPrivilegeEscalation: true } })), []);
  });

  const cases: [string, Pod, string[]][] = [
    [
      'user and group IDs out of range',
      pod({ securityContext: { runAsUser: -1, runAsGroup: 2 ** 31, fsGroup: -5, supplementalGroups: [1, -1] } }, { securityContext: { runAsUser: -2 } }),
      [
        `${csc}.runAsUser: Invalid value: -2: ${idRange}`,
        `${sc}.fsGroup: Invalid value: -5: ${idRange}`,
        `${sc}.runAsUser: Invalid value: -1: ${idRange}`,
        `${sc}.runAsGroup: Invalid value: 2147483648: ${idRange}`,
        `${sc}.supplementalGroups[1]: Invalid value: -1: ${idRange}`,
      ],
    ],
    [
      'missing, malformed and repeated sysctls',
      pod({ securityContext: { sysctls: [{ name: '' }, { name: 'Kernel..msgmax' }, { name: 'kernel.msgmax' }, { name: 'kernel.msgmax' }] } }),
      [
        `${sc}.sysctls[0].name: Required value`,
        `${sc}.sysctls[1].name: Invalid value: "Kernel..msgmax": must have at most 253 characters and match regex ${sysctlRegex}`,
        `${sc}.sysctls[3].name: Duplicate value: "kernel.msgmax"`,
      ],
    ],
    [
      'namespaced sysctls of namespaces shared with the host',
      pod({
        hostNetwork: true,
        hostIPC: true,
        securityContext: { sysctls: [{ name: 'net.core.somaxconn' }, { name: 'kernel.shmmax' }, { name: 'fs/mqueue/msg_max' }] },
      }),
      [
        `${sc}.sysctls[0].name: Invalid value: "net.core.somaxconn": may not be specified when 'hostNetwork' is true`,
        `${sc}.sysctls[1].name: Invalid value: "kernel.shmmax": may not be specified when 'hostIPC' is true`,
        `${sc}.sysctls[2].name: Invalid value: "fs/mqueue/msg_max": may not be specified when 'hostIPC' is true`,
      ],
    ],
    [
      'a shared process namespace with hostPID',
      pod({ shareProcessNamespace: true, hostPID: true }),
      [`${sc}.shareProcessNamespace: Invalid value: true: ShareProcessNamespace and HostPID cannot both be enabled`],
    ],
    [
      'unknown policies',
      pod({ securityContext: { fsGroupChangePolicy: 'Sometimes', supplementalGroupsPolicy: 'Loose', seLinuxChangePolicy: 'MountOption' } }),
      [
        `${sc}.fsGroupChangePolicy: Unsupported value: "Sometimes": supported values: "Always", "OnRootMismatch"`,
        `${sc}.supplementalGroupsPolicy: Unsupported value: "Loose": supported values: "Merge", "Strict"`,
        `${sc}.seLinuxChangePolicy: Unsupported value: "MountOption": supported values: "Recursive"`,
      ],
    ],
    [
      'seccomp profiles without type, of an unknown type, or with a misplaced or bad localhost profile',
      pod({
        securityContext: { seccompProfile: { type: '' } },
        initContainers: [
          { name: 'a', image: 'busybox', securityContext: { seccompProfile: { type: 'Localhost' } } },
          { name: 'b', image: 'busybox', securityContext: { seccompProfile: { type: 'Localhost', localhostProfile: '../escape.json' } } },
          { name: 'c', image: 'busybox', securityContext: { seccompProfile: { type: 'RuntimeDefault', localhostProfile: 'p.json' } } },
          { name: 'd', image: 'busybox', securityContext: { seccompProfile: { type: 'Custom' } } },
        ],
      }),
      [
        `spec.initContainers[0].securityContext.seccompProfile.localhostProfile: Required value: must be set when seccomp type is Localhost`,
        `spec.initContainers[1].securityContext.seccompProfile.localhostProfile: Invalid value: "../escape.json": must not contain '..'`,
        `spec.initContainers[2].securityContext.seccompProfile.localhostProfile: Invalid value: {"type":"RuntimeDefault","localhostProfile":"p.json"}: can only be set when seccomp type is Localhost`,
        `spec.initContainers[3].securityContext.seccompProfile.type: Unsupported value: "Custom": supported values: "Localhost", "RuntimeDefault", "Unconfined"`,
        `${sc}.seccompProfile.type: Required value: type is required when seccompProfile is set`,
      ],
    ],
    [
      'AppArmor profiles without type or with a bad localhost profile',
      pod(
        { securityContext: { appArmorProfile: { type: 'Localhost', localhostProfile: ' padded ' } } },
        { securityContext: { appArmorProfile: { type: '' } } },
      ),
      [
        `${csc}.appArmorProfile.type: Required value: type is required when appArmorProfile is set`,
        `${sc}.appArmorProfile.localhostProfile: Invalid value: " padded ": must not be padded with whitespace`,
      ],
    ],
    [
      'AppArmor localhost profiles missing, empty, too long, or on another type',
      pod(
        { securityContext: { appArmorProfile: { type: 'Localhost', localhostProfile: 'x'.repeat(4096) } } },
        { securityContext: { appArmorProfile: { type: 'Unconfined', localhostProfile: 'p' } } },
      ),
      [
        `${csc}.appArmorProfile.localhostProfile: Invalid value: "p": can only be set when AppArmor type is Localhost`,
        `${sc}.appArmorProfile.localhostProfile: Too long: may not be more than 4095 bytes`,
      ],
    ],
    [
      'an empty AppArmor localhost profile, and an unknown type',
      pod({ securityContext: { appArmorProfile: { type: 'Localhost', localhostProfile: '' } } }, { securityContext: { appArmorProfile: { type: 'Enforce' } } }),
      [
        `${csc}.appArmorProfile.type: Unsupported value: "Enforce": supported values: "Localhost", "RuntimeDefault", "Unconfined"`,
        `${sc}.appArmorProfile.localhostProfile: Required value: must be set when AppArmor type is Localhost`,
      ],
    ],
    [
      'bad Windows options',
      pod(
        { securityContext: { windowsOptions: { gmsaCredentialSpecName: 'Bad_Name', gmsaCredentialSpec: '', runAsUserName: 'a\\b\\c' } } },
        { securityContext: { windowsOptions: { runAsUserName: 'DOMAIN\\us:er' } } },
      ),
      [
        `${csc}.windowsOptions.runAsUserName: Invalid value: "DOMAIN\\\\us:er": runAsUserName's User cannot contain the following characters: "/\\:;|=,+*?<>@[]`,
        `${sc}.windowsOptions.gmsaCredentialSpecName: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
        `${sc}.windowsOptions.gmsaCredentialSpec: Invalid value: "": gmsaCredentialSpec cannot be an empty string`,
        `${sc}.windowsOptions.runAsUserName: Invalid value: "a\\\\b\\\\c": runAsUserName cannot contain more than one backslash`,
      ],
    ],
    [
      'an unknown procMount, and Unmasked in the host user namespace',
      pod({ initContainers: [{ name: 'init', image: 'busybox', securityContext: { procMount: 'Masked' } }] }, { securityContext: { procMount: 'Unmasked' } }),
      [
        `${csc}.procMount: Invalid value: "Unmasked": \`hostUsers\` must be false to use \`Unmasked\``,
        'spec.initContainers[0].securityContext.procMount: Unsupported value: "Masked": supported values: "Default", "Unmasked"',
      ],
    ],
    [
      'privilege escalation forbidden to a privileged container or one adding CAP_SYS_ADMIN',
      pod({}, { securityContext: { allowPrivilegeEscalation: false, privileged: true, capabilities: { add: ['CAP_SYS_ADMIN'] } } }),
      [
        `${csc}: Invalid value: {"allowPrivilegeEscalation":false,"privileged":true,"capabilities":{"add":["CAP_SYS_ADMIN"]}}: cannot set \`allowPrivilegeEscalation\` to false and \`privileged\` to true`,
        `${csc}: Invalid value: {"allowPrivilegeEscalation":false,"privileged":true,"capabilities":{"add":["CAP_SYS_ADMIN"]}}: cannot set \`allowPrivilegeEscalation\` to false and \`capabilities.Add\` CAP_SYS_ADMIN`,
      ],
    ],
    [
      'host namespaces in a pod with its own user namespace',
      pod({ hostUsers: false, hostNetwork: true, hostPID: true, hostIPC: true }),
      [
        'spec.hostNetwork: Forbidden: when `pod.Spec.HostUsers` is false',
        'spec.HostPID: Forbidden: when `pod.Spec.HostUsers` is false',
        'spec.HostIPC: Forbidden: when `pod.Spec.HostUsers` is false',
      ],
    ],
  ];
  for (const [name, p, expected] of cases) {
    it(`rejects ${name}`, () => assert.deepEqual(errors(p), expected));
  }
});
