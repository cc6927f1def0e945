/**
 * The leaves of managedFields' FieldsV1 trees as one shared object. Every field a manager owns is
 * an empty object in its entry's tree (`{"f:spec":{"f:renewTime":{}}}`): a Node's entries hold some
 * eighty of them, and a replica's watch cache keeps every current object decoded, so at 2,000 nodes
 * they were 202,000 of a replica's 1.2 million heap objects, each one marked by every major
 * collection. A decoded stored object's empty leaves are made this one frozen object instead.
 *
 * Contract: FieldsV1 trees are read, never changed in place (the field manager builds new trees
 * and shares the live object's entries between versions); an attempt to add a key to a shared leaf
 * throws rather than changes every object at once.
 */
import { isObject, type ManagedFieldsEntry } from '../api/types.ts';

/** The one empty field set of decoded objects' managedFields. */
export const emptyFieldSet: Readonly<Record<string, unknown>> = Object.freeze({});

/** Replaces, in place, every empty object in the entries' fieldsV1 trees by `emptyFieldSet`. */
export function shareEmptyFieldSets(entries: readonly ManagedFieldsEntry[]): void {
  for (const entry of entries) {
    if (isObject(entry) && isObject(entry.fieldsV1)) shareIn(entry.fieldsV1);
  }
}

function shareIn(tree: Record<string, unknown>): void {
  for (const key in tree) {
    const child = tree[key];
    if (!isObject(child) || child === emptyFieldSet) continue;
    if (isEmpty(child)) tree[key] = emptyFieldSet;
    else shareIn(child);
  }
}

function isEmpty(value: Record<string, unknown>): boolean {
  for (const _key in value) return false;
  return true;
}
