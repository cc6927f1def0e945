/**
 * core/v1 Service: the type every process shares and its schema, with upstream's protobuf field
 * numbers (k8s.io/api core/v1 generated.proto) and list/merge markers (types.go). Defaults are
 * service-defaults.ts, validation shared/validation/service.ts; cluster IPs are the API server's
 * allocator's (apiserver/services/).
 */
import type { KubeObject } from './types.ts';
import {
  atomicArray,
  boolean,
  defaulted,
  describe,
  int32,
  int64,
  intOrString,
  keyedArray,
  kindSchema,
  map,
  named,
  neverOmitted,
  object,
  patchMerge,
  pb,
  string,
  time,
  type Schema,
} from './schema.ts';

export interface ServicePort {
  name?: string;
  protocol?: string;
  appProtocol?: string;
  port?: number;
  /** A number or an IANA port name. */
  targetPort?: number | string;
  nodePort?: number;
}

export interface SessionAffinityConfig {
  clientIP?: { timeoutSeconds?: number };
}

export interface ServiceSpec {
  ports?: ServicePort[];
  selector?: Record<string, string>;
  clusterIP?: string;
  clusterIPs?: string[];
  type?: string;
  externalIPs?: string[];
  sessionAffinity?: string;
  loadBalancerIP?: string;
  loadBalancerSourceRanges?: string[];
  externalName?: string;
  externalTrafficPolicy?: string;
  healthCheckNodePort?: number;
  publishNotReadyAddresses?: boolean;
  sessionAffinityConfig?: SessionAffinityConfig;
  ipFamilies?: string[];
  ipFamilyPolicy?: string;
  allocateLoadBalancerNodePorts?: boolean;
  loadBalancerClass?: string;
  internalTrafficPolicy?: string;
  trafficDistribution?: string;
}

export interface LoadBalancerIngress {
  ip?: string;
  hostname?: string;
  ipMode?: string;
  ports?: { port?: number; protocol?: string; error?: string }[];
}

export interface ServiceStatus {
  loadBalancer?: { ingress?: LoadBalancerIngress[] };
  conditions?: Record<string, unknown>[];
}

export interface Service extends KubeObject {
  spec?: ServiceSpec;
  status?: ServiceStatus;
}

/** spec.clusterIP of a headless service. */
export const clusterIPNone = 'None';
/** upstream's MaxClientIPServiceAffinitySeconds and DefaultClientIPServiceAffinitySeconds. */
export const maxClientIPAffinitySeconds = 86400;
export const defaultClientIPAffinitySeconds = 10800;

/** A service with exactly one cluster IP, `None` (upstream's isHeadlessService). */
export function isHeadless(svc: Service): boolean {
  const ips = svc.spec?.clusterIPs ?? [];
  return ips.length === 1 && ips[0] === clusterIPNone;
}

/** Types whose services hold cluster IPs: all but ExternalName. */
export function needsClusterIP(svc: Service): boolean {
  return svc.spec?.type !== 'ExternalName';
}

const coreV1 = (type: string): string => `io.k8s.api.core.v1.${type}`;

/** meta/v1 Condition (field numbers from apimachinery's meta/v1 generated.proto). */
export const metaCondition = (): Schema =>
  named(
    'io.k8s.apimachinery.pkg.apis.meta.v1.Condition',
    'One aspect of the current state of an object, in the form every API uses.',
    object(
      {
        type: pb(1, neverOmitted(string('Type of the condition, in CamelCase or as foo.example.com/CamelCase.'))),
        status: pb(2, neverOmitted(string('True, False or Unknown.'))),
        observedGeneration: pb(3, int64('The .metadata.generation the condition was set for.')),
        lastTransitionTime: pb(4, time('When the condition last changed from one status to another.')),
        reason: pb(5, neverOmitted(string('Programmatic identifier of the reason of the last transition, in CamelCase.'))),
        message: pb(6, neverOmitted(string('Human-readable message about the transition.'))),
      },
      ['type', 'status', 'lastTransitionTime', 'reason', 'message'],
    ),
  );

const servicePort = (): Schema =>
  named(
    coreV1('ServicePort'),
    'One port a service exposes, and where it forwards traffic.',
    object(
      {
        name: pb(1, string('Name of the port, a DNS label unique within the service; required when there is more than one port.')),
        protocol: pb(2, defaulted(string('IP protocol of the port: TCP (the default), UDP or SCTP.'), 'TCP')),
        appProtocol: pb(6, string('Application protocol of the port, such as kubernetes.io/h2c; a standard service name or a prefixed name.'), 'optional'),
        port: pb(3, int32('Port the service exposes.'), 'keepZero'),
        targetPort: pb(4, intOrString("Number or name of the port on the selected pods; defaults to the value of 'port'.")),
        nodePort: pb(5, int32('Port on every node for NodePort and LoadBalancer services; allocated from --service-node-port-range when unset.')),
      },
      ['port'],
    ),
  );

