/**
 * Validation of core/v1 Service with upstream's rules, messages and field paths
 * (pkg/apis/core/validation: ValidateService, ValidateServiceUpdate, ValidateServiceStatusUpdate),
 * run on the defaulted object. Cluster IPs inside --service-cluster-ip-range and free are the
 * allocator's to check (apiserver/services/), as upstream's.
 */
import { FieldPath, duplicate, forbidden, invalid, notSupported, required, type FieldError } from '../api/field.ts';
import { clusterIPNone, isHeadless, maxClientIPAffinitySeconds, type Service, type ServicePort, type SessionAffinityConfig } from '../api/service.ts';
import { validateNonSpecialIP } from './endpoints.ts';
import { isDNS1123Label, isDNS1123Subdomain } from './names.ts';
import { ipFamily, validateCIDR } from './network.ts';
import { validateLabels } from './objectmeta.ts';
import { portNameProblems } from './pod.ts';
import { validateQualifiedName } from './qualified-name.ts';

const spec = FieldPath.root('spec');
const portRangeMessage = 'must be between 1 and 65535, inclusive';
const ipMessage = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';

/** Sorted as upstream's sets.List. */
export const supportedServiceTypes = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'] as const;
export const supportedPortProtocols = ['SCTP', 'TCP', 'UDP'] as const;
const supportedSessionAffinity = ['ClientIP', 'None'];
const supportedIPFamilies = ['IPv4', 'IPv6'];
const supportedIPFamilyPolicies = ['PreferDualStack', 'RequireDualStack', 'SingleStack'];
const supportedTrafficPolicies = ['Cluster', 'Local'];

/** A list of strings as upstream's field errors print it (Go's %#v). */
export const goStringSlice = (values: readonly string[]): string => `[]string{${values.map((v) => JSON.stringify(v)).join(', ')}}`;

/** An Invalid error about a list of cluster IPs, printed as upstream prints it. */
const invalidIPs = (path: FieldPath, ips: readonly string[], detail: string): FieldError => ({ ...invalid(path, ips, detail), valueText: goStringSlice(ips) });

const validPortNumber = (port: number): boolean => Number.isInteger(port) && port >= 1 && port <= 65535;

/** upstream's ValidatePortNumOrName: a number in range or an IANA service name. */
export function validatePortNumOrName(port: number | string | undefined, path: FieldPath): FieldError[] {
  if (typeof port === 'string') return portNameProblems(port).map((msg) => invalid(path, port, msg));
  const value = port ?? 0;
  return validPortNumber(value) ? [] : [invalid(path, value, portRangeMessage)];
}

/** Go's %#v of the (protocol, port) key upstream reports for a duplicate port. */
function servicePortKeyText(protocol: string, port: number): string {
  return `core.ServicePort{Name:"", Protocol:${JSON.stringify(protocol)}, AppProtocol:(*string)(nil), Port:${port}, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}`;
}

function validateServicePort(port: ServicePort, requireName: boolean, names: Set<string>, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const name = port.name ?? '';
  if (requireName && name === '') errors.push(required(path.child('name')));
  else if (name !== '') {
    for (const msg of isDNS1123Label(name)) errors.push(invalid(path.child('name'), name, msg));
    if (names.has(name)) errors.push(duplicate(path.child('name'), name));
    else names.add(name);
  }
  const number = port.port ?? 0;
  if (!validPortNumber(number)) errors.push(invalid(path.child('port'), number, portRangeMessage));
  const protocol = port.protocol ?? '';
  if (protocol === '') errors.push(required(path.child('protocol')));
  else if (!(supportedPortProtocols as readonly string[]).includes(protocol))
    errors.push(notSupported(path.child('protocol'), protocol, supportedPortProtocols));
  errors.push(...validatePortNumOrName(port.targetPort, path.child('targetPort')));
  if (port.appProtocol !== undefined) errors.push(...validateQualifiedName(port.appProtocol, path.child('appProtocol')));
  return errors;
}

