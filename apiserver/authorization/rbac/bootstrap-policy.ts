/**
 * The default RBAC policy the API server reconciles at every start: the subset of kube-apiserver's
 * bootstrap policy that concerns what corral serves and the controllers it runs.
 *
 * Source: kubernetes/kubernetes plugin/pkg/auth/authorizer/rbac/bootstrappolicy/testdata/
 * (cluster-roles.yaml, cluster-role-bindings.yaml, controller-roles.yaml,
 * controller-role-bindings.yaml, namespace-roles.yaml, namespace-role-bindings.yaml), Kubernetes
 * 1.32 with default feature gates, as of the latest 1.32 patch release: the release-1.32 backports
 * of kubernetes#129528 and kubernetes#130461 added `watch` to the namespace-controller and
 * node-controller roles. Objects, rules, verbs, apiGroups, resources, subjects, labels and
 * annotations are copied in the testdata's order; only creationTimestamp is left out. The
 * aggregated roles (admin, edit, view) carry no rules of their own (`rules: null` upstream): the
 * clusterrole-aggregation controller fills them in from the roles their selectors match.
 *
 * Left out on purpose: roles of components corral does not run (kube-scheduler, kube-proxy,
 * kube-dns, heapster, volume scheduling, the cloud provider), roles of controllers it does not run,
 * and kubeadm's node bootstrapping bindings, which are not part of the bootstrap policy.
 *
 * Contract: every call builds fresh objects that share nothing with earlier calls' objects, so
 * callers may mutate what they get.
 */
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding, Subject } from '../../../shared/api/rbac.ts';
import { autoUpdateAnnotation, bootstrappingLabel, bootstrappingLabelValue, rbacGroup } from '../../../shared/api/rbac.ts';
import type { ObjectMeta } from '../../../shared/api/types.ts';

const rbacApiVersion = `${rbacGroup}/v1`;
const legacyGroup = '';
const eventsGroup = 'events.k8s.io';
const coordinationGroup = 'coordination.k8s.io';
const certificatesGroup = 'certificates.k8s.io';
const storageGroup = 'storage.k8s.io';
const kubeSystem = 'kube-system';
const kubePublic = 'kube-public';

/** Verbs that edit, without reading: upstream's ReadWrite less get/list/watch. */
const write = (): string[] => ['create', 'delete', 'deletecollection', 'patch', 'update'];
const read = (): string[] => ['get', 'list', 'watch'];
const readWrite = (): string[] => ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/** A resource rule; resourceNames only when the rule names objects. */
function rule(verbs: string[], apiGroups: string[], resources: string[], resourceNames?: string[]): PolicyRule {
  return resourceNames ? { verbs, apiGroups, resources, resourceNames } : { verbs, apiGroups, resources };
}

function nonResourceRule(verbs: string[], nonResourceURLs: string[]): PolicyRule {
  return { verbs, nonResourceURLs };
}

/** The rule every controller has for recording events, in both event groups. */
function eventsRule(): PolicyRule {
  return rule(['create', 'patch', 'update'], [legacyGroup, eventsGroup], ['events']);
}

function bootstrapMeta(name: string, namespace?: string, extraLabels: Record<string, string> = {}): ObjectMeta {
  return {
    name,
    ...(namespace === undefined ? {} : { namespace }),
    labels: { [bootstrappingLabel]: bootstrappingLabelValue, ...extraLabels },
    annotations: { [autoUpdateAnnotation]: 'true' },
  };
}

function aggregationLabel(to: 'admin' | 'edit' | 'view'): Record<string, string> {
  return { [`rbac.authorization.k8s.io/aggregate-to-${to}`]: 'true' };
}

function clusterRole(name: string, rules: PolicyRule[], extraLabels: Record<string, string> = {}): ClusterRole {
  return { apiVersion: rbacApiVersion, kind: 'ClusterRole', metadata: bootstrapMeta(name, undefined, extraLabels), rules };
}

