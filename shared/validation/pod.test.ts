import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorString } from '../api/field.ts';
import type { Pod } from '../api/pod.ts';
import { podUpdatableFields, validatePodStatusUpdate, validatePodUpdate } from './pod.ts';
import { errors, pod } from './pod-testing.ts';

const dns1123Subdomain =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const namePartRegex =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const dns1123Label =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

describe('validatePodCreate', () => {
  it('accepts a defaulted minimal pod', () => {
    assert.deepEqual(errors(pod()), []);
  });

  it('accepts a pod that sets every part of the spec validly', () => {
    const p = pod(
      {
        volumes: [{ name: 'data', emptyDir: {} }],
        initContainers: [{ name: 'proxy', image: 'envoy:1.30', restartPolicy: 'Always', readinessProbe: { tcpSocket: { port: 9901 } } }],
        securityContext: { runAsNonRoot: true, runAsUser: 1000, fsGroup: 2000, seccompProfile: { type: 'RuntimeDefault' } },
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/os', operator: 'In', values: ['linux'] }] }],
            },
          },
          podAntiAffinity: {
            preferredDuringSchedulingIgnoredDuringExecution: [
              { weight: 50, podAffinityTerm: { labelSelector: { matchLabels: { app: 'web' } }, topologyKey: 'kubernetes.io/hostname' } },
            ],
          },
        },
        topologySpreadConstraints: [
          { maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: { app: 'web' } } },
        ],
        dnsPolicy: 'None',
        dnsConfig: { nameservers: ['10.96.0.10'], searches: ['default.svc.cluster.local'], options: [{ name: 'ndots', value: '5' }] },
        hostAliases: [{ ip: '10.1.2.3', hostnames: ['db.internal'] }],
        readinessGates: [{ conditionType: 'example.com/feature-ready' }],
        schedulingGates: [{ name: 'example.com/quota' }],
        priorityClassName: 'high-priority',
        runtimeClassName: 'gvisor',
        preemptionPolicy: 'Never',
        overhead: { cpu: '100m', memory: '64Mi' },
        os: { name: 'linux' },
        imagePullSecrets: [{ name: 'registry' }],
      },
      {
        ports: [{ name: 'http', containerPort: 8080 }],
        volumeMounts: [{ name: 'data', mountPath: '/data' }],
        resources: { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '250m' } },
        livenessProbe: { httpGet: { path: '/healthz', port: 'http' }, initialDelaySeconds: 5 },
        readinessProbe: { httpGet: { path: '/ready', port: 8080, scheme: 'HTTPS' } },
        lifecycle: { preStop: { sleep: { seconds: 5 } } },
        securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
      },
    );
    assert.deepEqual(errors(p), []);
  });

  const cases: [string, Pod, string[]][] = [
    ['no containers', pod({ containers: [] }), ['spec.containers: Required value']],
    ['a container without image', pod({}, { image: '' }), ['spec.containers[0].image: Required value']],
    ['a bad container name', pod({}, { name: 'App' }), [`spec.containers[0].name: Invalid value: "App": ${dns1123Label}`]],
    [
      'a name used by an init container and a container',
      pod({ initContainers: [{ name: 'app', image: 'busybox' }] }),
      ['spec.initContainers[0].name: Duplicate value: "app"'],
    ],
    [
      'bad ports',
      pod({}, { ports: [{ containerPort: 0 }, { containerPort: 70000, hostPort: -1, name: 'Http', protocol: 'ICMP' }, { containerPort: 80, name: 'Http' }] }),
      [
        'spec.containers[0].ports[0].containerPort: Required value',
        'spec.containers[0].ports[1].name: Invalid value: "Http": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
        'spec.containers[0].ports[1].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
        'spec.containers[0].ports[1].hostPort: Invalid value: -1: must be between 1 and 65535, inclusive',
        'spec.containers[0].ports[1].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"',
        'spec.containers[0].ports[2].name: Invalid value: "Http": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
      ],
    ],
    [
      'bad env',
      pod({}, { env: [{ name: 'A=B' }, { name: 'X', value: 'v', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }, { name: 'Y', valueFrom: {} }] }),
      [
        `spec.containers[0].env[0].name: Invalid value: "A=B": a valid environment variable name must consist only of printable ASCII characters other than '='`,
        'spec.containers[0].env[1].valueFrom: Invalid value: "": may not be specified when `value` is not empty',
        'spec.containers[0].env[2].valueFrom: Invalid value: "": must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`',
      ],
    ],
    [
      'bad volume mounts',
      pod(
        { volumes: [{ name: 'data', emptyDir: {} }] },
        {
          volumeMounts: [
            { name: 'nope', mountPath: '/a' },
            { name: 'data', mountPath: '/a', subPath: '../x' },
            { name: 'data', mountPath: '' },
          ],
        },
      ),
      [
        'spec.containers[0].volumeMounts[0].name: Not found: "nope"',
        'spec.containers[0].volumeMounts[1].mountPath: Invalid value: "/a": must be unique',
        `spec.containers[0].volumeMounts.subPath: Invalid value: "../x": must not contain '..'`,
        'spec.containers[0].volumeMounts[2].mountPath: Required value',
      ],
    ],
    [
      'requests above limits',
      pod({}, { resources: { limits: { cpu: '1' }, requests: { cpu: '2', storage: '1Gi' } } }),
      [
        'spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1',
        'spec.containers[0].resources.requests[storage]: Invalid value: "storage": must be a standard resource for containers',
      ],
    ],
    [
      'bad policies',
      pod({ restartPolicy: 'Sometimes', dnsPolicy: 'Google' }, { imagePullPolicy: 'Maybe', terminationMessagePolicy: 'Shout' }),
      [
        'spec.containers[0].terminationMessagePolicy: Unsupported value: "Shout": supported values: "File", "FallbackToLogsOnError"',
        'spec.containers[0].imagePullPolicy: Unsupported value: "Maybe": supported values: "Always", "IfNotPresent", "Never"',
        'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
        'spec.dnsPolicy: Unsupported value: "Google": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"',
      ],
    ],
    [
      'bad scheduling fields',
      pod({ nodeName: 'Node_1', activeDeadlineSeconds: 0, terminationGracePeriodSeconds: -1, nodeSelector: { 'bad key!': 'v' } }),
      [
        `spec.nodeSelector: Invalid value: "bad key!": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
        `spec.nodeName: Invalid value: "Node_1": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
        'spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive',
        'spec.terminationGracePeriodSeconds: Invalid value: -1: must be greater than or equal to 0',
      ],
    ],
    [
      'bad tolerations',
      pod({
        tolerations: [
          { operator: 'Equal', value: 'v' },
          { key: 'k', operator: 'Exists', value: 'v' },
          { key: 'k', tolerationSeconds: 5, effect: 'NoSchedule' },
          { key: 'k', operator: 'Like' },
        ],
      }),
      [
        'spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists when `key` is empty, which means "match all values and all keys"',
        `spec.tolerations[1].operator: Invalid value: {"key":"k","operator":"Exists","value":"v"}: value must be empty when \`operator\` is 'Exists'`,
        'spec.tolerations[2].effect: Invalid value: "NoSchedule": effect must be \'NoExecute\' when `tolerationSeconds` is set',
        'spec.tolerations[3].operator: Unsupported value: "Like": supported values: "Equal", "Exists"',
      ],
    ],
    [
      'pull secrets with more than a name',
      pod({ imagePullSecrets: [{ name: 'registry' }, JSON.parse('{"name":"other","namespace":"kube-system"}')] }),
      ['spec.imagePullSecrets[1]: Invalid value: {"name":"other","namespace":"kube-system"}: only name may be set'],
    ],
    [
      'bad readiness and scheduling gates',
      pod({
        readinessGates: [{ conditionType: 'example.com/ready' }, { conditionType: 'not ready' }],
        schedulingGates: [{ name: 'example.com/gate' }, { name: 'example.com/gate' }, { name: '' }],
      }),
      [
        `spec.readinessGates[1].conditionType: Invalid value: "not ready": ${namePartRegex}`,
        'spec.schedulingGates[1]: Duplicate value: "example.com/gate"',
        'spec.schedulingGates[2]: Invalid value: "": name part must be non-empty',
        `spec.schedulingGates[2]: Invalid value: "": ${namePartRegex}`,
      ],
    ],
    [
      'a node name while scheduling gates remain',
      pod({ nodeName: 'node-1', schedulingGates: [{ name: 'example.com/gate' }] }),
      ['spec.nodeName: Forbidden: cannot be set until all schedulingGates have been cleared'],
    ],
    [
      'bad class names and preemption policies',
      pod({ priorityClassName: 'High_Priority', runtimeClassName: '', preemptionPolicy: 'Sometimes' }),
      [
        `spec.priorityClassName: Invalid value: "High_Priority": ${dns1123Subdomain}`,
        `spec.runtimeClassName: Invalid value: "": ${dns1123Subdomain}`,
        'spec.preemptionPolicy: Unsupported value: "Sometimes": supported values: "PreemptLowerPriority", "Never"',
      ],
    ],
    ['an empty preemption policy', pod({ preemptionPolicy: '' }), ['spec.preemptionPolicy: Required value']],
  ];
  for (const [name, p, expected] of cases) {
    it(`rejects ${name}`, () => assert.deepEqual(errors(p), expected));
  }
});