function validateClientIPAffinityConfig(config: SessionAffinityConfig | undefined, path: FieldPath): FieldError[] {
  const when = 'when session affinity type is ClientIP';
  if (!config) return [required(path, when)];
  if (!config.clientIP) return [required(path.child('clientIP'), when)];
  const timeout = config.clientIP.timeoutSeconds;
  const timeoutPath = path.child('clientIP', 'timeoutSeconds');
  if (timeout === undefined) return [required(timeoutPath, when)];
  if (timeout <= 0 || timeout > maxClientIPAffinitySeconds) {
    return [invalid(timeoutPath, timeout, `must be greater than 0 and less than ${maxClientIPAffinitySeconds}`)];
  }
  return [];
}

/** upstream's ValidateServiceClusterIPsRelatedFields. */
export function validateClusterIPsRelatedFields(svc: Service): FieldError[] {
  const s = svc.spec ?? {};
  if (s.type === 'ExternalName') return [];
  const errors: FieldError[] = [];
  const clusterIPsPath = spec.child('clusterIPs');
  const clusterIPs = s.clusterIPs ?? [];
  if (s.clusterIP) {
    if (clusterIPs.length === 0) errors.push(required(clusterIPsPath));
    else if (clusterIPs[0] !== s.clusterIP) errors.push(invalidIPs(clusterIPsPath, clusterIPs, 'first value must match `clusterIP`'));
  } else if (clusterIPs.length !== 0) {
    errors.push(invalidIPs(clusterIPsPath, clusterIPs, 'must be empty when `clusterIP` is not specified'));
  }
  const seen = new Set<string>();
  (s.ipFamilies ?? []).forEach((family, i) => {
    const path = spec.child('ipFamilies').index(i);
    if (!supportedIPFamilies.includes(family)) errors.push(notSupported(path, family, supportedIPFamilies));
    if (seen.has(family)) errors.push(duplicate(path, family));
    seen.add(family);
  });
  if (s.ipFamilyPolicy !== undefined && !supportedIPFamilyPolicies.includes(s.ipFamilyPolicy)) {
    errors.push(notSupported(spec.child('ipFamilyPolicy'), s.ipFamilyPolicy, supportedIPFamilyPolicies));
  }
  let hasInvalidIPs = false;
  clusterIPs.forEach((ip, i) => {
    if (i === 0 && ip === clusterIPNone) {
      if (clusterIPs.length > 1) {
        hasInvalidIPs = true;
        errors.push(invalidIPs(clusterIPsPath, clusterIPs, "'None' must be the first and only value"));
      }
      return;
    }
    if (!ipFamily(ip)) {
      hasInvalidIPs = true;
      errors.push(invalid(clusterIPsPath.index(i), ip, ipMessage));
    }
  });
  if (clusterIPs.length > 2) errors.push(invalidIPs(clusterIPsPath, clusterIPs, 'may only hold up to 2 values'));
  if (hasInvalidIPs) return errors;
  if (clusterIPs.length > 1 && (clusterIPs.length !== 2 || ipFamily(clusterIPs[0] ?? '') === ipFamily(clusterIPs[1] ?? ''))) {
    errors.push(invalidIPs(clusterIPsPath, clusterIPs, 'may specify no more than one IP for each IP family'));
  }
  const families = s.ipFamilies ?? [];
  if (!isHeadless(svc)) {
    clusterIPs.forEach((ip, i) => {
      if (i >= families.length) return;
      const v6 = ipFamily(ip) === 6;
      if (families[i] === 'IPv4' && v6) errors.push(invalid(clusterIPsPath.index(i), ip, `expected an IPv4 value as indicated by \`ipFamilies[${i}]\``));
      if (families[i] === 'IPv6' && !v6) errors.push(invalid(clusterIPsPath.index(i), ip, `expected an IPv6 value as indicated by \`ipFamilies[${i}]\``));
    });
  }
  return errors;
}

const externallyAccessible = (s: NonNullable<Service['spec']>): boolean =>
  s.type === 'LoadBalancer' || s.type === 'NodePort' || (s.type === 'ClusterIP' && (s.externalIPs ?? []).length > 0);