/** A role whose rules the clusterrole-aggregation controller fills from the roles labelled aggregate-to-`from`. */
function aggregatedClusterRole(name: string, from: 'admin' | 'edit' | 'view', extraLabels: Record<string, string> = {}): ClusterRole {
  return {
    apiVersion: rbacApiVersion,
    kind: 'ClusterRole',
    metadata: bootstrapMeta(name, undefined, extraLabels),
    aggregationRule: { clusterRoleSelectors: [{ matchLabels: aggregationLabel(from) }] },
  };
}

function role(namespace: string, name: string, rules: PolicyRule[]): Role {
  return { apiVersion: rbacApiVersion, kind: 'Role', metadata: bootstrapMeta(name, namespace), rules };
}

function group(name: string): Subject {
  return { kind: 'Group', apiGroup: rbacGroup, name };
}

function user(name: string): Subject {
  return { kind: 'User', apiGroup: rbacGroup, name };
}

function serviceAccount(namespace: string, name: string): Subject {
  return { kind: 'ServiceAccount', name, namespace };
}

/** subjects undefined leaves the binding without subjects, as upstream's system:node binding is. */
function clusterRoleBinding(name: string, subjects: Subject[] | undefined, roleName = name): ClusterRoleBinding {
  return {
    apiVersion: rbacApiVersion,
    kind: 'ClusterRoleBinding',
    metadata: bootstrapMeta(name),
    ...(subjects === undefined ? {} : { subjects }),
    roleRef: { apiGroup: rbacGroup, kind: 'ClusterRole', name: roleName },
  };
}

function roleBinding(namespace: string, name: string, subjects: Subject[], roleName = name): RoleBinding {
  return {
    apiVersion: rbacApiVersion,
    kind: 'RoleBinding',
    metadata: bootstrapMeta(name, namespace),
    subjects,
    roleRef: { apiGroup: rbacGroup, kind: 'Role', name: roleName },
  };
}

/** Prefix of the roles and bindings of the controllers, whose service accounts live in kube-system. */
const controllerPrefix = 'system:controller:';

/** The controllers corral runs that have a cluster-wide role upstream, by service account name. */
const controllerNames = [
  'certificate-controller',
  'clusterrole-aggregation-controller',
  'generic-garbage-collector',
  'namespace-controller',
  'node-controller',
] as const;

export function bootstrapClusterRoles(): ClusterRole[] {
  return [...clusterRoles(), ...controllerRoles()];
}

