/**
 * Upstream's ValidateResourceQuantityValue (core validation): the amount of one resource in a
 * ResourceList (a node's capacity and allocatable; pods' and quotas' lists alike) is non-negative,
 * and whole for resources counted in units (object counts, extended resources).
 */
import { invalid, type FieldError, type FieldPath } from '../api/field.ts';
import { parseQuantity } from '../api/quantity.ts';
import { isQualifiedName } from './names.ts';

const integerResources = new Set([
  'pods',
  'resourcequotas',
  'services',
  'replicationcontrollers',
  'secrets',
  'configmaps',
  'persistentvolumeclaims',
  'services.nodeports',
  'services.loadbalancers',
]);

/** upstream's helper.IsIntegerResourceName: object counts, and extended resources (`example.com/gpu`). */
export function isIntegerResourceName(name: string): boolean {
  if (integerResources.has(name)) return true;
  const native = !name.includes('/') || name.includes('kubernetes.io/');
  return !native && !name.startsWith('requests.') && isQualifiedName(`requests.${name}`).length === 0;
}

/** The amount `raw` of resource `name` at `path`; a malformed quantity is left to decoding, which rejects it. */
export function validateResourceQuantityValue(name: string, raw: unknown, path: FieldPath): FieldError[] {
  const value = parseQuantity(raw);
  if (value === null) return [];
  const errors: FieldError[] = [];
  if (value < 0) errors.push(invalid(path, String(raw), 'must be greater than or equal to 0'));
  if (isIntegerResourceName(name) && !Number.isInteger(value)) errors.push(invalid(path, String(raw), 'must be an integer'));
  return errors;
}
