/**
 * Defaults of core/v1 Service, as upstream applies them on every write (SetDefaults_Service, the
 * strategy's normalization of clusterIP and clusterIPs, and the IP family fields the allocator
 * initializes). corral serves single-stack IPv4 clusters (--service-cluster-ip-range takes one
 * CIDR), so a service that names no families gets [IPv4] and SingleStack.
 */
import { defaultClientIPAffinitySeconds, isHeadless, type Service } from './service.ts';

/** upstream's SetDefaults_Service (pkg/apis/core/v1/defaults.go). */
function setServiceDefaults(svc: Service): void {
  const spec = (svc.spec ??= {});
  if (!spec.sessionAffinity) spec.sessionAffinity = 'None';
  if (spec.sessionAffinity === 'None') delete spec.sessionAffinityConfig;
  if (spec.sessionAffinity === 'ClientIP' && spec.sessionAffinityConfig?.clientIP?.timeoutSeconds === undefined) {
    spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: defaultClientIPAffinitySeconds } };
  }
  if (!spec.type) spec.type = 'ClusterIP';
  for (const port of spec.ports ?? []) {
    if (!port.protocol) port.protocol = 'TCP';
    if (port.targetPort === undefined || port.targetPort === 0 || port.targetPort === '') port.targetPort = port.port ?? 0;
  }
  if ((spec.type === 'NodePort' || spec.type === 'LoadBalancer') && !spec.externalTrafficPolicy) spec.externalTrafficPolicy = 'Cluster';
  if (spec.internalTrafficPolicy === undefined && spec.type !== 'ExternalName') spec.internalTrafficPolicy = 'Cluster';
  if (spec.type === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts === undefined) spec.allocateLoadBalancerNodePorts = true;
  // Older clients write clusterIPs alone.
  if (!spec.clusterIP && spec.clusterIPs?.length) spec.clusterIP = spec.clusterIPs[0];
}

/** upstream's NormalizeClusterIPs for a new object: clusterIPs follows a clusterIP given alone. */
function normalizeClusterIPs(svc: Service): void {
  const spec = svc.spec ?? {};
  if (spec.clusterIP && !spec.clusterIPs?.length) spec.clusterIPs = [spec.clusterIP];
}

/**
 * The IP family fields (upstream's initIPFamilyFields, single stack): ExternalName services have
 * none; the others get SingleStack and the family of their first cluster IP (IPv4 when none or
 * headless).
 */
function initIPFamilyFields(svc: Service): void {
  const spec = svc.spec ?? {};
  if (spec.type === 'ExternalName') return;
  spec.ipFamilyPolicy ??= 'SingleStack';
  if (!spec.ipFamilies?.length) {
    const first = isHeadless(svc) ? undefined : spec.clusterIPs?.[0];
    spec.ipFamilies = [first?.includes(':') ? 'IPv6' : 'IPv4'];
  }
}

/** Every default of a Service being created. */
export function applyServiceCreateDefaults(svc: Service): void {
  setServiceDefaults(svc);
  normalizeClusterIPs(svc);
  initIPFamilyFields(svc);
}

/**
 * Every default of a Service being updated: as on create, and a service that becomes ExternalName
 * drops the cluster IPs and IP families it kept unchanged (upstream's dropTypeDependentFields).
 */
export function applyServiceUpdateDefaults(svc: Service, old: Service): void {
  setServiceDefaults(svc);
  const spec = svc.spec ?? {};
  const oldSpec = old.spec ?? {};
  if (spec.type === 'ExternalName' && oldSpec.type !== 'ExternalName') {
    if (spec.clusterIP === oldSpec.clusterIP) delete spec.clusterIP;
    if (JSON.stringify(spec.clusterIPs) === JSON.stringify(oldSpec.clusterIPs)) delete spec.clusterIPs;
    if (JSON.stringify(spec.ipFamilies) === JSON.stringify(oldSpec.ipFamilies)) delete spec.ipFamilies;
    if (spec.ipFamilyPolicy === oldSpec.ipFamilyPolicy) delete spec.ipFamilyPolicy;
    if (spec.internalTrafficPolicy === oldSpec.internalTrafficPolicy) delete spec.internalTrafficPolicy;
    return;
  }
  // An update that leaves clusterIP unset keeps the allocated ones (upstream's patchAllocatedValues).
  if (!spec.clusterIP && !spec.clusterIPs?.length && oldSpec.clusterIP && oldSpec.type !== 'ExternalName') {
    spec.clusterIP = oldSpec.clusterIP;
    spec.clusterIPs = [...(oldSpec.clusterIPs ?? [oldSpec.clusterIP])];
  }
  normalizeClusterIPs(svc);
  if (oldSpec.type !== 'ExternalName') {
    if (spec.ipFamilyPolicy === undefined && oldSpec.ipFamilyPolicy !== undefined) spec.ipFamilyPolicy = oldSpec.ipFamilyPolicy;
    if (!spec.ipFamilies?.length && oldSpec.ipFamilies?.length) spec.ipFamilies = [...oldSpec.ipFamilies];
  }
  // Node ports a client leaves out keep their allocated values (patchAllocatedValues), matched by port and protocol.
  for (const port of spec.ports ?? []) {
    if (port.nodePort) continue;
    const same = (oldSpec.ports ?? []).find((p) => p.port === port.port && p.protocol === port.protocol);
    if (same?.nodePort && spec.type !== 'ClusterIP' && spec.type !== 'ExternalName') port.nodePort = same.nodePort;
  }
  initIPFamilyFields(svc);
}