describe('validatePodUpdate', () => {
  it('allows images, a shorter deadline and added tolerations', () => {
    const old = pod({ activeDeadlineSeconds: 100, tolerations: [{ key: 'a', operator: 'Exists' }] });
    const next = structuredClone(old);
    (next.spec?.containers ?? [])[0]!.image = 'nginx:1.28';
    next.spec!.activeDeadlineSeconds = 50;
    next.spec!.tolerations!.push({ key: 'b', operator: 'Exists' });
    assert.deepEqual(validatePodUpdate(next, old).map(fieldErrorString), []);
  });

  it("refuses other spec changes with upstream's message", () => {
    const old = pod();
    const next = structuredClone(old);
    next.spec!.restartPolicy = 'Never';
    const [error, ...rest] = validatePodUpdate(next, old);
    assert.deepEqual(rest, []);
    assert.equal(error?.field, 'spec');
    assert.equal(error?.type, 'FieldValueForbidden');
    assert.ok(error?.detail.startsWith(`${podUpdatableFields}\n`));
    assert.match(error?.detail ?? '', /restartPolicy/);
  });

  it('checks activeDeadlineSeconds and removed tolerations', () => {
    const old = pod({ activeDeadlineSeconds: 100, tolerations: [{ key: 'a', operator: 'Exists' }] });
    const longer = structuredClone(old);
    longer.spec!.activeDeadlineSeconds = 200;
    assert.deepEqual(validatePodUpdate(longer, old).map(fieldErrorString), [
      'spec.activeDeadlineSeconds: Invalid value: 200: must be less than or equal to previous value',
    ]);
    const unset = structuredClone(old);
    delete unset.spec!.activeDeadlineSeconds;
    unset.spec!.tolerations = [];
    assert.deepEqual(validatePodUpdate(unset, old).map(fieldErrorString), [
      'spec.activeDeadlineSeconds: Invalid value: null: must not update from a positive integer to nil value',
      'spec.tolerations[0]: Forbidden: existing toleration can not be modified except its tolerationSeconds',
    ]);
  });
});