function clusterRoles(): ClusterRole[] {
  return [
    // Namespace administrator: aggregate-to-admin roles, edit among them.
    aggregatedClusterRole('admin', 'admin'),

    // Superuser, bound to system:masters.
    clusterRole('cluster-admin', [rule(['*'], ['*'], ['*']), nonResourceRule(['*'], ['*'])]),

    // Namespace editor: aggregate-to-edit roles, view among them; itself aggregated into admin.
    aggregatedClusterRole('edit', 'edit', aggregationLabel('admin')),

    // What admin has beyond edit: access reviews in the namespace and its roles and bindings.
    clusterRole(
      'system:aggregate-to-admin',
      [rule(['create'], ['authorization.k8s.io'], ['localsubjectaccessreviews']), rule(readWrite(), [rbacGroup], ['rolebindings', 'roles'])],
      aggregationLabel('admin'),
    ),

    // What edit has beyond view: writes to workloads and their config, secrets, impersonating service accounts.
    clusterRole(
      'system:aggregate-to-edit',
      [
        rule(read(), [legacyGroup], ['pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy', 'secrets', 'services/proxy']),
        rule(['impersonate'], [legacyGroup], ['serviceaccounts']),
        rule(write(), [legacyGroup], ['pods', 'pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy']),
        rule(['create'], [legacyGroup], ['pods/eviction']),
        rule(
          write(),
          [legacyGroup],
          [
            'configmaps',
            'events',
            'persistentvolumeclaims',
            'replicationcontrollers',
            'replicationcontrollers/scale',
            'secrets',
            'serviceaccounts',
            'services',
            'services/proxy',
          ],
        ),
        rule(['create'], [legacyGroup], ['serviceaccounts/token']),
        rule(
          write(),
          ['apps'],
          ['daemonsets', 'deployments', 'deployments/rollback', 'deployments/scale', 'replicasets', 'replicasets/scale', 'statefulsets', 'statefulsets/scale'],
        ),
        rule(write(), ['autoscaling'], ['horizontalpodautoscalers']),
        rule(write(), ['batch'], ['cronjobs', 'jobs']),
        rule(
          write(),
          ['extensions'],
          [
            'daemonsets',
            'deployments',
            'deployments/rollback',
            'deployments/scale',
            'ingresses',
            'networkpolicies',
            'replicasets',
            'replicasets/scale',
            'replicationcontrollers/scale',
          ],
        ),
        rule(write(), ['policy'], ['poddisruptionbudgets']),
        rule(write(), ['networking.k8s.io'], ['ingresses', 'networkpolicies']),
        rule(readWrite(), [coordinationGroup], ['leases']),
      ],
      aggregationLabel('edit'),
    ),

    // Read access to most namespaced objects, secrets excepted.
    clusterRole(
      'system:aggregate-to-view',
      [
        rule(
          read(),
          [legacyGroup],
          [
            'configmaps',
            'endpoints',
            'persistentvolumeclaims',
            'persistentvolumeclaims/status',
            'pods',
            'replicationcontrollers',
            'replicationcontrollers/scale',
            'serviceaccounts',
            'services',
            'services/status',
          ],
        ),
        rule(
          read(),
          [legacyGroup],
          [
            'bindings',
            'events',
            'limitranges',
            'namespaces/status',
            'pods/log',
            'pods/status',
            'replicationcontrollers/status',
            'resourcequotas',
            'resourcequotas/status',
          ],
        ),
        rule(read(), [legacyGroup], ['namespaces']),
        rule(read(), ['discovery.k8s.io'], ['endpointslices']),
        rule(
          read(),
          ['apps'],
          [
            'controllerrevisions',
            'daemonsets',
            'daemonsets/status',
            'deployments',
            'deployments/scale',
            'deployments/status',
            'replicasets',
            'replicasets/scale',
            'replicasets/status',
            'statefulsets',
            'statefulsets/scale',
            'statefulsets/status',
          ],
        ),
        rule(read(), ['autoscaling'], ['horizontalpodautoscalers', 'horizontalpodautoscalers/status']),
        rule(read(), ['batch'], ['cronjobs', 'cronjobs/status', 'jobs', 'jobs/status']),
        rule(
          read(),
          ['extensions'],
          [
            'daemonsets',
            'daemonsets/status',
            'deployments',
            'deployments/scale',
            'deployments/status',
            'ingresses',
            'ingresses/status',
            'networkpolicies',
            'replicasets',
            'replicasets/scale',
            'replicasets/status',
            'replicationcontrollers/scale',
          ],
        ),
        rule(read(), ['policy'], ['poddisruptionbudgets', 'poddisruptionbudgets/status']),
        rule(read(), ['networking.k8s.io'], ['ingresses', 'ingresses/status', 'networkpolicies']),
      ],
      aggregationLabel('view'),
    ),

    // Every authenticated user may ask what it may do and who it is.
    clusterRole('system:basic-user', [
      rule(['create'], ['authorization.k8s.io'], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']),
      rule(['create'], ['authentication.k8s.io'], ['selfsubjectreviews']),
    ]),

    // Requesting client certificates for a node (kubelet TLS bootstrap), first and renewed.
    clusterRole('system:certificates.k8s.io:certificatesigningrequests:nodeclient', [
      rule(['create'], [certificatesGroup], ['certificatesigningrequests/nodeclient']),
    ]),
    clusterRole('system:certificates.k8s.io:certificatesigningrequests:selfnodeclient', [
      rule(['create'], [certificatesGroup], ['certificatesigningrequests/selfnodeclient']),
    ]),

    // Approving CSRs of each built-in signer.
    clusterRole('system:certificates.k8s.io:kube-apiserver-client-approver', [
      rule(['approve'], [certificatesGroup], ['signers'], ['kubernetes.io/kube-apiserver-client']),
    ]),
    clusterRole('system:certificates.k8s.io:kube-apiserver-client-kubelet-approver', [
      rule(['approve'], [certificatesGroup], ['signers'], ['kubernetes.io/kube-apiserver-client-kubelet']),
    ]),
    clusterRole('system:certificates.k8s.io:kubelet-serving-approver', [
      rule(['approve'], [certificatesGroup], ['signers'], ['kubernetes.io/kubelet-serving']),
    ]),
    clusterRole('system:certificates.k8s.io:legacy-unknown-approver', [rule(['approve'], [certificatesGroup], ['signers'], ['kubernetes.io/legacy-unknown'])]),

    // API discovery, OpenAPI, health and version for authenticated users.
    clusterRole('system:discovery', [
      nonResourceRule(['get'], ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/']),
    ]),

    // kube-controller-manager's own identity (without per-controller service account credentials).
    clusterRole('system:kube-controller-manager', [
      rule(['create', 'patch', 'update'], [legacyGroup, eventsGroup], ['events']),
      rule(['create'], [coordinationGroup], ['leases']),
      rule(['get', 'update'], [coordinationGroup], ['leases'], ['kube-controller-manager']),
      rule(['create'], [legacyGroup], ['secrets', 'serviceaccounts']),
      rule(['delete'], [legacyGroup], ['secrets']),
      rule(['get'], [legacyGroup], ['configmaps', 'namespaces', 'secrets', 'serviceaccounts']),
      rule(['update'], [legacyGroup], ['secrets', 'serviceaccounts']),
      rule(['create'], ['authentication.k8s.io'], ['tokenreviews']),
      rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews']),
      rule(['list', 'watch'], ['*'], ['*']),
      rule(['create'], [legacyGroup], ['serviceaccounts/token']),
    ]),

    // Metrics and detailed health checks, for the system:monitoring group.
    clusterRole('system:monitoring', [
      nonResourceRule(['get'], ['/healthz', '/healthz/*', '/livez', '/livez/*', '/metrics', '/metrics/slis', '/readyz', '/readyz/*']),
    ]),

    // Kubelets. Its binding has no subjects: upstream authorizes nodes with the Node authorizer, and
    // the role stays for clusters that bind it themselves.
    clusterRole('system:node', [
      rule(['create'], ['authentication.k8s.io'], ['tokenreviews']),
      rule(['create'], ['authorization.k8s.io'], ['localsubjectaccessreviews', 'subjectaccessreviews']),
      rule(read(), [legacyGroup], ['services']),
      rule(['create', 'get', 'list', 'watch'], [legacyGroup], ['nodes']),
      rule(['patch', 'update'], [legacyGroup], ['nodes/status']),
      rule(['patch', 'update'], [legacyGroup], ['nodes']),
      rule(['create', 'patch', 'update'], [legacyGroup], ['events']),
      rule(read(), [legacyGroup], ['pods']),
      rule(['create', 'delete'], [legacyGroup], ['pods']),
      rule(['patch', 'update'], [legacyGroup], ['pods/status']),
      rule(['create'], [legacyGroup], ['pods/eviction']),
      rule(read(), [legacyGroup], ['configmaps', 'secrets']),
      rule(['get'], [legacyGroup], ['persistentvolumeclaims', 'persistentvolumes']),
      rule(['get'], [legacyGroup], ['endpoints']),
      rule(['create', 'get', 'list', 'watch'], [certificatesGroup], ['certificatesigningrequests']),
      rule(['create', 'delete', 'get', 'patch', 'update'], [coordinationGroup], ['leases']),
      rule(['get'], [storageGroup], ['volumeattachments']),
      rule(['create'], [legacyGroup], ['serviceaccounts/token']),
      rule(['get', 'patch', 'update'], [legacyGroup], ['persistentvolumeclaims/status']),
      rule(read(), [storageGroup], ['csidrivers']),
      rule(['create', 'delete', 'get', 'patch', 'update'], [storageGroup], ['csinodes']),
      rule(read(), ['node.k8s.io'], ['runtimeclasses']),
    ]),

    // Bootstrap tokens: creating and following CSRs before a node has its own credentials.
    clusterRole('system:node-bootstrapper', [rule(['create', 'get', 'list', 'watch'], [certificatesGroup], ['certificatesigningrequests'])]),

    // Health and version for everyone, anonymous included.
    clusterRole('system:public-info-viewer', [nonResourceRule(['get'], ['/healthz', '/livez', '/readyz', '/version', '/version/'])]),

    // Namespace reader: aggregate-to-view roles; itself aggregated into edit.
    aggregatedClusterRole('view', 'view', aggregationLabel('edit')),
  ];
}

function controllerRoles(): ClusterRole[] {
  return [
    // CSR approver, signer and cleaner.
    clusterRole(controllerPrefix + 'certificate-controller', [
      rule(['delete', 'get', 'list', 'watch'], [certificatesGroup], ['certificatesigningrequests']),
      rule(['update'], [certificatesGroup], ['certificatesigningrequests/approval', 'certificatesigningrequests/status']),
      rule(['approve'], [certificatesGroup], ['signers'], ['kubernetes.io/kube-apiserver-client-kubelet']),
      rule(
        ['sign'],
        [certificatesGroup],
        ['signers'],
        ['kubernetes.io/kube-apiserver-client', 'kubernetes.io/kube-apiserver-client-kubelet', 'kubernetes.io/kubelet-serving', 'kubernetes.io/legacy-unknown'],
      ),
      rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews']),
      eventsRule(),
    ]),

    // Fills aggregated ClusterRoles; escalate lets it write rules it does not hold itself.
    clusterRole(controllerPrefix + 'clusterrole-aggregation-controller', [
      rule(['escalate', 'get', 'list', 'patch', 'update', 'watch'], [rbacGroup], ['clusterroles']),
    ]),

    // Follows ownerReferences across every resource and deletes dependents.
    clusterRole(controllerPrefix + 'generic-garbage-collector', [rule(['delete', 'get', 'list', 'patch', 'update', 'watch'], ['*'], ['*']), eventsRule()]),

    // Empties and finalizes terminating namespaces.
    clusterRole(controllerPrefix + 'namespace-controller', [
      rule(['delete', 'get', 'list', 'watch'], [legacyGroup], ['namespaces']),
      rule(['update'], [legacyGroup], ['namespaces/finalize', 'namespaces/status']),
      rule(['delete', 'deletecollection', 'get', 'list', 'watch'], ['*'], ['*']),
    ]),

    // Node lifecycle: node health conditions, taints, and evicting pods from lost nodes.
    clusterRole(controllerPrefix + 'node-controller', [
      rule(['delete', 'get', 'list', 'patch', 'update', 'watch'], [legacyGroup], ['nodes']),
      rule(['patch', 'update'], [legacyGroup], ['nodes/status']),
      rule(['patch', 'update'], [legacyGroup], ['pods/status']),
      rule(['delete', 'get', 'list', 'watch'], [legacyGroup], ['pods']),
      eventsRule(),
    ]),
  ];
}

export function bootstrapClusterRoleBindings(): ClusterRoleBinding[] {
  return [
    clusterRoleBinding('cluster-admin', [group('system:masters')]),
    clusterRoleBinding('system:basic-user', [group('system:authenticated')]),
    clusterRoleBinding('system:discovery', [group('system:authenticated')]),
    clusterRoleBinding('system:kube-controller-manager', [user('system:kube-controller-manager')]),
    clusterRoleBinding('system:monitoring', [group('system:monitoring')]),
    clusterRoleBinding('system:node', undefined),
    clusterRoleBinding('system:public-info-viewer', [group('system:authenticated'), group('system:unauthenticated')]),
    // Each controller role is bound to the controller's service account in kube-system.
    ...controllerNames.map((name) => clusterRoleBinding(controllerPrefix + name, [serviceAccount(kubeSystem, name)])),
  ];
}

export function bootstrapRoles(): Role[] {
  return [
    // Bootstrap signer: signs kube-public/cluster-info with bootstrap tokens.
    role(kubePublic, controllerPrefix + 'bootstrap-signer', [
      rule(read(), [legacyGroup], ['configmaps']),
      rule(['update'], [legacyGroup], ['configmaps'], ['cluster-info']),
      eventsRule(),
    ]),

    // Delegated authentication config that extension API servers read.
    role(kubeSystem, 'extension-apiserver-authentication-reader', [rule(read(), [legacyGroup], ['configmaps'], ['extension-apiserver-authentication'])]),

    // kube-controller-manager's leader election (configmap locks kept until upstream 1.35).
    role(kubeSystem, 'system::leader-locking-kube-controller-manager', [
      rule(['watch'], [legacyGroup], ['configmaps']),
      rule(['get', 'update'], [legacyGroup], ['configmaps'], ['kube-controller-manager']),
      rule(['create', 'get', 'list', 'update', 'watch'], [coordinationGroup], ['leases']),
      rule(['create', 'get', 'list', 'update', 'watch'], [coordinationGroup], ['leasecandidates']),
    ]),

    // Bootstrap signer: reads the bootstrap token secrets.
    role(kubeSystem, controllerPrefix + 'bootstrap-signer', [rule(read(), [legacyGroup], ['secrets'])]),

    // Token cleaner: deletes expired bootstrap token secrets.
    role(kubeSystem, controllerPrefix + 'token-cleaner', [rule(['delete', 'get', 'list', 'watch'], [legacyGroup], ['secrets']), eventsRule()]),
  ];
}

export function bootstrapRoleBindings(): RoleBinding[] {
  return [
    roleBinding(kubePublic, controllerPrefix + 'bootstrap-signer', [serviceAccount(kubeSystem, 'bootstrap-signer')]),
    roleBinding(
      kubeSystem,
      'system::extension-apiserver-authentication-reader',
      [user('system:kube-controller-manager'), user('system:kube-scheduler')],
      'extension-apiserver-authentication-reader',
    ),
    roleBinding(kubeSystem, 'system::leader-locking-kube-controller-manager', [
      user('system:kube-controller-manager'),
      serviceAccount(kubeSystem, 'kube-controller-manager'),
      serviceAccount(kubeSystem, 'leader-election-controller'),
    ]),
    roleBinding(kubeSystem, controllerPrefix + 'bootstrap-signer', [serviceAccount(kubeSystem, 'bootstrap-signer')]),
    roleBinding(kubeSystem, controllerPrefix + 'token-cleaner', [serviceAccount(kubeSystem, 'token-cleaner')]),
  ];
}

/**
 * What joining nodes with bootstrap tokens needs, as a kubeadm cluster binds it (not part of
 * upstream's bootstrap policy; reconciled alongside it when bootstrap token authentication is on):
 * bootstrap tokens create CSRs and have node client certificates auto-approved, and nodes renew
 * their own.
 */
export function nodeJoinClusterRoleBindings(): ClusterRoleBinding[] {
  return [
    clusterRoleBinding('corral:node-bootstrapper', [group('system:bootstrappers')], 'system:node-bootstrapper'),
    clusterRoleBinding(
      'corral:node-autoapprove-bootstrap',
      [group('system:bootstrappers')],
      'system:certificates.k8s.io:certificatesigningrequests:nodeclient',
    ),
    clusterRoleBinding(
      'corral:node-autoapprove-certificate-rotation',
      [group('system:nodes')],
      'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient',
    ),
  ];
}
