/**
 * Node's validation, as upstream's ValidateNode and ValidateNodeUpdate. Messages and field paths are
 * upstream's, quirks included: taints are reported under `metadata.taints`, and an update runs both
 * validations, so it reports a bad taint twice.
 */
import { FieldPath, duplicate, forbidden, invalid, notSupported, required, type FieldError } from '../../../../shared/api/field.ts';
import { append } from '../../../../shared/api/append.ts';
import { isConfigMapKey, isDNS1123Label, isDNS1123Subdomain, isValidLabelValue } from '../../../../shared/validation/names.ts';
import { parseCIDR, validateCIDR } from '../../../../shared/validation/network.ts';
import { validateQualifiedName } from '../../../../shared/validation/qualified-name.ts';
import { validateResourceQuantityValue } from '../../../../shared/validation/resource-quantity.ts';
import type { ConfigMapNodeConfigSource, Node, NodeConfigSource, Taint } from '../../../../shared/api/node.ts';

const taintEffects = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

function validateTaints(taints: readonly Taint[], path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Map<string, Set<string>>();
  taints.forEach((taint, i) => {
    const at = path.index(i);
    append(errors, validateQualifiedName(taint.key ?? '', at.child('key')));
    const valueProblems = isValidLabelValue(taint.value ?? '');
    if (valueProblems.length) errors.push(invalid(at.child('value'), taint.value ?? '', valueProblems.join(';')));
    const effect = taint.effect ?? '';
    if (!effect) errors.push(required(at.child('effect')));
    else if (!taintEffects.includes(effect)) errors.push(notSupported(at.child('effect'), effect, taintEffects));
    const keys = seen.get(effect) ?? new Set<string>();
    if (keys.has(taint.key ?? '')) {
      errors.push({ ...duplicate(at, taint), detail: 'taints must be unique by key and effect pair' });
      return;
    }
    keys.add(taint.key ?? '');
    seen.set(effect, keys);
  });
  return errors;
}

/** capacity and allocatable: paths are `status.capacity.<name>`. */
function validateNodeResources(node: Node): FieldError[] {
  const errors: FieldError[] = [];
  for (const list of ['capacity', 'allocatable'] as const) {
    for (const [name, raw] of Object.entries(node.status?.[list] ?? {})) {
      append(errors, validateResourceQuantityValue(name, raw, FieldPath.root('status').child(list, name)));
    }
  }
  return errors;
}

function validatePodCIDRs(cidrs: readonly string[]): FieldError[] {
  const path = FieldPath.root('spec').child('podCIDRs');
  const errors = cidrs.flatMap((cidr, i) => validateCIDR(path.index(i), cidr));
  if (cidrs.length < 2) return errors;
  const parsed = cidrs.map(parseCIDR);
  const bad = cidrs.find((_, i) => !parsed[i]);
  if (bad !== undefined) {
    errors.push({
      type: 'InternalError',
      field: path.toString(),
      value: null,
      detail: `invalid PodCIDRs. failed to check with dual stack with error:failed to parse cidr value:${JSON.stringify(bad)} with error:invalid CIDR address: ${bad}`,
    });
  }
  const families = new Set(parsed.map((p) => p?.family));
  const dualStack = bad === undefined && families.has(4) && families.has(6);
  if (!dualStack || cidrs.length > 2) errors.push(invalid(path, cidrs, 'may specify no more than one CIDR for each IP family'));
  const seen = new Set<string>();
  cidrs.forEach((cidr, i) => {
    if (seen.has(cidr)) errors.push(duplicate(path.index(i), cidr));
    seen.add(cidr);
  });
  return errors;
}

export function validateNode(node: Node): FieldError[] {
  // Upstream reports taints under `metadata.taints`, a path kept for compatibility.
  const errors = validateTaints(node.spec?.taints ?? [], FieldPath.root('metadata').child('taints'));
  append(errors, validateNodeResources(node));
  const cidrs = node.spec?.podCIDRs ?? [];
  if (cidrs.length) append(errors, validatePodCIDRs(cidrs));
  return errors;
}

/** Checks shared by the configMap reference in spec.configSource and status.config. */
function validateConfigMapSource(source: ConfigMapNodeConfigSource, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const checks: [keyof ConfigMapNodeConfigSource, (v: string) => string[]][] = [
    ['namespace', isDNS1123Label],
    ['name', isDNS1123Subdomain],
    ['kubeletConfigKey', isConfigMapKey],
  ];
  for (const [field, rule] of checks) {
    const value = source[field] ?? '';
    if (!value) errors.push(required(path.child(field), `${field} must be set`));
    else
      append(
        errors,
        rule(value).map((msg) => invalid(path.child(field), value, msg)),
      );
  }
  return errors;
}

/** In spec the reference names a config map; in status it pins the exact version (uid, resourceVersion). */
function validateConfigSource(source: NodeConfigSource, path: FieldPath, where: 'spec' | 'status'): FieldError[] {
  const errors: FieldError[] = [];
  const cm = source.configMap;
  if (cm) {
    const at = path.child('configMap');
    for (const field of ['uid', 'resourceVersion'] as const) {
      if (where === 'spec' && cm[field]) errors.push(forbidden(at.child(field), `${field} must not be set in spec`));
      if (where === 'status' && !cm[field]) errors.push(required(at.child(field), `${field} must be set in status`));
    }
    append(errors, validateConfigMapSource(cm, at));
  } else {
    errors.push(invalid(path, source, 'exactly one reference subfield must be non-nil'));
  }
  return errors;
}

const mayNotChange = (what: string): string => `node updates may not change ${what} except from "" to valid`;

export function validateNodeUpdate(node: Node, old: Node): FieldError[] {
  const errors = validateNodeResources(node);
  const addresses = new Set<string>();
  (node.status?.addresses ?? []).forEach((address, i) => {
    const key = JSON.stringify([address.type, address.address]);
    if (addresses.has(key)) errors.push(duplicate(FieldPath.root('status').child('addresses').index(i), address));
    addresses.add(key);
  });

  const spec = FieldPath.root('spec');
  const oldCIDRs = old.spec?.podCIDRs ?? [];
  const newCIDRs = node.spec?.podCIDRs ?? [];
  if (oldCIDRs.length) {
    if (oldCIDRs.length !== newCIDRs.length) errors.push(forbidden(spec.child('podCIDRs'), mayNotChange('podCIDR')));
    else for (const [i, cidr] of oldCIDRs.entries()) if (cidr !== newCIDRs[i]) errors.push(forbidden(spec.child('podCIDRs'), mayNotChange('podCIDR')));
  }
  const oldProvider = old.spec?.providerID ?? '';
  if (oldProvider && oldProvider !== (node.spec?.providerID ?? '')) errors.push(forbidden(spec.child('providerID'), mayNotChange('providerID')));

  if (node.spec?.configSource) append(errors, validateConfigSource(node.spec.configSource, spec.child('configSource'), 'spec'));
  const config = node.status?.config;
  if (config) {
    const at = FieldPath.root('status').child('config');
    for (const which of ['assigned', 'active', 'lastKnownGood'] as const) {
      const source = config[which];
      if (source) append(errors, validateConfigSource(source, at.child(which), 'status'));
    }
  }
  append(errors, validateTaints(node.spec?.taints ?? [], FieldPath.root('metadata').child('taints')));
  if ((node.spec?.externalID ?? '') !== (old.spec?.externalID ?? '')) errors.push(forbidden(spec.child('externalID'), 'may not be updated'));
  return errors;
}
