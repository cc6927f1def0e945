/**
 * How every backend keeps an object: JSON without `metadata.resourceVersion`, which a read fills in
 * from the key's mod revision. One codec, shared by etcd, the embedded backend and the in-memory
 * fake, so that they store and hand back exactly the same thing.
 */
import { isObject, type KubeObject } from '../../shared/api/types.ts';
import { TimeSlice } from '../../shared/apply/time-slice.ts';
import { stringifyJsonSteps } from '../../shared/codec/json-stringify-sliced.ts';
import { StorageError } from './etcd/errors.ts';
import type { StoredValue } from './etcd/store.ts';

/** The stored text of an object. */
export function encodeStoredObject(obj: KubeObject): string {
  return JSON.stringify(storedForm(obj));
}

/**
 * encodeStoredObject, letting the event loop run while a large object (a 3 MiB Node) is written:
 * its own slice, so that the encoding alone never holds the loop for much more than the slice's
 * budget. A small object is one native call, as in encodeStoredObject.
 */
export function encodeStoredObjectYielding(obj: KubeObject): Promise<string> {
  return new TimeSlice().run(stringifyJsonSteps(storedForm(obj)));
}

function storedForm(obj: KubeObject): KubeObject {
  const { resourceVersion: _dropped, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}

/** The object stored under `key` at `modRevision`; a value that is not one (foreign or corrupt data) is a StorageError. */
export function decodeStoredObject(key: string, text: string, modRevision: number): StoredValue {
  let object: unknown;
  try {
    object = JSON.parse(text);
  } catch {
    throw new StorageError('Internal', key, `the value of ${key} is not JSON`);
  }
  if (!isObject(object) || !isObject(object.metadata)) throw new StorageError('Internal', key, `the value of ${key} is not an object`);
  const stored = object as KubeObject;
  stored.metadata.resourceVersion = String(modRevision);
  return { object: stored, modRevision };
}
