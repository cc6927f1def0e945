/**
 * Validation of core/v1 Endpoints with upstream's rules, messages and field paths
 * (pkg/apis/core/validation: ValidateEndpoints, validateEndpointSubsets), and upstream's
 * ValidateNonSpecialIP, which endpoints, endpoint slices and a service's external IPs share.
 */
import { FieldPath, invalid, notSupported, required, type FieldError } from '../api/field.ts';
import type { EndpointAddress, EndpointPort, Endpoints } from '../api/endpoints.ts';
import { isDNS1123Label, isDNS1123Subdomain } from './names.ts';
import { ipFamily } from './network.ts';
import { validateQualifiedName } from './qualified-name.ts';

const supportedPortProtocols = ['SCTP', 'TCP', 'UDP'];
export const ipMessage = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';

function ipv4Octets(ip: string): number[] {
  return ip.split('.').map(Number);
}

/** upstream's ValidateNonSpecialIP: no unspecified, loopback or link-local address, for things that route traffic. */
export function validateNonSpecialIP(ip: string, path: FieldPath): FieldError[] {
  const family = ipFamily(ip);
  if (!family) return [invalid(path, ip, 'must be a valid IP address')];
  const lower = ip.toLowerCase();
  const errors: FieldError[] = [];
  const [a = 0, b = 0, c = 0] = family === 4 ? ipv4Octets(ip) : [];
  const unspecified = family === 4 ? ip === '0.0.0.0' : /^(0*:)*:?0*$/.test(lower) || lower === '::';
  const loopback = family === 4 ? a === 127 : lower === '::1' || /^(0+:){7}0*1$/.test(lower);
  const linkLocal = family === 4 ? a === 169 && b === 254 : /^fe[89ab][0-9a-f]:/.test(lower);
  const linkLocalMulticast = family === 4 ? a === 224 && b === 0 && c === 0 : /^ff02:/.test(lower);
  if (unspecified) errors.push(invalid(path, ip, `may not be unspecified (${ip})`));
  if (loopback) errors.push(invalid(path, ip, 'may not be in the loopback range (127.0.0.0/8, ::1/128)'));
  if (linkLocal) errors.push(invalid(path, ip, 'may not be in the link-local range (169.254.0.0/16, fe80::/10)'));
  if (linkLocalMulticast) errors.push(invalid(path, ip, 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)'));
  return errors;
}

function validateEndpointAddress(address: EndpointAddress, path: FieldPath): FieldError[] {
  const ip = address.ip ?? '';
  const errors: FieldError[] = ipFamily(ip) ? [] : [invalid(path.child('ip'), ip, ipMessage)];
  if (address.hostname) errors.push(...isDNS1123Label(address.hostname).map((msg) => invalid(path.child('hostname'), address.hostname, msg)));
  if (address.nodeName !== undefined) {
    errors.push(...isDNS1123Subdomain(address.nodeName).map((msg) => invalid(path.child('nodeName'), address.nodeName, msg)));
  }
  errors.push(...validateNonSpecialIP(ip, path.child('ip')));
  return errors;
}

function validateEndpointPort(port: EndpointPort, requireName: boolean, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const name = port.name ?? '';
  if (requireName && name === '') errors.push(required(path.child('name')));
  else if (name !== '') errors.push(...isDNS1123Label(name).map((msg) => invalid(path.child('name'), name, msg)));
  const number = port.port ?? 0;
  if (!Number.isInteger(number) || number < 1 || number > 65535) errors.push(invalid(path.child('port'), number, 'must be between 1 and 65535, inclusive'));
  const protocol = port.protocol ?? '';
  if (protocol === '') errors.push(required(path.child('protocol')));
  else if (!supportedPortProtocols.includes(protocol)) errors.push(notSupported(path.child('protocol'), protocol, supportedPortProtocols));
  if (port.appProtocol !== undefined) errors.push(...validateQualifiedName(port.appProtocol, path.child('appProtocol')));
  return errors;
}

/** upstream's ValidateEndpoints without metadata (the store validates it). */
export function validateEndpoints(endpoints: Endpoints): FieldError[] {
  const errors: FieldError[] = [];
  (endpoints.subsets ?? []).forEach((subset, i) => {
    const path = FieldPath.root('subsets').index(i);
    if ((subset.addresses ?? []).length === 0 && (subset.notReadyAddresses ?? []).length === 0) {
      errors.push(required(path, 'must specify `addresses` or `notReadyAddresses`'));
    }
    (subset.addresses ?? []).forEach((a, j) => errors.push(...validateEndpointAddress(a, path.child('addresses').index(j))));
    (subset.notReadyAddresses ?? []).forEach((a, j) => errors.push(...validateEndpointAddress(a, path.child('notReadyAddresses').index(j))));
    const ports = subset.ports ?? [];
    ports.forEach((p, j) => errors.push(...validateEndpointPort(p, ports.length > 1, path.child('ports').index(j))));
  });
  return errors;
}

/** upstream's SetDefaults_EndpointPort: TCP. */
export function applyEndpointsDefaults(endpoints: Endpoints): void {
  for (const subset of endpoints.subsets ?? []) for (const port of subset.ports ?? []) port.protocol ||= 'TCP';
}
