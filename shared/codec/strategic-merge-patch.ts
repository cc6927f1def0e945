/**
 * Strategic merge patch (`application/strategic-merge-patch+json`) as kube-apiserver applies it
 * (apimachinery's strategicpatch with the server's options: parallel deletion lists are merged and
 * nulls that match nothing are dropped). Client-side `kubectl apply` and `kubectl patch` send it.
 *
 * Maps merge recursively and null deletes, as in a JSON merge patch. A list merges only where its
 * schema says `x-kubernetes-patch-strategy: merge`: lists of objects by the field's
 * `x-kubernetes-patch-merge-key`, lists of scalars as sets; every other list is replaced. Directives:
 *   `$patch: replace | delete` in a map, `$patch: replace | delete` in an item of a merged list,
 *   `$retainKeys: [...]` (clears the fields of the original the list does not name),
 *   `$deleteFromPrimitiveList/<list>: [...]` and `$setElementOrder/<list>: [...]`.
 *
 * The order of a merged list follows upstream exactly (patch items in the patch's or
 * `$setElementOrder`'s order, interleaved with the server-only items by their order in the live
 * list), because clients see it. Malformed patches fail with upstream's messages and statuses: the
 * four format errors are 400, lists of lists 422, and every other error of the package reaches the
 * client as a 500 Status without a reason, as upstream's interpretStrategicMergePatchError leaves it.
 * Messages that print values use Go's `%v` formatting of the decoded JSON.
 */
import { StatusError, badRequest, unprocessableEntity } from '../api/errors.ts';
import type { Schema } from '../api/schema.ts';
import { deepCopy, isObject } from '../api/types.ts';

type JsonMap = Record<string, unknown>;

const directiveMarker = '$patch';
const retainKeysDirective = '$retainKeys';
const deleteFromPrimitiveListPrefix = '$deleteFromPrimitiveList';
const setElementOrderPrefix = '$setElementOrder';

/**
 * Applies `patch` to a copy of `original` (neither is modified) by the patch strategies and merge
 * keys of `schema`, the kind's top-level schema. Throws a StatusError for a malformed patch.
 */
export function applyStrategicMergePatch(original: unknown, patch: unknown, schema: Schema): unknown {
  // Go decodes the body into a map: JSON null leaves it empty, any other non-object is an error.
  if (patch === null) return deepCopy(original);
  if (!isObject(patch)) throw badRequest(`json: cannot unmarshal ${jsonTypeWord(patch)} into Go value of type map[string]interface {}`);
  const target = isObject(original) ? deepCopy(original) : {};
  const kind = typeof target.kind === 'string' && target.kind !== '' ? target.kind : 'Object';
  try {
    return mergeMap(target, deepCopy(patch), { schema, typeName: kind, pointer: false, top: true });
  } catch (err) {
    if (err instanceof PatchError) throw err.toStatus();
    throw err;
  }
}

// ---------------------------------------------------------------------------------------------
// Errors.

/** How upstream's interpretStrategicMergePatchError answers an error of the package. */
type Answer = 'BadRequest' | 'Unprocessable' | 'Unknown';

class PatchError extends Error {
  constructor(
    message: string,
    readonly answer: Answer,
  ) {
    super(message);
    this.name = 'PatchError';
  }

  toStatus(): StatusError {
    switch (this.answer) {
      case 'BadRequest':
        return badRequest(this.message);
      case 'Unprocessable':
        // NewGenericServerResponse(422, ...) keeps its fixed message and drops the error's text.
        return unprocessableEntity('the server rejected our request due to an error in our request');
      case 'Unknown':
        // Upstream returns these plain Go errors as a 500 without a reason; every one of them is
        // caused by the patch, so corral answers 400 with upstream's text.
        return badRequest(this.message);
    }
  }
}