/** upstream's ValidateService, without metadata (the store validates it). */
export function validateService(svc: Service): FieldError[] {
  const s = svc.spec ?? {};
  const errors: FieldError[] = [];
  const headless = isHeadless(svc);
  const ports = s.ports ?? [];
  if (ports.length === 0 && !headless && s.type !== 'ExternalName') errors.push(required(spec.child('ports')));
  if (s.type === 'LoadBalancer' && headless) {
    errors.push(invalid(spec.child('clusterIPs').index(0), s.clusterIPs?.[0], "may not be set to 'None' for LoadBalancer services"));
  }
  if (s.type === 'NodePort' && headless) {
    errors.push(invalid(spec.child('clusterIPs').index(0), s.clusterIPs?.[0], "may not be set to 'None' for NodePort services"));
  }
  if (s.type === 'ExternalName') {
    if ((s.clusterIPs ?? []).length > 0) errors.push(forbidden(spec.child('clusterIPs'), 'may not be set for ExternalName services'));
    if ((s.ipFamilies ?? []).length > 0) errors.push(forbidden(spec.child('ipFamilies'), 'may not be set for ExternalName services'));
    if (s.ipFamilyPolicy !== undefined) errors.push(forbidden(spec.child('ipFamilyPolicy'), 'may not be set for ExternalName services'));
    const cname = (s.externalName ?? '').replace(/\.$/, '');
    if (cname) errors.push(...isDNS1123Subdomain(cname).map((msg) => invalid(spec.child('externalName'), cname, msg)));
    else errors.push(required(spec.child('externalName')));
  }
  const names = new Set<string>();
  ports.forEach((port, i) => errors.push(...validateServicePort(port, ports.length > 1, names, spec.child('ports').index(i))));
  if (s.selector) errors.push(...validateLabels(s.selector, spec.child('selector')));
  if (!s.sessionAffinity) errors.push(required(spec.child('sessionAffinity')));
  else if (!supportedSessionAffinity.includes(s.sessionAffinity))
    errors.push(notSupported(spec.child('sessionAffinity'), s.sessionAffinity, supportedSessionAffinity));
  if (s.sessionAffinity === 'ClientIP') errors.push(...validateClientIPAffinityConfig(s.sessionAffinityConfig, spec.child('sessionAffinityConfig')));
  else if (s.sessionAffinity === 'None' && s.sessionAffinityConfig) {
    errors.push(forbidden(spec.child('sessionAffinityConfig'), 'must not be set when session affinity is None'));
  }
  errors.push(...validateClusterIPsRelatedFields(svc));
  (s.externalIPs ?? []).forEach((ip, i) => {
    const path = spec.child('externalIPs').index(i);
    errors.push(...(ipFamily(ip) ? validateNonSpecialIP(ip, path) : [invalid(path, ip, ipMessage)]));
  });
  if (!s.type) errors.push(required(spec.child('type')));
  else if (!(supportedServiceTypes as readonly string[]).includes(s.type)) errors.push(notSupported(spec.child('type'), s.type, supportedServiceTypes));
  if (s.type === 'ClusterIP') {
    ports.forEach((port, i) => {
      if (port.nodePort) errors.push(forbidden(spec.child('ports').index(i).child('nodePort'), "may not be used when `type` is 'ClusterIP'"));
    });
  }
  const nodePorts = new Set<string>();
  ports.forEach((port, i) => {
    if (!port.nodePort) return;
    const key = `${port.protocol ?? ''}/${port.nodePort}`;
    if (nodePorts.has(key)) errors.push(duplicate(spec.child('ports').index(i).child('nodePort'), port.nodePort));
    nodePorts.add(key);
  });
  const seenPorts = new Set<string>();
  ports.forEach((port, i) => {
    const key = `${port.protocol ?? ''}/${port.port ?? 0}`;
    if (seenPorts.has(key)) {
      errors.push({ ...duplicate(spec.child('ports').index(i), key), valueText: servicePortKeyText(port.protocol ?? '', port.port ?? 0) });
    }
    seenPorts.add(key);
  });
  if ((s.loadBalancerSourceRanges ?? []).length > 0) {
    const path = spec.child('LoadBalancerSourceRanges');
    if (s.type !== 'LoadBalancer') errors.push(forbidden(path, "may only be used when `type` is 'LoadBalancer'"));
    (s.loadBalancerSourceRanges ?? []).forEach((range, i) => errors.push(...validateCIDR(path.index(i), range.trim())));
  }
  if (s.allocateLoadBalancerNodePorts !== undefined && s.type !== 'LoadBalancer') {
    errors.push(forbidden(spec.child('allocateLoadBalancerNodePorts'), "may only be used when `type` is 'LoadBalancer'"));
  }
  if (s.type === 'LoadBalancer' && s.allocateLoadBalancerNodePorts === undefined) errors.push(required(FieldPath.root('allocateLoadBalancerNodePorts')));
  if (s.type === 'LoadBalancer') {
    if (s.loadBalancerClass !== undefined) errors.push(...validateQualifiedName(s.loadBalancerClass, spec.child('loadBalancerClass')));
  } else if (s.loadBalancerClass !== undefined) {
    errors.push(forbidden(spec.child('loadBalancerClass'), "may only be used when `type` is 'LoadBalancer'"));
  }
  errors.push(...validateExternalTrafficPolicy(s));
  if (s.internalTrafficPolicy === undefined) {
    if (s.type === 'NodePort' || s.type === 'LoadBalancer' || s.type === 'ClusterIP') errors.push(required(spec.child('internalTrafficPolicy')));
  } else if (!supportedTrafficPolicies.includes(s.internalTrafficPolicy)) {
    errors.push(notSupported(spec.child('internalTrafficPolicy'), s.internalTrafficPolicy, supportedTrafficPolicies));
  }
  if (s.trafficDistribution !== undefined && s.trafficDistribution !== 'PreferClose') {
    errors.push(notSupported(spec.child('trafficDistribution'), s.trafficDistribution, ['PreferClose']));
  }
  return errors;
}