const sessionAffinityConfig = (): Schema =>
  named(
    coreV1('SessionAffinityConfig'),
    'Settings of session affinity.',
    object({
      clientIP: pb(
        1,
        describe(
          named(
            coreV1('ClientIPConfig'),
            'Settings of ClientIP session affinity.',
            object({
              timeoutSeconds: pb(1, int32('Seconds a ClientIP affinity lasts: more than 0, at most 86400; defaults to 10800.'), 'optional'),
            }),
          ),
          'Settings of ClientIP based session affinity.',
        ),
        'optional',
      ),
    }),
  );

export const serviceSpecSchema = (): Schema =>
  named(
    coreV1('ServiceSpec'),
    'The desired state of a service: its ports, which pods it selects and how it is reached.',
    object({
      ports: pb(
        1,
        describe(
          patchMerge({ ...keyedArray(servicePort(), ['port', 'protocol']) }, 'port'),
          'Ports the service exposes; at least one unless the service is headless or ExternalName.',
        ),
      ),
      selector: pb(2, {
        ...map(string(), 'Pods with these labels receive the traffic; without a selector, endpoints are managed externally.'),
        'x-kubernetes-map-type': 'atomic',
      }),
      clusterIP: pb(
        3,
        string('Primary virtual IP of the service, allocated from --service-cluster-ip-range when unset; None makes it headless. Cannot change.'),
      ),
      clusterIPs: pb(18, describe(atomicArray(string()), 'Cluster IPs of the service, one per IP family; the first equals clusterIP.')),
      type: pb(4, string('How the service is exposed: ClusterIP (the default), NodePort, LoadBalancer or ExternalName.')),
      externalIPs: pb(5, describe(atomicArray(string()), 'IPs for which nodes also accept traffic for this service.')),
      sessionAffinity: pb(7, string('ClientIP or None (the default).')),
      loadBalancerIP: pb(8, string('Deprecated: the IP a load balancer should use, when the provider supports choosing it.')),
      loadBalancerSourceRanges: pb(9, describe(atomicArray(string()), 'Client CIDRs a load balancer lets through; LoadBalancer services only.')),
      externalName: pb(10, string('DNS name the service is an alias of (a CNAME); ExternalName services only.')),
      externalTrafficPolicy: pb(11, string('How external traffic is routed: Cluster (the default) or Local.')),
      healthCheckNodePort: pb(12, int32('Node port of the health check of LoadBalancer services with externalTrafficPolicy Local.')),
      publishNotReadyAddresses: pb(13, boolean('Endpoints list every address, ready or not.')),
      sessionAffinityConfig: pb(14, describe(sessionAffinityConfig(), 'Settings of session affinity.'), 'optional'),
      ipFamilies: pb(19, describe(atomicArray(string()), 'IP families of the service, IPv4 or IPv6, in the order of clusterIPs.')),
      ipFamilyPolicy: pb(17, string('SingleStack (the default), PreferDualStack or RequireDualStack.'), 'optional'),
      allocateLoadBalancerNodePorts: pb(20, boolean('Whether node ports are allocated for a LoadBalancer service; defaults to true.'), 'optional'),
      loadBalancerClass: pb(21, string('Class of the load balancer implementation; LoadBalancer services only. Cannot change.'), 'optional'),
      internalTrafficPolicy: pb(22, string('How traffic from inside the cluster is routed: Cluster (the default) or Local.'), 'optional'),
      trafficDistribution: pb(23, string('Preference for how traffic is distributed among endpoints: PreferClose.'), 'optional'),
    }),
  );

const loadBalancerIngress = (): Schema =>
  named(
    coreV1('LoadBalancerIngress'),
    'An address of a load balancer.',
    object({
      ip: pb(1, string('IP of the load balancer.')),
      hostname: pb(2, string('DNS name of the load balancer.')),
      ipMode: pb(3, string('How traffic to ip reaches the nodes: VIP or Proxy.'), 'optional'),
      ports: pb(
        4,
        describe(
          atomicArray(
            named(
              coreV1('PortStatus'),
              'The state of one port of a load balancer.',
              object(
                {
                  port: pb(1, int32('Port number.'), 'keepZero'),
                  protocol: pb(2, string('Protocol of the port.'), 'keepZero'),
                  error: pb(3, string('Problem with the port, in CamelCase, if any.'), 'optional'),
                },
                ['port', 'protocol'],
              ),
            ),
          ),
          'State of the ports of the load balancer.',
        ),
      ),
    }),
  );

export const serviceStatusSchema = (): Schema =>
  named(
    coreV1('ServiceStatus'),
    'The observed state of a service.',
    object({
      loadBalancer: pb(
        1,
        describe(
          named(
            coreV1('LoadBalancerStatus'),
            'The state of a load balancer.',
            object({ ingress: pb(1, describe(atomicArray(loadBalancerIngress()), 'Addresses of the load balancer.')) }),
          ),
          'The load balancer of the service, if any.',
        ),
      ),
      conditions: pb(2, describe(patchMerge(keyedArray(metaCondition(), ['type']), 'type'), 'Current conditions of the service.')),
    }),
  );

export const serviceSchema = (): Schema =>
  describe(
    kindSchema({
      spec: pb(2, describe(serviceSpecSchema(), 'The desired state of the service.')),
      status: pb(3, describe(serviceStatusSchema(), 'The observed state of the service, written through status.')),
    }),
    'A named abstraction of a set of pods (or an external name) and the ports they serve, reachable at stable cluster IPs.',
  );