const errBadPatchFormatForPrimitiveList = (): PatchError => new PatchError('invalid patch format of primitive list', 'BadRequest');
const errBadPatchFormatForRetainKeys = (): PatchError => new PatchError('invalid patch format of retainKeys', 'BadRequest');
const errBadPatchFormatForSetElementOrderList = (): PatchError => new PatchError('invalid patch format of setElementOrder list', 'BadRequest');
const errNoListOfLists = (): PatchError => new PatchError('lists of lists are not supported', 'Unprocessable');
const failure = (message: string): PatchError => new PatchError(message, 'Unknown');
const errNoMergeKey = (m: JsonMap, key: string): PatchError => failure(`map: ${goFormat(m, 'v')} does not contain declared merge key: ${key}`);
const errBadPatchType = (directive: unknown, m: JsonMap): PatchError => failure(`unknown patch type: ${goFormat(directive, 's')} in map: ${goFormat(m, 'v')}`);
const goMapType = 'map[string]interface {}';
const goSliceType = '[]interface {}';
const errBadArgType = (expected: string, actual: unknown): PatchError =>
  failure(`expected a ${expected}, but received a ${actual === null ? '%!s(<nil>)' : goTypeOf(actual)}`);
/**
 * What Go panics on (comparing or hashing a map or a list, reading the type of a null item);
 * upstream answers a 500 for the recovered panic. The patch caused it, so corral answers 400.
 */
const panicked = (): PatchError => new PatchError('invalid patch: lists and objects cannot be compared, and list items cannot be null', 'BadRequest');

// ---------------------------------------------------------------------------------------------
// Go's view of decoded JSON values.

/** The Go type of a JSON value decoded with integers kept as int64; null has none. */
type GoType = 'string' | 'bool' | 'int64' | 'float64' | typeof goMapType | typeof goSliceType | 'nil';

function goTypeOf(value: unknown): GoType {
  if (value === null || value === undefined) return 'nil';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int64' : 'float64';
  return Array.isArray(value) ? goSliceType : goMapType;
}

function jsonTypeWord(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  return typeof value;
}

/** Go's `==` on two interface values: false across types, a panic for maps and slices. */
function goEqual(a: unknown, b: unknown): boolean {
  const type = goTypeOf(a);
  if (type !== goTypeOf(b)) return false;
  if (type === goMapType || type === goSliceType) throw panicked();
  return type === 'nil' || a === b;
}

/** The identity of a value as a Go map key; maps and slices cannot be keys. */
function goHashKey(value: unknown): string {
  const type = goTypeOf(value);
  if (type === goMapType || type === goSliceType) throw panicked();
  return `${type}:${String(value)}`;
}