function validateExternalTrafficPolicy(s: NonNullable<Service['spec']>): FieldError[] {
  const errors: FieldError[] = [];
  const policy = s.externalTrafficPolicy ?? '';
  if (!externallyAccessible(s)) {
    if (policy !== '') errors.push(invalid(spec.child('externalTrafficPolicy'), policy, 'may only be set for externally-accessible services'));
  } else if (policy === '') errors.push(required(spec.child('externalTrafficPolicy')));
  else if (!supportedTrafficPolicies.includes(policy)) errors.push(notSupported(spec.child('externalTrafficPolicy'), policy, supportedTrafficPolicies));
  const needsHealthCheck = s.type === 'LoadBalancer' && policy === 'Local';
  const healthPort = s.healthCheckNodePort ?? 0;
  if (!needsHealthCheck) {
    if (healthPort !== 0) {
      errors.push(
        invalid(spec.child('healthCheckNodePort'), healthPort, "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"),
      );
    }
  } else if (healthPort === 0) errors.push(required(spec.child('healthCheckNodePort')));
  else if (!validPortNumber(healthPort)) errors.push(invalid(spec.child('healthCheckNodePort'), healthPort, portRangeMessage));
  return errors;
}

/** upstream's validateUpgradeDowngradeClusterIPs for a single-stack cluster: cluster IPs never change once set. */
function validateClusterIPsUpdate(svc: Service, old: Service): FieldError[] {
  if (svc.spec?.type === 'ExternalName' || old.spec?.type === 'ExternalName') return [];
  if (isHeadless(svc) && isHeadless(old)) return [];
  const ips = svc.spec?.clusterIPs ?? [];
  const oldIPs = old.spec?.clusterIPs ?? [];
  const path = spec.child('clusterIPs');
  const errors: FieldError[] = [];
  if (oldIPs.length === ips.length) {
    oldIPs.forEach((ip, i) => {
      if (ip !== ips[i]) errors.push(invalidIPs(path.index(i), ips, 'may not change once set'));
    });
  } else if (oldIPs.length > ips.length) {
    if (ips.length === 0) errors.push(invalidIPs(path.index(0), ips, 'primary clusterIP can not be unset'));
    if (oldIPs.length > 0 && ips.length > 0 && ips[0] !== oldIPs[0]) errors.push(invalidIPs(path.index(0), ips, 'may not change once set'));
    if (ips.length === 1 && svc.spec?.ipFamilyPolicy !== 'SingleStack') {
      errors.push(
        invalid(spec.child('ipFamilyPolicy'), svc.spec?.ipFamilyPolicy ?? null, "must be set to 'SingleStack' when releasing the secondary clusterIP"),
      );
    }
  } else if (oldIPs.length > 0 && ips[0] !== oldIPs[0]) {
    errors.push(invalidIPs(path.index(0), ips, 'may not change once set'));
  }
  return errors;
}

