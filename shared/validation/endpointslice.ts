/**
 * Validation of discovery.k8s.io/v1 EndpointSlice with upstream's rules, messages and field paths
 * (pkg/apis/discovery/validation), and its defaults (port name "" and protocol TCP). The
 * kubernetes.io/service-name label is an ordinary label to validation, as upstream's.
 */
import { FieldPath, duplicate, invalid, notSupported, required, tooMany, type FieldError } from '../api/field.ts';
import type { EndpointSlice } from '../api/endpointslice.ts';
import { validateNonSpecialIP } from './endpoints.ts';
import { isDNS1123Label, isDNS1123Subdomain, isValidLabelValue } from './names.ts';
import { ipFamily } from './network.ts';
import { validateLabels } from './objectmeta.ts';
import { validateQualifiedName } from './qualified-name.ts';

const supportedAddressTypes = ['FQDN', 'IPv4', 'IPv6'];
const supportedPortProtocols = ['SCTP', 'TCP', 'UDP'];
const maxTopologyLabels = 16;
const maxAddresses = 100;
const maxPorts = 20000;
const maxEndpoints = 1000;
const maxZoneHints = 8;

function validateAddress(addressType: string, address: string, path: FieldPath): FieldError[] {
  if (addressType === 'IPv4') {
    if (ipFamily(address) !== 4) return [invalid(path, address, 'must be a valid IPv4 address')];
    return validateNonSpecialIP(address, path);
  }
  if (addressType === 'IPv6') {
    if (ipFamily(address) !== 6) return [invalid(path, address, 'must be a valid IPv6 address')];
    return validateNonSpecialIP(address, path);
  }
  if (addressType === 'FQDN') {
    const problems = isDNS1123Subdomain(address);
    if (address.split('.').length < 2) problems.unshift('should be a domain with at least two segments separated by dots');
    return problems.map((msg) => invalid(path, address, msg));
  }
  return [];
}

function validateEndpoints(slice: EndpointSlice): FieldError[] {
  const path = FieldPath.root('endpoints');
  const endpoints = slice.endpoints ?? [];
  if (endpoints.length > maxEndpoints) return [tooMany(path, endpoints.length, maxEndpoints)];
  const errors: FieldError[] = [];
  endpoints.forEach((endpoint, i) => {
    const at = path.index(i);
    const addressPath = at.child('addresses');
    const addresses = endpoint.addresses ?? [];
    if (addresses.length === 0) errors.push(required(addressPath, 'must contain at least 1 address'));
    else if (addresses.length > maxAddresses) errors.push(tooMany(addressPath, addresses.length, maxAddresses));
    addresses.forEach((address, j) => errors.push(...validateAddress(slice.addressType ?? '', address, addressPath.index(j))));
    if (endpoint.nodeName !== undefined) {
      errors.push(...isDNS1123Subdomain(endpoint.nodeName).map((msg) => invalid(at.child('nodeName'), endpoint.nodeName, msg)));
    }
    const topologyPath = at.child('deprecatedTopology');
    const topology = endpoint.deprecatedTopology ?? {};
    if (Object.keys(topology).length > maxTopologyLabels) errors.push(tooMany(topologyPath, Object.keys(topology).length, maxTopologyLabels));
    errors.push(...validateLabels(topology, topologyPath));
    if (Object.hasOwn(topology, 'topology.kubernetes.io/zone')) {
      errors.push({ type: 'InternalError', field: topologyPath.key('topology.kubernetes.io/zone').toString(), detail: 'reserved key, use zone instead' });
    }
    if (endpoint.hostname !== undefined) errors.push(...isDNS1123Label(endpoint.hostname).map((msg) => invalid(at.child('hostname'), endpoint.hostname, msg)));
    const zones = endpoint.hints?.forZones ?? [];
    const zonesPath = at.child('hints', 'forZones');
    if (zones.length > maxZoneHints) errors.push(tooMany(zonesPath, zones.length, maxZoneHints));
    else {
      const seen = new Set<string>();
      zones.forEach((zone, j) => {
        const name = zone.name ?? '';
        const namePath = zonesPath.index(j).child('name');
        if (seen.has(name)) errors.push(duplicate(namePath, name));
        else seen.add(name);
        errors.push(...isValidLabelValue(name).map((msg) => invalid(namePath, name, msg)));
      });
    }
  });
  return errors;
}

function validatePorts(slice: EndpointSlice): FieldError[] {
  const path = FieldPath.root('ports');
  const ports = slice.ports ?? [];
  if (ports.length > maxPorts) return [tooMany(path, ports.length, maxPorts)];
  const errors: FieldError[] = [];
  const names = new Set<string>();
  ports.forEach((port, i) => {
    const at = path.index(i);
    const name = port.name ?? '';
    if (name.length > 0) errors.push(...isDNS1123Label(name).map((msg) => invalid(at.child('name'), name, msg)));
    if (names.has(name)) errors.push(duplicate(at.child('name'), name));
    else names.add(name);
    if (port.protocol === undefined) errors.push(required(at.child('protocol')));
    else if (!supportedPortProtocols.includes(port.protocol)) errors.push(notSupported(at.child('protocol'), port.protocol, supportedPortProtocols));
    if (port.appProtocol !== undefined) errors.push(...validateQualifiedName(port.appProtocol, at.child('appProtocol')));
  });
  return errors;
}

function validateAddressType(addressType: string | undefined): FieldError[] {
  const path = FieldPath.root('addressType');
  if (!addressType) return [required(path)];
  if (!supportedAddressTypes.includes(addressType)) return [notSupported(path, addressType, supportedAddressTypes)];
  return [];
}

/** upstream's ValidateEndpointSlice without metadata (the store validates it). */
export function validateEndpointSlice(slice: EndpointSlice): FieldError[] {
  return [...validateAddressType(slice.addressType), ...validateEndpoints(slice), ...validatePorts(slice)];
}

/** upstream's ValidateEndpointSliceUpdate: addressType cannot change. */
export function validateEndpointSliceUpdate(slice: EndpointSlice, old: EndpointSlice): FieldError[] {
  const errors = validateEndpointSlice(slice);
  if (slice.addressType !== old.addressType) errors.unshift(invalid(FieldPath.root('addressType'), slice.addressType ?? '', 'field is immutable'));
  return errors;
}

/** discovery/v1 defaults: a port's name is "" and its protocol TCP. */
export function applyEndpointSliceDefaults(slice: EndpointSlice): void {
  for (const port of slice.ports ?? []) {
    port.name ??= '';
    port.protocol ??= 'TCP';
  }
}