/** Go's `%v` (and `%s`) of a decoded JSON value: `map[a:1 b:[x y]]`, maps with sorted keys. */
function goFormat(value: unknown, verb: 'v' | 's'): string {
  if (Array.isArray(value)) return `[${value.map((v) => goFormat(v, verb)).join(' ')}]`;
  if (isObject(value)) {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${k}:${goFormat(value[k], verb)}`);
    return `map[${entries.join(' ')}]`;
  }
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return verb === 's' ? '%!s(<nil>)' : '<nil>';
  const plain = typeof value === 'number' ? goNumber(value) : String(value);
  return verb === 'v' ? plain : `%!s(${goTypeOf(value)}=${plain})`;
}

/** An int64 in decimal; a float64 as Go's `%v` (shortest digits, exponent from 1e+06 and below 1e-04). */
function goNumber(n: number): string {
  if (Number.isInteger(n)) return String(n);
  const [mantissa = '', exponentText = '0'] = n.toExponential().split('e');
  const exponent = Number(exponentText);
  if (exponent >= -4 && exponent < 6) return String(n);
  const digits = String(Math.abs(exponent)).padStart(2, '0');
  return `${mantissa}e${exponent < 0 ? '-' : '+'}${digits}`;
}

// ---------------------------------------------------------------------------------------------
// The schema as upstream's struct-tag lookup sees it.

/** A position in the schema: the Go type a JSON map or list item decodes into. */
interface Meta {
  schema: Schema;
  /** The Go type's name, for the one message that prints it (best effort below the kind). */
  typeName: string;
  /** Go holds it in a pointer (corral's protobuf marker `optional`): its kind then reads `ptr`. */
  pointer: boolean;
  /** The kind's top level, whose `spec` and `status` are `<Kind>Spec` and `<Kind>Status`. */
  top?: boolean;
}

interface FieldMeta {
  meta: Meta;
  strategies: string[];
  mergeKey: string;
}

/** reflect.Kind of the Go type behind a schema, as upstream's messages print it. */
function goKind(schema: Schema, pointer: boolean): string {
  if (pointer) return 'ptr';
  if (schema['x-corral-type'] || schema['x-kubernetes-int-or-string']) return 'struct';
  if (schema.type === 'array' || schema.format === 'byte') return 'slice';
  if (schema.type === 'object' || schema['x-kubernetes-preserve-unknown-fields']) return schema.additionalProperties ? 'map' : 'struct';
  if (schema.type === 'string') return 'string';
  if (schema.type === 'boolean') return 'bool';
  if (schema.type === 'number') return 'float64';
  if (schema.type === 'integer') return schema.format === 'int32' ? 'int32' : 'int64';
  return 'struct';
}

function childTypeName(parent: Meta, key: string, schema: Schema): string {
  const wellKnown = schema['x-corral-type'];
  if (wellKnown) return wellKnown;
  if (key === 'metadata') return 'ObjectMeta';
  const capitalized = key.charAt(0).toUpperCase() + key.slice(1);
  return parent.top ? `${parent.typeName}${capitalized}` : capitalized;
}

/** The field `key` of the struct at `meta` (Go's JSON field match: exact, else case-insensitive). */
function lookupField(meta: Meta, key: string): FieldMeta {
  const kind = goKind(meta.schema, false);
  if (kind !== 'struct') throw failure(`merging an object in json but data type is not struct, instead is: ${kind}`);
  const properties = meta.schema.properties ?? {};
  let name: string | undefined = Object.hasOwn(properties, key) ? key : undefined;
  name ??= Object.keys(properties).find((p) => p.toLowerCase() === key.toLowerCase());
  const field = name === undefined ? undefined : properties[name];
  if (!field || name === undefined) throw failure(`unable to find api field in struct ${meta.typeName} for the json field ${JSON.stringify(key)}`);
  return {
    meta: { schema: field, typeName: childTypeName(meta, name, field), pointer: field['x-corral-protobuf']?.optional === true },
    strategies: (field['x-kubernetes-patch-strategy'] ?? '').split(','),
    mergeKey: field['x-kubernetes-patch-merge-key'] ?? '',
  };
}

/** The list field `key` of the struct at `meta`, described by its items. */
function lookupListField(meta: Meta, key: string): FieldMeta {
  const field = lookupField(meta, key);
  const list = field.meta.schema;
  if (list.type === 'array') {
    const items = list.items ?? {};
    if (items.type === 'array') throw failure('unexpected slice of slice');
    return { ...field, meta: { schema: items, typeName: field.meta.typeName, pointer: false } };
  }
  // Upstream takes a pointer to a non-list as the list's item type, and reports any other by its parent's kind.
  if (field.meta.pointer) return { ...field, meta: { ...field.meta, pointer: false } };
  throw failure(`expected slice or array type, but got: ${goKind(meta.schema, meta.pointer)}`);
}

/** The field's strategy besides retainKeys (which a `$retainKeys` directive carries out). */
function listOrMapStrategy(strategies: readonly string[]): string {
  if (strategies.length === 1) return strategies[0] === 'retainKeys' ? '' : (strategies[0] ?? '');
  if (strategies.length === 2) {
    if (strategies[0] === 'retainKeys') return strategies[1] ?? '';
    if (strategies[1] === 'retainKeys') return strategies[0] ?? '';
  }
  if (strategies.length === 0) return '';
  throw failure(`unexpected patch strategy: [${strategies.join(' ')}]`);
}

// ---------------------------------------------------------------------------------------------
// Maps.

/** Merges `patch` into `original` (both mutated, as upstream does) and returns the result. */
function mergeMap(original: JsonMap, patch: JsonMap, meta: Meta): JsonMap {
  if (Object.hasOwn(patch, directiveMarker)) {
    const directive = patch[directiveMarker];
    if (directive === 'replace') {
      delete patch[directiveMarker];
      return patch;
    }
    if (directive === 'delete') return {};
    throw errBadPatchType(directive, patch);
  }
  applyRetainKeys(original, patch);
  mergeOrderedLists(original, patch, meta);

  for (const patchKey of Object.keys(patch)) {
    if (!Object.hasOwn(patch, patchKey)) continue;
    const patchValue = patch[patchKey];
    let key = patchKey;
    let isDeleteList = false;
    if (patchKey.startsWith(deleteFromPrimitiveListPrefix)) {
      key = extractKey(patchKey, deleteFromPrimitiveListPrefix);
      isDeleteList = true;
    }
    if (patchValue === null) {
      delete original[key];
      continue;
    }
    const originalType = Object.hasOwn(original, key) ? goTypeOf(original[key]) : undefined;
    if (originalType === undefined || originalType !== goTypeOf(patchValue)) {
      // Absent from the original, or of another type: the patch's value (its nulls and $patch maps
      // dropped) replaces it. A deletion list never adds anything.
      if (!isDeleteList) {
        discardNullValues(patchValue);
        const [value, keep] = removeDirectives(patchValue);
        if (keep) put(original, key, value);
        else delete original[key];
      }
      continue;
    }
    if (originalType === goMapType) {
      const field = lookupField(meta, key);
      const strategy = listOrMapStrategy(field.strategies);
      put(original, key, strategy === 'replace' ? patchValue : mergeMap(original[key] as JsonMap, patchValue as JsonMap, field.meta));
    } else if (originalType === goSliceType) {
      const field = lookupListField(meta, key);
      const strategy = listOrMapStrategy(field.strategies);
      put(original, key, mergeListField(original[key] as unknown[], patchValue as unknown[], field.meta, strategy, field.mergeKey, isDeleteList));
    } else {
      put(original, key, patchValue);
    }
  }
  return original;
}

/** Sets a field as an own property, so that a key such as `__proto__` stays data. */
function put(target: JsonMap, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

/** The list name after `<prefix>/`; a directive key without it is a malformed patch. */
function extractKey(key: string, prefix: typeof deleteFromPrimitiveListPrefix | typeof setElementOrderPrefix): string {
  const slash = key.indexOf('/');
  if (slash < 0 || key.slice(0, slash) !== prefix) {
    throw prefix === deleteFromPrimitiveListPrefix ? errBadPatchFormatForPrimitiveList() : errBadPatchFormatForSetElementOrderList();
  }
  return key.slice(slash + 1);
}

/**
 * `$retainKeys`: every field the patch sets (besides nulls and list directives) must be named, and
 * fields of the original it does not name are cleared.
 */
function applyRetainKeys(original: JsonMap, patch: JsonMap): void {
  if (!Object.hasOwn(patch, retainKeysDirective)) return;
  const retain = patch[retainKeysDirective];
  delete patch[retainKeysDirective];
  if (!Array.isArray(retain)) throw errBadPatchFormatForRetainKeys();
  const names = new Set(retain.map(goHashKey));
  for (const [key, value] of Object.entries(patch)) {
    if (value === null || key.startsWith(deleteFromPrimitiveListPrefix) || key.startsWith(setElementOrderPrefix)) continue;
    if (!names.has(goHashKey(key))) throw errBadPatchFormatForRetainKeys();
  }
  for (const key of Object.keys(original)) if (!names.has(goHashKey(key))) delete original[key];
}

/** Drops null map values everywhere below `value` (nulls that match nothing in the original). */
function discardNullValues(value: unknown): void {
  if (Array.isArray(value)) {
    for (const item of value) discardNullValues(item);
  } else if (isObject(value)) {
    for (const [key, v] of Object.entries(value)) {
      if (v === null) delete value[key];
      else discardNullValues(v);
    }
  }
}

/** Removes every map holding `$patch` (and list items that are one); false when `value` is one. */
function removeDirectives(value: unknown): [unknown, boolean] {
  if (Array.isArray(value)) {
    const kept: unknown[] = [];
    for (const item of value) {
      const [v, keep] = removeDirectives(item);
      if (keep) kept.push(v);
    }
    return [kept, true];
  }
  if (isObject(value)) {
    if (Object.hasOwn(value, directiveMarker)) return [null, false];
    for (const [key, v] of Object.entries(value)) {
      const [nv, keep] = removeDirectives(v);
      if (keep) put(value, key, nv);
      else delete value[key];
    }
  }
  return [value, true];
}

// ---------------------------------------------------------------------------------------------
// Lists.

/**
 * A list field present in both: merged by its strategy (or as a deletion list), else replaced.
 * `shared` is the live list as the caller keeps seeing it (see SharedList).
 */
function mergeListField(
  original: unknown[],
  patch: unknown[],
  items: Meta,
  strategy: string,
  mergeKey: string,
  isDeleteList: boolean,
  shared?: SharedList,
): unknown[] {
  if (strategy === 'merge' || isDeleteList) return mergeList(original, patch, items, mergeKey, isDeleteList, shared ?? new SharedList(original));
  return patch;
}

/**
 * A list as a Go slice over an array other holders share. Upstream deletes list items with
 * `append(s[:i], s[i+1:]...)` and then appends new items to the shortened slice, both within the
 * original array; whoever still holds the original slice (the `$setElementOrder` step, which orders
 * the merged list by it) sees the items shifted left and the freed slots taken by the new items.
 */
class SharedList {
  readonly cells: unknown[];
  /** The caller's length; cells past it exist only for this slice. */
  readonly visible: number;
  length: number;

  constructor(items: readonly unknown[]) {
    this.cells = [...items];
    this.visible = items.length;
    this.length = items.length;
  }

  items(): unknown[] {
    return this.cells.slice(0, this.length);
  }

  /** What the caller's slice shows now. */
  callerView(): unknown[] {
    return this.cells.slice(0, this.visible);
  }

  removeAt(index: number): void {
    this.cells.copyWithin(index, index + 1, this.length);
    this.length--;
  }

  append(item: unknown): void {
    this.cells[this.length++] = item;
  }
}

/** The Go type all items of `lists` share; mixed items and lists of lists are errors. */
function elementType(lists: readonly (readonly unknown[])[]): GoType {
  let previous: GoType | undefined;
  for (const list of lists) {
    for (const item of list) {
      const type = goTypeOf(item);
      if (previous === undefined) {
        // Go reads the kind of the first item's type; null has no type to read.
        if (type === 'nil') throw panicked();
        if (type === goSliceType) throw errNoListOfLists();
        previous = type;
      } else if (type !== previous) {
        throw failure(`list element types are not identical: [${lists.map((l) => goFormat(l, 'v')).join(' ')}]`);
      }
    }
  }
  if (previous === undefined) throw failure('no elements in any of the given slices');
  return previous;
}

function mergeList(original: unknown[], patch: unknown[], items: Meta, mergeKey: string, isDeleteList: boolean, shared: SharedList): unknown[] {
  if (original.length === 0 && patch.length === 0) return original;
  const type = elementType([original, patch]);
  let base: unknown[];
  let order: unknown[];
  let merged: unknown[];
  if (type !== goMapType) {
    if (isDeleteList) {
      const doomed = new Set(patch.map(goHashKey));
      return original.filter((v) => !doomed.has(goHashKey(v)));
    }
    [base, order] = [original, patch];
    merged = dedupeScalars([...original, ...patch]);
  } else {
    if (mergeKey === '') throw failure(`cannot merge lists without merge key for ${goKind(items.schema, items.pointer)}`);
    const [target, plain] = applyListItemDirectives(shared, patch as JsonMap[], mergeKey);
    [base, order] = [target.items(), plain];
    merged = mergeListItems(target, plain, mergeKey, items);
  }
  const [patchItems, serverOnly] = mergeKey === '' ? partitionScalars(merged, order) : partitionMaps(merged, order, mergeKey);
  return normalizeOrder(patchItems, serverOnly, order, base, mergeKey, type);
}

function dedupeScalars(list: readonly unknown[]): unknown[] {
  const seen = new Set<string>();
  return list.filter((v) => {
    const key = goHashKey(v);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * Items of a merged list holding `$patch`: `delete` removes the original items with its key,
 * `replace` makes the patch's other items the whole list. Returns the list to merge into and the
 * patch's plain items.
 */
function applyListItemDirectives(original: SharedList, patch: readonly JsonMap[], mergeKey: string): [SharedList, JsonMap[]] {
  const plain: JsonMap[] = [];
  let replace = false;
  for (const item of patch) {
    if (!Object.hasOwn(item, directiveMarker)) {
      plain.push(item);
      continue;
    }
    const directive = item[directiveMarker];
    if (directive === 'delete') {
      if (!Object.hasOwn(item, mergeKey)) throw errNoMergeKey(item, mergeKey);
      for (let at = findByKey(original.items(), mergeKey, item[mergeKey]); at >= 0; at = findByKey(original.items(), mergeKey, item[mergeKey])) {
        original.removeAt(at);
      }
    } else if (directive === 'replace') {
      replace = true;
    } else if (directive === 'merge') {
      throw failure('merging lists cannot yet be specified in the patch');
    } else {
      throw errBadPatchType(directive, item);
    }
  }
  return replace ? [new SharedList(plain), []] : [original, plain];
}

/** Index of the first map in `list` whose `key` equals `value`, -1 if none. */
function findByKey(list: readonly unknown[], key: string, value: unknown): number {
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    if (!isObject(item)) throw failure(`value for key ${i} is not a map`);
    if (Object.hasOwn(item, key) && goEqual(item[key], value)) return i;
  }
  return -1;
}

/** Each patch item merges into the item of `target` with its key, or is appended as it is. */
function mergeListItems(target: SharedList, patch: readonly JsonMap[], mergeKey: string, items: Meta): unknown[] {
  for (const item of patch) {
    if (!Object.hasOwn(item, mergeKey)) throw errNoMergeKey(item, mergeKey);
    const at = findByKey(target.items(), mergeKey, item[mergeKey]);
    if (at >= 0) target.cells[at] = mergeMap(target.cells[at] as JsonMap, item, items);
    else target.append(item);
  }
  return target.items();
}

/** [items also in `by`, the others], each in `list`'s order. */
function partitionScalars(list: readonly unknown[], by: readonly unknown[]): [unknown[], unknown[]] {
  const present = new Set(by.map(goHashKey));
  const inBy: unknown[] = [];
  const others: unknown[] = [];
  for (const v of list) (present.has(goHashKey(v)) ? inBy : others).push(v);
  return [inBy, others];
}

function partitionMaps(list: readonly unknown[], by: readonly unknown[], mergeKey: string): [unknown[], unknown[]] {
  const inBy: unknown[] = [];
  const others: unknown[] = [];
  for (const v of list) {
    if (!isObject(v)) throw errBadArgType(goMapType, v);
    if (!Object.hasOwn(v, mergeKey)) throw errNoMergeKey(v, mergeKey);
    (findByKey(by, mergeKey, v[mergeKey]) >= 0 ? inBy : others).push(v);
  }
  return [inBy, others];
}

/** Position of `value` in `list`: by merge key value for maps, by value otherwise. */
function indexIn(list: readonly unknown[], value: unknown, mergeKey: string, type: GoType): number {
  const identity = (item: unknown): unknown => (type === goMapType ? (isObject(item) ? (item[mergeKey] ?? null) : null) : item);
  const wanted = identity(value);
  return list.findIndex((item) => goEqual(identity(item), wanted));
}

/**
 * The final order of a merged list: the patch's items sorted by `patchOrder`, the server-only items
 * by `serverOrder`, then interleaved so that each server-only item stays before the patch items
 * that follow it in the live list.
 */
function normalizeOrder(
  patchItems: unknown[],
  serverOnly: unknown[],
  patchOrder: readonly unknown[],
  serverOrder: readonly unknown[],
  mergeKey: string,
  type: GoType,
): unknown[] {
  const sortedPatch = sortByOrder(patchItems, patchOrder, mergeKey, type);
  const sortedServer = sortByOrder(serverOnly, serverOrder, mergeKey, type);
  return interleave(sortedServer, sortedPatch, serverOrder, mergeKey, type);
}

function sortByOrder(list: unknown[], order: readonly unknown[], mergeKey: string, type: GoType): unknown[] {
  let toSort = list;
  let deletions: unknown[] = [];
  if (type === goMapType) {
    for (const l of [list, order]) {
      for (const item of l) {
        if (!isObject(item)) throw errBadArgType(goMapType, item);
        if (!Object.hasOwn(item, mergeKey)) throw errNoMergeKey(item, mergeKey);
      }
    }
    toSort = list.filter((item) => (item as JsonMap)[directiveMarker] !== 'delete');
    deletions = list.filter((item) => (item as JsonMap)[directiveMarker] === 'delete');
  }
  // Upstream's stable sort with "less" true whenever either item is missing from `order`; an
  // insertion sort gives the same result (and is what Go runs for short lists).
  const less = (a: unknown, b: unknown): boolean => {
    const ia = indexIn(order, a, mergeKey, type);
    const ib = ia >= 0 ? indexIn(order, b, mergeKey, type) : -1;
    return ia >= 0 && ib >= 0 ? ia < ib : true;
  };
  const sorted = [...toSort];
  for (let i = 1; i < sorted.length; i++) {
    for (let j = i; j > 0 && less(sorted[j], sorted[j - 1]); j--) {
      [sorted[j - 1], sorted[j]] = [sorted[j], sorted[j - 1]];
    }
  }
  return [...sorted, ...deletions];
}

/** Inserts each of `left` before the first item of `right` it precedes in `serverOrder`. */
function interleave(left: readonly unknown[], right: readonly unknown[], serverOrder: readonly unknown[], mergeKey: string, type: GoType): unknown[] {
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]);
    else if (j >= right.length) out.push(left[i++]);
    else {
      const li = indexIn(serverOrder, left[i], mergeKey, type);
      const ri = indexIn(serverOrder, right[j], mergeKey, type);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// $setElementOrder.

/**
 * Each `$setElementOrder/<list>` merges its list first (when the patch has one) and then orders it:
 * the listed items in the directive's order, interleaved with the server-only items as above.
 */
function mergeOrderedLists(original: JsonMap, patch: JsonMap, meta: Meta): void {
  for (const directiveKey of Object.keys(patch)) {
    if (!directiveKey.startsWith(setElementOrderPrefix) || !Object.hasOwn(patch, directiveKey)) continue;
    const order = patch[directiveKey];
    delete patch[directiveKey];
    if (!Array.isArray(order)) throw errBadArgType(goSliceType, order);
    const key = extractKey(directiveKey, setElementOrderPrefix);
    const foundOriginal = Object.hasOwn(original, key);
    const foundPatch = Object.hasOwn(patch, key);
    const originalList = original[key];
    const patchList = patch[key];
    if (foundOriginal && !Array.isArray(originalList)) throw errBadArgType(goSliceType, originalList);
    if (foundPatch && !Array.isArray(patchList)) throw errBadArgType(goSliceType, patchList);
    const originalItems = foundOriginal ? (originalList as unknown[]) : [];
    const patchItems = foundPatch ? (patchList as unknown[]) : [];
    const field = lookupListField(meta, key);
    const strategy = listOrMapStrategy(field.strategies);
    checkOrderMatchesPatch(patchItems, order, field.mergeKey);

    const shared = new SharedList(originalItems);
    let merged: unknown[];
    if (foundOriginal && foundPatch) merged = mergeListField(originalItems, patchItems, field.meta, strategy, field.mergeKey, false, shared);
    else if (foundPatch) merged = removeDirectives(patchItems)[0] as unknown[];
    else if (foundOriginal) merged = originalItems;
    else continue;

    const [listed, serverOnly] = field.mergeKey === '' ? partitionScalars(merged, order) : partitionMaps(merged, order, field.mergeKey);
    const serverOrder = shared.callerView();
    const type = elementType([serverOrder, patchItems]);
    put(original, key, normalizeOrder(listed, serverOnly, order, serverOrder, field.mergeKey, type));
    delete patch[key];
  }
}

/** The patch's items (deletions and directives aside) must appear in `order`, in the same order. */
function checkOrderMatchesPatch(patchList: readonly unknown[], order: readonly unknown[], mergeKey: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  let items = patchList;
  if (mergeKey !== '') {
    for (const item of patchList) if (!isObject(item)) throw errBadArgType(goMapType, item);
    items = patchList.filter((item) => (item as JsonMap)[directiveMarker] !== 'delete');
  }
  let p = 0;
  let o = 0;
  while (p < items.length && o < order.length) {
    const item = items[p];
    if (isObject(item) && Object.hasOwn(item, directiveMarker)) {
      p++;
      continue;
    }
    if (mergeKeyValueEqual(item, order[o], mergeKey)) p++;
    o++;
  }
  if (p < items.length && o >= order.length) {
    throw failure(`The order in patch list:\n${goFormat(patchList, 'v')}\n doesn't match ${setElementOrderPrefix} list:\n${goFormat(order, 'v')}\n`);
  }
}

function mergeKeyValueEqual(left: unknown, right: unknown, mergeKey: string): boolean {
  if (mergeKey === '') return goEqual(left, right);
  if (!isObject(left)) throw errBadArgType(goMapType, left);
  if (!isObject(right)) throw errBadArgType(goMapType, right);
  if (!Object.hasOwn(left, mergeKey)) throw errNoMergeKey(left, mergeKey);
  if (!Object.hasOwn(right, mergeKey)) throw errNoMergeKey(right, mergeKey);
  return goEqual(left[mergeKey], right[mergeKey]);
}