/** upstream's ValidateServiceUpdate (without metadata). */
export function validateServiceUpdate(svc: Service, old: Service): FieldError[] {
  const errors = validateClusterIPsUpdate(svc, old);
  const families = svc.spec?.ipFamilies ?? [];
  const oldFamilies = old.spec?.ipFamilies ?? [];
  const familiesApply = svc.spec?.type !== 'ExternalName' && old.spec?.type !== 'ExternalName' && !isHeadless(svc) && !isHeadless(old);
  if (familiesApply && oldFamilies.length > 0 && families.length > 0 && families[0] !== oldFamilies[0]) {
    errors.push(invalid(spec.child('ipFamilies').index(0), families, 'may not change once set'));
  }
  if (old.spec?.type === 'LoadBalancer' && svc.spec?.type === 'LoadBalancer' && old.spec.loadBalancerClass !== svc.spec.loadBalancerClass) {
    errors.push(invalid(spec.child('loadBalancerClass'), svc.spec.loadBalancerClass ?? null, 'may not change once set'));
  }
  const needsHealthCheck = (s: Service['spec']): boolean => s?.type === 'LoadBalancer' && s.externalTrafficPolicy === 'Local';
  if (needsHealthCheck(old.spec) && needsHealthCheck(svc.spec) && old.spec?.healthCheckNodePort !== svc.spec?.healthCheckNodePort) {
    errors.push(forbidden(spec.child('healthCheckNodePort'), 'field is immutable'));
  }
  return [...errors, ...validateService(svc)];
}

/** upstream's ValidateLoadBalancerStatus, the part a status write checks: ingress IPs and ipMode. */
export function validateServiceStatusUpdate(svc: Service): FieldError[] {
  const errors: FieldError[] = [];
  const path = FieldPath.root('status').child('loadBalancer', 'ingress');
  (svc.status?.loadBalancer?.ingress ?? []).forEach((ingress, i) => {
    const at = path.index(i);
    if (ingress.ip && !ipFamily(ingress.ip)) errors.push(invalid(at.child('ip'), ingress.ip, ipMessage));
    if (ingress.ipMode === undefined) {
      if (ingress.ip) errors.push(required(at.child('ipMode'), 'must be specified when `ip` is set'));
    } else if (!ingress.ip) errors.push(forbidden(at.child('ipMode'), 'may not be specified when `ip` is not set'));
    else if (ingress.ipMode !== 'VIP' && ingress.ipMode !== 'Proxy') errors.push(notSupported(at.child('ipMode'), ingress.ipMode, ['VIP', 'Proxy']));
    if (ingress.hostname) {
      for (const msg of isDNS1123Subdomain(ingress.hostname)) errors.push(invalid(at.child('hostname'), ingress.hostname, msg));
      if (ipFamily(ingress.hostname)) errors.push(invalid(at.child('hostname'), ingress.hostname, 'must be a DNS name, not an IP address'));
    }
  });
  return errors;
}

const dns1035LabelFmt = '[a-z]([-a-z0-9]*[a-z0-9])?';
const dns1035LabelRe = new RegExp(`^${dns1035LabelFmt}$`);

/** upstream's IsDNS1035Label, which service names follow. */
export function isDNS1035Label(value: string): string[] {
  const problems: string[] = [];
  if (value.length > 63) problems.push('must be no more than 63 characters');
  if (!dns1035LabelRe.test(value)) {
    problems.push(
      `a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '${dns1035LabelFmt}')`,
    );
  }
  return problems;
}

/** upstream's ValidateServiceName (NameIsDNS1035Label), a generateName's trailing '-' tolerated. */
export const serviceNameRule = (name: string, prefix: boolean): string[] =>
  isDNS1035Label(prefix && name.length > 1 && name.endsWith('-') ? `${name.slice(0, -2)}a` : name);