describe('validatePodUpdate of scheduling gates', () => {
  it('allows removing scheduling gates, not adding them', () => {
    const old = pod({ schedulingGates: [{ name: 'example.com/a' }, { name: 'example.com/b' }] });
    const removed = structuredClone(old);
    removed.spec = { ...removed.spec, schedulingGates: [{ name: 'example.com/b' }] };
    assert.deepEqual(validatePodUpdate(removed, old).map(fieldErrorString), []);
    const added = structuredClone(old);
    added.spec = { ...added.spec, schedulingGates: [{ name: 'example.com/a' }, { name: 'example.com/c' }] };
    assert.deepEqual(validatePodUpdate(added, old).map(fieldErrorString), [
      "spec.schedulingGates[1].name: Forbidden: only deletion is allowed, but found new scheduling gate 'example.com/c'",
    ]);
  });
});

describe('validatePodStatusUpdate', () => {
  it('checks IPs, nominatedNodeName and containers that may not run again', () => {
    const old = pod({ restartPolicy: 'Never' });
    old.status = { containerStatuses: [{ name: 'app', state: { terminated: { exitCode: 0 } } }] };
    const next = structuredClone(old);
    next.status = {
      nominatedNodeName: 'Bad_Node',
      podIPs: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }, { ip: 'nope' }],
      containerStatuses: [{ name: 'app', state: { running: {} } }],
    };
    const messages = validatePodStatusUpdate(next, old).map(fieldErrorString);
    assert.equal(messages.length, 4);
    assert.match(messages[0] ?? '', /^status\.nominatedNodeName: Invalid value: "Bad_Node"/);
    assert.deepEqual(messages.slice(1), [
      'status.containerStatuses[0].state: Forbidden: may not be transitioned to non-terminated state',
      'status.podIPs[2]: Invalid value: "nope": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
      'status.podIPs: Invalid value: [{"ip":"10.0.0.1"},{"ip":"10.0.0.2"},{"ip":"nope"}]: may specify no more than one IP for each IP family',
    ]);
  });
});
