/**
 * Upstream's ValidateQualifiedName (apimachinery validation): a label key, taint key, topology key,
 * selector key or finalizer name as field errors, one Invalid error per problem at the field itself.
 */
import { invalid, type FieldError, type FieldPath } from '../api/field.ts';
import { isQualifiedName } from './names.ts';

export function validateQualifiedName(value: string, path: FieldPath): FieldError[] {
  return isQualifiedName(value).map((msg) => invalid(path, value, msg));
}
