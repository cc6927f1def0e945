/**
 * How every backend keeps an object: JSON without `metadata.resourceVersion`, which a read fills in
 * from the key's mod revision. One codec, shared by etcd, the embedded backend and the in-memory
 * fake, so that they store and hand back exactly the same thing.
 */
import { isObject, type KubeObject } from '../../shared/api/types.ts';
import { shareEmptyFieldSets } from '../../shared/apply/empty-field-sets.ts';
import { runSteps, WorkCounter, type Steps } from '../../shared/apply/steps.ts';
import { TimeSlice } from '../../shared/apply/time-slice.ts';
import { parseJsonSteps, slicedParseMinLength } from '../../shared/codec/json-sliced.ts';
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
  return runSteps(decodeStoredObjectSteps(key, text, modRevision));
}

/**
 * decodeStoredObject as steps (shared/apply/steps.ts): a large value (up to etcd's 1.5 MiB, whose
 * one JSON.parse holds the loop for tens of milliseconds) is parsed in pieces, a small one in one call.
 */
export function* decodeStoredObjectSteps(key: string, text: string, modRevision: number): Steps<StoredValue> {
  let object: unknown;
  const small = text.length < slicedParseMinLength;
  try {
    // A small value in one native call, as most are: no nesting scan (what was stored passed the write path's).
    object = small ? JSON.parse(text) : yield* parseJsonSteps(text);
  } catch {
    throw new StorageError('Internal', key, `the value of ${key} is not JSON`);
  }
  if (!isObject(object) || !isObject(object.metadata)) throw new StorageError('Internal', key, `the value of ${key} is not an object`);
  const stored = object as KubeObject;
  // A large value's trees are left as parsed: walking them would hold the loop its parse did not.
  const entries: unknown = stored.metadata.managedFields;
  if (small && Array.isArray(entries)) shareEmptyFieldSets(entries);
  stored.metadata.resourceVersion = String(modRevision);
  return { object: stored, modRevision };
}

/** `value` as of a later revision (a deletion's): the same object under a new resourceVersion, copied, since objects handed out are shared. */
export function atRevision(value: StoredValue, revision: number): StoredValue {
  const { object } = value;
  return { object: { ...object, metadata: { ...object.metadata, resourceVersion: String(revision) } }, modRevision: revision };
}

/** A stored value as read, not yet decoded. */
export interface StoredText {
  key: string;
  text: string;
  modRevision: number;
}

/**
 * decodeStoredObject of every text, in order, in a time slice of its own: a large value is parsed in
 * pieces and a long list yields every few thousand values, so that no read holds the event loop for
 * long. A value that does not decode is reported to `onBadValue` and skipped; without it, it fails
 * the whole read.
 */
export function decodeStoredTextsYielding(texts: readonly StoredText[], onBadValue?: (err: unknown) => void): Promise<{ key: string; value: StoredValue }[]> {
  return new TimeSlice().run(decodeStoredTextsSteps(texts, onBadValue));
}

function* decodeStoredTextsSteps(texts: readonly StoredText[], onBadValue?: (err: unknown) => void): Steps<{ key: string; value: StoredValue }[]> {
  const out: { key: string; value: StoredValue }[] = [];
  const work = new WorkCounter();
  for (let i = 0; i < texts.length; i++) {
    const { key, text, modRevision } = texts[i]!;
    try {
      out.push({ key, value: yield* decodeStoredObjectSteps(key, text, modRevision) });
    } catch (err) {
      if (!onBadValue) throw err;
      onBadValue(err);
    }
    if (work.tick()) yield;
  }
  return out;
}
