/**
 * Checks shared by the storage.k8s.io kinds: upstream's ValidateCSIDriverName (core validation),
 * and semanticEqual, the equality to pass to core's validateImmutableField when the immutable
 * field is a struct or a list (also used by ClusterCIDR).
 */
import { invalid, required, tooLong, type FieldError, type FieldPath } from '../../../shared/api/field.ts';
import { isObject } from '../../../shared/api/types.ts';
import { isDNS1123Subdomain } from '../../../shared/validation/names.ts';

const csiDriverNameMaxLength = 63;

/**
 * A CSI driver name as CSINode drivers, VolumeAttachment attachers and CSI volume sources carry it:
 * required, at most 63 bytes, and a DNS subdomain once lower-cased. Upstream reports every failing
 * rule, so an empty name is both required and invalid.
 */
export function validateCSIDriverName(name: string | undefined, path: FieldPath): FieldError[] {
  const value = name ?? '';
  const errs: FieldError[] = [];
  if (value === '') errs.push(required(path));
  if (Buffer.byteLength(value) > csiDriverNameMaxLength) errs.push(tooLong(path, value, csiDriverNameMaxLength));
  for (const msg of isDNS1123Subdomain(value.toLowerCase())) errs.push(invalid(path, value, msg));
  return errs;
}

const isAbsent = (v: unknown): boolean => v === undefined || v === null || (Array.isArray(v) && v.length === 0);

/**
 * Equality as upstream's semantic DeepEqual sees decoded structs, for immutability checks of
 * structured fields: a missing field, null and an empty list are the same value (Go decodes all
 * three to a nil or empty slice). Empty objects stay distinct from missing ones, because a nil
 * struct pointer differs from an empty struct (a CSIStorageCapacity nodeTopology of {} selects all
 * nodes, a missing one none).
 */
export function semanticEqual(a: unknown, b: unknown): boolean {
  if (isAbsent(a) || isAbsent(b)) return isAbsent(a) && isAbsent(b);
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => semanticEqual(item, b[i]));
  }
  if (isObject(a) || isObject(b)) {
    if (!isObject(a) || !isObject(b)) return false;
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
      if (!semanticEqual(a[key], b[key])) return false;
    }
    return true;
  }
  return a === b;
}
