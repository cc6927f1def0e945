/**
 * Upstream's ValidateCSIDriverName (core validation): the name of a CSI driver as CSINode drivers,
 * VolumeAttachment attachers and CSI persistent volume sources carry it.
 */
import { invalid, required, tooLong, type FieldError, type FieldPath } from '../api/field.ts';
import { isDNS1123Subdomain } from './names.ts';

const csiDriverNameMaxLength = 63;

/**
 * Required, at most 63 bytes, and a DNS subdomain once lower-cased. Upstream reports every failing
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
