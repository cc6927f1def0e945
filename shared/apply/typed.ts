/**
 * Objects walked with their schema, as server-side apply sees them (upstream:
 * sigs.k8s.io/structured-merge-diff typed). The kind's OpenAPI schema decides how each part merges:
 *
 * - structs (objects with properties) and maps (additionalProperties) are granular unless marked
 *   `x-kubernetes-map-type: atomic`: their fields and entries are owned one by one, and owning a
 *   struct's field does not own the struct;
 * - lists are atomic unless marked `x-kubernetes-list-type: set` (items keyed by value) or `map`
 *   (items keyed by `x-kubernetes-list-map-keys`), or, without a list type, patch strategy `merge`
 *   (keyed by the patch merge key, or a set without one);
 * - scalars and RawExtensions are leaves; objects without properties are free-form granular maps
 *   whose lists are atomic.
 *
 * Values are plain JSON; `undefined` stands for "absent", which upstream distinguishes from `null`.
 * The walkers keep upstream's quirks where they are visible: what is owned, what counts as
 * changed, the order of merged list items, and the text of validation errors.
 */
import type { Schema } from '../api/schema.ts';
import {
  FieldSet,
  compareStrings,
  elementString,
  elementsEqual,
  fieldElement,
  keyElement,
  serializeElement,
  valueElement,
  valuesEqual,
  type KeyField,
  type PathElement,
} from './fieldpath.ts';
import { goQuote } from '../go/format.ts';
import { append } from '../api/append.ts';
import { runSteps, WorkCounter, type Steps } from './steps.ts';

/** A node's type: a kind's schema, or one of upstream's two schemaless types (`null`: undeclared). */
export type TypeRef = Schema | 'untyped' | 'deduced' | null;

type ScalarType = 'numeric' | 'string' | 'boolean' | 'untyped';

interface ListType {
  readonly atomic: boolean;
  /** Keys of a `map` list; empty for a set. */
  readonly keys: readonly string[];
  readonly element: TypeRef;
}

interface MapType {
  readonly atomic: boolean;
  readonly fields: Readonly<Record<string, Schema>>;
  /** The type of entries that are not fields; null when there may be none. */
  readonly element: TypeRef;
}

interface Atom {
  readonly scalar?: ScalarType;
  readonly list?: ListType;
  readonly map?: MapType;
}

/** Scalars, atomic lists and atomic maps of anything: RawExtension. */
const untypedAtom: Atom = {
  scalar: 'untyped',
  list: { atomic: true, keys: [], element: 'untyped' },
  map: { atomic: true, fields: {}, element: 'untyped' },
};

/** Free-form objects: granular maps of free-form values, atomic lists. */
const deducedAtom: Atom = {
  scalar: 'untyped',
  list: { atomic: true, keys: [], element: 'untyped' },
  map: { atomic: false, fields: {}, element: 'deduced' },
};

const atoms = new WeakMap<Schema, Atom>();
/**
 * The last schema resolved and its atom: the entries of a map (100,000 labels) resolve the same
 * schema one after another, and an identity check is much cheaper than a WeakMap lookup.
 */
let lastResolved: { ref: Schema; atom: Atom } | undefined;

function resolve(ref: TypeRef): Atom {
  if (ref === 'untyped') return untypedAtom;
  // Undeclared fields are rejected by validation; elsewhere they are walked as free-form values.
  if (ref === 'deduced' || ref === null) return deducedAtom;
  if (lastResolved?.ref === ref) return lastResolved.atom;
  let atom = atoms.get(ref);
  if (!atom) {
    atom = atomOf(ref);
    atoms.set(ref, atom);
  }
  lastResolved = { ref, atom };
  return atom;
}

function atomOf(s: Schema): Atom {
  const special = s['x-corral-type'];
  if (special === 'RawExtension') return untypedAtom;
  if (special === 'Quantity' || special === 'IntOrString' || s['x-kubernetes-int-or-string']) return { scalar: 'untyped' };
  switch (s.type) {
    case undefined:
      return { scalar: 'untyped', list: listOf(s), map: mapOf(s) };
    case 'object':
      return { map: mapOf(s) };
    case 'array':
      return { list: listOf(s) };
    case 'integer':
    case 'number':
      return { scalar: 'numeric' };
    case 'boolean':
      return { scalar: 'boolean' };
    case 'string':
      // Upstream types formatted strings (date-time, int-or-string, ...) as any scalar; bytes stay strings.
      return { scalar: !s.format || s.format === 'byte' ? 'string' : 'untyped' };
  }
}

function mapOf(s: Schema): MapType {
  const fields = s.properties ?? {};
  const freeForm = s['x-kubernetes-preserve-unknown-fields'] === true || Object.keys(fields).length === 0;
  return {
    atomic: s['x-kubernetes-map-type'] === 'atomic',
    fields,
    element: s.additionalProperties ?? (freeForm ? 'deduced' : null),
  };
}

function listOf(s: Schema): ListType {
  const element: TypeRef = s.items ?? 'untyped';
  const listType = s['x-kubernetes-list-type'];
  if (listType === 'set') return { atomic: false, keys: [], element };
  if (listType === 'map') return { atomic: false, keys: s['x-kubernetes-list-map-keys'] ?? [], element };
  if (listType === undefined) {
    const strategy = s['x-kubernetes-patch-strategy'];
    if (strategy === 'merge' || strategy === 'merge,retainKeys') {
      const key = s['x-kubernetes-patch-merge-key'];
      return { atomic: false, keys: key ? [key] : [], element };
    }
  }
  return { atomic: true, keys: [], element };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
/**
 * A map or list: a node with children. The walks below are steps (steps.ts) that descend with
 * `yield*` into containers only; a leaf (nearly every node: the 150,000 labels of a large Node)
 * is handled by a plain call, so that a walk costs a generator per container, not per field.
 */
const isContainer = (v: unknown): v is object => typeof v === 'object' && v !== null;
const own = (m: Readonly<Record<string, unknown>>, key: string): unknown => (Object.hasOwn(m, key) ? m[key] : undefined);

/** Narrows an atom to the kind of the value at hand; absent and null values keep every kind. */
function deduce(atom: Atom, v: unknown): Atom {
  if (typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean') return atom.scalar ? narrowed(atom).scalar : atom;
  if (Array.isArray(v)) return atom.list ? narrowed(atom).list : atom;
  if (isRecord(v)) return atom.map ? narrowed(atom).map : atom;
  return atom;
}

/** An atom's single-kind forms, made once per atom (deduce runs for every node of every write). */
const narrowedAtoms = new WeakMap<Atom, { scalar: Atom; list: Atom; map: Atom }>();

/** The last atom narrowed and its forms (see lastResolved). */
let lastNarrowed: { atom: Atom; forms: { scalar: Atom; list: Atom; map: Atom } } | undefined;

function narrowed(atom: Atom): { scalar: Atom; list: Atom; map: Atom } {
  if (lastNarrowed?.atom === atom) return lastNarrowed.forms;
  let forms = narrowedAtoms.get(atom);
  if (!forms) {
    forms = {
      scalar: atom.scalar ? { scalar: atom.scalar } : atom,
      list: atom.list ? { list: atom.list } : atom,
      map: atom.map ? { map: atom.map } : atom,
    };
    narrowedAtoms.set(atom, forms);
  }
  lastNarrowed = { atom, forms };
  return forms;
}

const sameAtom = (a: Atom, b: Atom): boolean => a.scalar === b.scalar && a.list === b.list && a.map === b.map;

function fieldType(t: MapType, key: string): TypeRef {
  return Object.hasOwn(t.fields, key) ? (t.fields[key] as Schema) : t.element;
}

// ---------------------------------------------------------------------------------------------
// Errors.

/** One problem found while walking a value, at `path` (upstream's path string, e.g. `.data.a`). */
export interface ValidationError {
  path: string;
  message: string;
}

/** upstream's ValidationErrors.Error(). */
export function validationErrorsString(errors: readonly ValidationError[]): string {
  const one = (e: ValidationError): string => (e.path ? `${e.path}: ${e.message}` : e.message);
  if (errors.length === 1) return one(errors[0] as ValidationError);
  return ['errors:', ...errors.map((e) => `  ${one(e)}`)].join('\n');
}

/** A value that does not fit its schema. */
export class TypedValueError extends Error {
  override readonly name = 'TypedValueError';
  constructor(readonly errors: readonly ValidationError[]) {
    super(validationErrorsString(errors));
  }
}

const failure = (message: string): ValidationError[] => [{ path: '', message }];
const prefixed = (prefix: string, errors: ValidationError[]): ValidationError[] => {
  for (const e of errors) e.path = prefix + e.path;
  return errors;
};

/** Go's %v of a JSON value as the unstructured decoder holds it. */
function goV(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goV).join(' ')}]`;
  if (isRecord(v)) {
    const keys = Object.keys(v).sort(compareStrings);
    return `map[${keys.map((k) => `${k}:${goV(v[k])}`).join(' ')}]`;
  }
  return String(v);
}

/** Go's %#v of a JSON value held in an interface{}. */
function goSharpV(v: unknown): string {
  if (v === null || v === undefined) return 'interface {}(nil)';
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `[]interface {}{${v.map(goSharpV).join(', ')}}`;
  if (isRecord(v)) {
    const keys = Object.keys(v).sort(compareStrings);
    return `map[string]interface {}{${keys.map((k) => `${JSON.stringify(k)}:${goSharpV(v[k])}`).join(', ')}}`;
  }
  return String(v);
}

function goTypeName(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return '[]interface {}';
  return 'map[string]interface {}';
}

function checkScalar(t: ScalarType, v: unknown, prefix: string): ValidationError[] {
  if (v === undefined || v === null) return [];
  switch (t) {
    case 'numeric':
      return typeof v === 'number' ? [] : failure(`${prefix}expected numeric (int or float), got ${goTypeName(v)}`);
    case 'string':
      return typeof v === 'string' ? [] : failure(`${prefix}expected string, got &value.valueUnstructured{Value:${goSharpV(v)}}`);
    case 'boolean':
      return typeof v === 'boolean' ? [] : failure(`${prefix}expected boolean, got &{${goV(v)}}`);
    case 'untyped':
      return typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean' ? [] : failure(`${prefix}expected any scalar, got &{${goV(v)}}`);
  }
}

// ---------------------------------------------------------------------------------------------
// List items as path elements.

/** A key field missing from an item takes the default its schema declares, as upstream does. */
function keyDefault(list: ListType, name: string): unknown {
  const element = list.element;
  if (element === null || typeof element === 'string') return undefined;
  return resolve(element).map?.fields[name]?.default;
}

/** The element naming a list item: its keys, or its value in a set. Throws when it has none. */
function listItemElement(list: ListType, item: unknown): PathElement {
  if (list.atomic) throw new Error('invalid indexing of non-associative list');
  if (list.keys.length > 0) {
    if (item === null) throw new Error('associative list with keys may not have a null element');
    if (!isRecord(item)) throw new Error('associative list with keys may not have non-map elements');
    const fields: KeyField[] = [];
    for (const name of list.keys) {
      if (Object.hasOwn(item, name)) fields.push({ name, value: item[name] });
      else {
        const fallback = keyDefault(list, name);
        if (fallback === undefined || fallback === null) {
          throw new Error(`associative list with keys has an element that omits key field ${goQuote(name)} (and doesn't have default value)`);
        }
        fields.push({ name, value: fallback });
      }
    }
    return keyElement(fields);
  }
  if (isRecord(item)) throw new Error("associative list without keys has an element that's a map type");
  if (Array.isArray(item)) throw new Error('not supported: associative list with lists as elements');
  if (item === null) throw new Error("associative list without keys has an element that's an explicit null");
  return valueElement(item);
}

function tryItemElement(list: ListType, item: unknown): PathElement | Error {
  try {
    return listItemElement(list, item);
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
}

// ---------------------------------------------------------------------------------------------
// Validation.

/**
 * Checks a value against its type: scalar kinds, undeclared fields, list item keys, and duplicate
 * items (unless allowed, as for live objects).
 */
export function validate(value: unknown, ref: TypeRef, allowDuplicates = false): ValidationError[] {
  return runSteps(validateSteps(value, ref, allowDuplicates));
}

/** validate in steps of about `entriesPerStep` entries (steps.ts). */
export function validateSteps(value: unknown, ref: TypeRef, allowDuplicates = false): Steps<ValidationError[]> {
  return validateNode(value, ref, allowDuplicates, new WorkCounter());
}

function* validateNode(value: unknown, ref: TypeRef, allowDuplicates: boolean, work: WorkCounter): Steps<ValidationError[]> {
  // Upstream's order of precedence (map, scalar, list), without closures: this runs for every field.
  const atom = deduce(resolve(ref), value);
  if (atom.map) return isRecord(value) ? yield* validateMap(atom.map, value, allowDuplicates, work) : notMap(value);
  if (atom.scalar) return checkScalar(atom.scalar, value, '');
  if (atom.list) return Array.isArray(value) ? yield* validateList(atom.list, value, allowDuplicates, work) : notList(value);
  return failure('schema error: invalid atom: inlined');
}

/** validateNode of a value that is no map or list, which has nothing below it to walk. */
function validateLeaf(value: unknown, ref: TypeRef): ValidationError[] {
  const atom = deduce(resolve(ref), value);
  if (atom.map) return notMap(value);
  if (atom.scalar) return checkScalar(atom.scalar, value, '');
  if (atom.list) return notList(value);
  return failure('schema error: invalid atom: inlined');
}

const notMap = (value: unknown): ValidationError[] => (value === null || value === undefined ? [] : failure(`expected map, got &{${goV(value)}}`));
const notList = (value: unknown): ValidationError[] => (value === null || value === undefined ? [] : failure(`expected list, got &{${goV(value)}}`));

function* validateList(t: ListType, value: unknown[], allowDuplicates: boolean, work: WorkCounter): Steps<ValidationError[]> {
  const errors: ValidationError[] = [];
  const seen = new FieldSet();
  for (let i = 0; i < value.length; i++) {
    let element: PathElement;
    if (t.atomic) element = { type: 'index', index: i };
    else {
      const pe = tryItemElement(t, value[i]);
      if (pe instanceof Error) {
        append(errors, failure(`element ${i}: ${pe.message}`));
        return errors;
      }
      element = pe;
      if (seen.hasMember(element) && !allowDuplicates) append(errors, failure(`duplicate entries for key ${elementString(element)}`));
      seen.insertMember(element);
    }
    const item = value[i];
    const below = isContainer(item) ? yield* validateNode(item, t.element, allowDuplicates, work) : validateLeaf(item, t.element);
    if (below.length) append(errors, prefixed(elementString(element), below));
    if (work.tick()) yield;
  }
  return errors;
}

function* validateMap(t: MapType, value: Record<string, unknown>, allowDuplicates: boolean, work: WorkCounter): Steps<ValidationError[]> {
  const errors: ValidationError[] = [];
  const keys = Object.keys(value);
  if (work.tick(keys.length)) yield;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    if (!Object.hasOwn(t.fields, key) && t.element === null) {
      append(errors, prefixed(elementString(fieldElement(key)), failure('field not declared in schema')));
      break;
    }
    // The prefix is built only for errors: a map of 100,000 valid labels needs none.
    const item = value[key];
    const ref = fieldType(t, key);
    const below = isContainer(item) ? yield* validateNode(item, ref, allowDuplicates, work) : validateLeaf(item, ref);
    if (below.length) append(errors, prefixed(elementString(fieldElement(key)), below));
    if (work.tick()) yield;
  }
  return errors;
}

// ---------------------------------------------------------------------------------------------
// The set of fields a value sets.

/**
 * The fields a value sets (upstream ToFieldSet): its leaves, the entries of granular maps, the items
 * of keyed lists and sets, atomic lists and maps as a whole, and null or empty struct fields.
 */
export function toFieldSet(value: unknown, ref: TypeRef): FieldSet {
  return runSteps(toFieldSetSteps(value, ref));
}

/** toFieldSet in steps of about `entriesPerStep` entries (steps.ts); the set comes out ordered. */
export function* toFieldSetSteps(value: unknown, ref: TypeRef): Steps<FieldSet> {
  const set = new FieldSet();
  const work = new WorkCounter();
  if (isContainer(value)) yield* collectFields(value, ref, [], set, work);
  else collectLeafFields(value, ref, [], set);
  yield* set.orderSteps(work);
  return set;
}

/**
 * Adds the fields of `value` (a map or list) at `path` to `set`. `path` is shared along the walk
 * (children push and pop their element; FieldSet.insert keeps no reference to it), and the atom is
 * dispatched in upstream's order of precedence (map, scalar, list) without closures: this runs for
 * every field of every write (120,000 labels: closures and path copies per field cost more than
 * the walk). Returns the number of entries of a map walked field by field, -1 for anything else,
 * so that the caller need not count a large map's keys again to know whether it is empty.
 */
function* collectFields(value: object, ref: TypeRef, path: PathElement[], set: FieldSet, work: WorkCounter): Steps<number> {
  const atom = deduce(resolve(ref), value);
  if (atom.map) {
    const t = atom.map;
    if (t.atomic) {
      set.insert(path);
      return -1;
    }
    if (!isRecord(value)) return -1;
    const keys = Object.keys(value);
    if (work.tick(keys.length)) yield;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as string;
      const item = value[key];
      const itemRef = fieldType(t, key);
      path.push(fieldElement(key));
      const entries = isContainer(item) ? yield* collectFields(item, itemRef, path, set, work) : collectLeafFields(item, itemRef, path, set);
      if (item === null || !Object.hasOwn(t.fields, key) || (isRecord(item) && (entries >= 0 ? entries === 0 : isEmptyRecord(item)))) set.insert(path);
      path.pop();
      if (work.tick()) yield;
    }
    return keys.length;
  }
  if (atom.scalar) {
    set.insert(path);
    return -1;
  }
  if (atom.list) {
    const t = atom.list;
    if (t.atomic) {
      set.insert(path);
      return -1;
    }
    if (!Array.isArray(value)) return -1;
    const seen = new FieldSet();
    const duplicates = new FieldSet();
    const elements: (PathElement | Error)[] = [];
    for (let i = 0; i < value.length; i++) {
      elements.push(tryItemElement(t, value[i]));
      if (work.tick()) yield;
    }
    for (let i = 0; i < elements.length; i++) {
      const pe = elements[i] as PathElement | Error;
      if (pe instanceof Error) continue;
      if (!seen.hasMember(pe)) seen.insertMember(pe);
      else if (!duplicates.hasMember(pe)) {
        path.push(pe);
        set.insert(path);
        path.pop();
        duplicates.insertMember(pe);
      }
      if (work.tick()) yield;
    }
    for (let i = 0; i < elements.length; i++) {
      const pe = elements[i] as PathElement | Error;
      if (pe instanceof Error || duplicates.hasMember(pe)) continue;
      const item: unknown = value[i];
      path.push(pe);
      if (isContainer(item)) yield* collectFields(item, t.element, path, set, work);
      else collectLeafFields(item, t.element, path, set);
      set.insert(path);
      path.pop();
      if (work.tick()) yield;
    }
  }
  return -1;
}

/** collectFields of a value that is no map or list: at most its own path. */
function collectLeafFields(value: unknown, ref: TypeRef, path: PathElement[], set: FieldSet): number {
  const atom = deduce(resolve(ref), value);
  if (atom.map ? atom.map.atomic : atom.scalar !== undefined || atom.list?.atomic === true) set.insert(path);
  return -1;
}

// ---------------------------------------------------------------------------------------------
// Comparison.

/** What changed between two values; a field is in at most one of the three sets. */
export interface Comparison {
  removed: FieldSet;
  modified: FieldSet;
  added: FieldSet;
}

/**
 * Compares two values field by field (upstream Compare). Leaves (scalars, atomic lists and maps, and
 * lists or maps empty on both sides) are compared whole; anything present on one side only is
 * added or removed together with everything below it.
 */
export function compare(lhs: unknown, rhs: unknown, ref: TypeRef): Comparison {
  return runSteps(compareSteps(lhs, rhs, ref));
}

/** compare in steps of about `entriesPerStep` entries (steps.ts); the sets come out ordered. */
export function* compareSteps(lhs: unknown, rhs: unknown, ref: TypeRef): Steps<Comparison> {
  const comparison: Comparison = { removed: new FieldSet(), modified: new FieldSet(), added: new FieldSet() };
  const work = new WorkCounter();
  const errors = yield* compareNode(lhs, rhs, ref, [], comparison, work);
  if (errors.length) throw new TypedValueError(errors);
  yield* comparison.removed.orderSteps(work);
  yield* comparison.modified.orderSteps(work);
  yield* comparison.added.orderSteps(work);
  return comparison;
}

/**
 * One node being compared. `path` is shared along the walk (children push and pop their element;
 * FieldSet.insert keeps no reference to it). `inLeaf`: the node was recorded as a leaf. Plain
 * functions over this record rather than closures per node: the comparison runs on every write.
 */
interface CompareNode {
  lhs: unknown;
  rhs: unknown;
  path: PathElement[];
  out: Comparison;
  inLeaf: boolean;
}

/**
 * The kind a node is compared (or merged) as, after `leftFirst` when the sides are of different
 * kinds: the left is then walked as its own kind first, on a record of its own. Returned as the
 * second kind only, the first stored in `leftKind` (no allocation: this runs for every field).
 */
let leftKind: Atom | undefined;

function nodeKind(lhs: unknown, rhs: unknown, ref: TypeRef): Atom {
  const atom = resolve(ref);
  const left = deduce(atom, lhs);
  const right = deduce(atom, rhs);
  leftKind = undefined;
  if (rhs === undefined) return left;
  if (lhs !== undefined && !sameAtom(left, right)) leftKind = left;
  return right;
}

const bothAbsent = (): ValidationError[] => failure('at least one of lhs and rhs must be provided');

/** A compared node not recorded as a leaf is added or removed as a whole when one side lacks it. */
function compareDone(node: CompareNode, errors: ValidationError[]): ValidationError[] {
  if (!node.inLeaf) {
    if (node.lhs === undefined) node.out.added.insert(node.path);
    else if (node.rhs === undefined) node.out.removed.insert(node.path);
  }
  return errors;
}

function* compareNode(lhs: unknown, rhs: unknown, ref: TypeRef, path: PathElement[], out: Comparison, work: WorkCounter): Steps<ValidationError[]> {
  if (lhs === undefined && rhs === undefined) return bothAbsent();
  const atom = nodeKind(lhs, rhs, ref);
  const leftFirst = leftKind;
  const node: CompareNode = { lhs, rhs, path, out, inLeaf: false };
  const leftErrors = leftFirst ? yield* compareAs({ lhs, rhs, path, out, inLeaf: false }, leftFirst, work) : [];
  const errors = yield* compareAs(node, atom, work);
  return compareDone(node, leftErrors.length ? leftErrors.concat(errors) : errors);
}

/** compareNode of two values neither of which is a map or list: nothing below them to walk. */
function compareLeafNode(lhs: unknown, rhs: unknown, ref: TypeRef, path: PathElement[], out: Comparison): ValidationError[] {
  if (lhs === undefined && rhs === undefined) return bothAbsent();
  const atom = nodeKind(lhs, rhs, ref);
  const leftFirst = leftKind;
  const node: CompareNode = { lhs, rhs, path, out, inLeaf: false };
  const leftErrors = leftFirst ? compareLeafAs({ lhs, rhs, path, out, inLeaf: false }, leftFirst) : [];
  const errors = compareLeafAs(node, atom);
  return compareDone(node, leftErrors.length ? leftErrors.concat(errors) : errors);
}

/** Records the node as a leaf (once): added, removed or, when the values differ, modified. */
function compareLeaf(node: CompareNode): void {
  if (node.inLeaf) return;
  node.inLeaf = true;
  if (node.lhs === undefined) node.out.added.insert(node.path);
  else if (node.rhs === undefined) node.out.removed.insert(node.path);
  else if (!valuesEqual(node.lhs, node.rhs)) node.out.modified.insert(node.path);
}

/** compareAs of a node without maps or lists: every kind but a mismatched scalar is a leaf. */
function compareLeafAs(node: CompareNode, atom: Atom): ValidationError[] {
  if (!atom.map && atom.scalar) {
    const errors = scalarErrors(atom.scalar, node.lhs, node.rhs);
    if (errors) return errors;
  } else if (!atom.map && !atom.list) return failure('schema error: invalid atom: inlined');
  compareLeaf(node);
  return [];
}

/** Compares the node as `atom`'s kind, in upstream's order of precedence: map, scalar, list. */
function* compareAs(node: CompareNode, atom: Atom, work: WorkCounter): Steps<ValidationError[]> {
  const { lhs, rhs, path } = node;
  if (atom.map) {
    const t = atom.map;
    const l = isRecord(lhs) ? lhs : undefined;
    const r = isRecord(rhs) ? rhs : undefined;
    // Both maps are empty exactly when they have no keys between them.
    const keys = t.atomic ? [] : yield* zipKeys(l, r, work);
    if (keys.length === 0) {
      compareLeaf(node);
      return [];
    }
    let errors: ValidationError[] = [];
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as string;
      const child = fieldElement(key);
      path.push(child);
      const lv = l ? own(l, key) : undefined;
      const rv = r ? own(r, key) : undefined;
      const ref = fieldType(t, key);
      // A walk (a generator) only where either side has children: not for each of 150,000 labels.
      const childErrors =
        isContainer(lv) || isContainer(rv) ? yield* compareNode(lv, rv, ref, path, node.out, work) : compareLeafNode(lv, rv, ref, path, node.out);
      path.pop();
      if (childErrors.length) errors = errors.concat(prefixed(elementString(child), childErrors));
      if (work.tick()) yield;
    }
    return errors;
  }
  if (atom.scalar) {
    const errors = scalarErrors(atom.scalar, lhs, rhs);
    if (errors) return errors;
    compareLeaf(node);
    return [];
  }
  if (atom.list) {
    const t = atom.list;
    const l = Array.isArray(lhs) ? lhs : undefined;
    const r = Array.isArray(rhs) ? rhs : undefined;
    if (listIsLeaf(t, l, r)) {
      compareLeaf(node);
      return [];
    }
    return yield* compareListItems(t, l ?? [], r ?? [], path, node.out, work);
  }
  return failure('schema error: invalid atom: inlined');
}

/** The type errors of a scalar node when neither side fits its type; null when it is a leaf. */
function scalarErrors(t: ScalarType, lhs: unknown, rhs: unknown): ValidationError[] | null {
  const l = checkScalar(t, lhs, 'lhs: ');
  const r = checkScalar(t, rhs, 'rhs: ');
  return l.length && r.length ? [...l, ...r] : null;
}

/** An atomic list, or one empty (or absent) on both sides, is compared and merged whole. */
const listIsLeaf = (t: ListType, l: unknown[] | undefined, r: unknown[] | undefined): boolean => t.atomic || ((!l || l.length === 0) && (!r || r.length === 0));

const isEmptyRecord = (m: Record<string, unknown> | undefined): boolean => {
  if (!m) return true;
  for (const key in m) if (Object.hasOwn(m, key)) return false;
  return true;
};

/**
 * The keys of two maps, the left map's first, each once. In steps: listing the keys of a map of
 * 150,000 entries is itself a step of tens of milliseconds, so each map's is one step.
 */
function* zipKeys(l: Record<string, unknown> | undefined, r: Record<string, unknown> | undefined, work: WorkCounter): Steps<string[]> {
  const keys = Object.keys(l ?? {});
  if (work.tick(keys.length)) yield;
  const right = Object.keys(r ?? {});
  if (work.tick(right.length)) yield;
  // One side empty (a create, a new map): the other's keys as they are, not copied one by one.
  if (keys.length === 0) return right;
  if (right.length === 0) return keys;
  for (let i = 0; i < right.length; i++) {
    const key = right[i] as string;
    if (!Object.hasOwn(l ?? {}, key)) keys.push(key);
    if (work.tick()) yield;
  }
  return keys;
}

interface Grouped {
  element: PathElement;
  items: unknown[];
}

function* compareListItems(t: ListType, lhs: unknown[], rhs: unknown[], path: PathElement[], out: Comparison, work: WorkCounter): Steps<ValidationError[]> {
  const errors: ValidationError[] = [];
  const order: string[] = [];
  const left = new Map<string, Grouped>();
  const right = new Map<string, Grouped>();
  // Items grouped by element (the left list's first), and every element once in `order`.
  for (let side = 0; side < 2; side++) {
    const list = side === 0 ? lhs : rhs;
    const into = side === 0 ? left : right;
    for (let i = 0; i < list.length; i++) {
      const item = list[i];
      const pe = tryItemElement(t, item);
      if (pe instanceof Error) append(errors, failure(`element ${i}: ${pe.message}`));
      else {
        const key = serializeElement(pe);
        const existing = into.get(key);
        if (existing) existing.items.push(item);
        else {
          into.set(key, { element: pe, items: [item] });
          if (into === left || !left.has(key)) order.push(key);
        }
      }
      if (work.tick()) yield;
    }
  }
  for (let i = 0; i < order.length; i++) {
    const key = order[i] as string;
    const l = left.get(key)?.items ?? [];
    const r = right.get(key)?.items ?? [];
    const pe = (left.get(key) ?? right.get(key))?.element as PathElement;
    // The pair of items compared under `pe`, if any.
    let pair: [unknown, unknown] | undefined;
    if (l.length <= 1 && r.length <= 1) pair = [l[0], r[0]];
    else if (l.length >= 2 && r.length >= 2) {
      // Duplicates on both sides compare as one atomic value.
      if (l.length !== r.length || !l.every((v, i) => valuesEqual(v, r[i]))) out.modified.insert([...path, pe]);
    } else if (l.length >= 2) {
      if (r.length) pair = [undefined, r[0]];
    } else if (l.length) pair = [l[0], undefined];
    if (pair) {
      const [a, b] = pair;
      path.push(pe);
      const itemErrors = isContainer(a) || isContainer(b) ? yield* compareNode(a, b, t.element, path, out, work) : compareLeafNode(a, b, t.element, path, out);
      path.pop();
      if (itemErrors.length) append(errors, prefixed(elementString(pe), itemErrors));
    }
    if (l.length >= 2 && r.length < 2) out.removed.insert([...path, pe]);
    else if (r.length >= 2 && l.length < 2) out.added.insert([...path, pe]);
    if (work.tick()) yield;
  }
  return errors;
}

// ---------------------------------------------------------------------------------------------
// Merge.

/**
 * Merges `rhs` into `lhs` (upstream Merge with "keep the right-hand side"): granular structs and
 * maps merge field by field, keyed lists and sets item by item, leaves are taken from `rhs` when it
 * has them. Duplicate items of `rhs` are an error; duplicates of `lhs` are replaced as a whole.
 */
export function merge(lhs: unknown, rhs: unknown, ref: TypeRef): unknown {
  return runSteps(mergeSteps(lhs, rhs, ref));
}

/** merge in steps of about `entriesPerStep` entries (steps.ts). */
export function* mergeSteps(lhs: unknown, rhs: unknown, ref: TypeRef): Steps<unknown> {
  const { out, errors } = yield* mergeNode(lhs, rhs, ref, new WorkCounter());
  if (errors.length) throw new TypedValueError(errors);
  return out;
}

/** One node being merged (as CompareNode): its values, its result, whether it was taken as a leaf. */
interface MergeNode {
  lhs: unknown;
  rhs: unknown;
  out: unknown;
  inLeaf: boolean;
}

interface Merged {
  out: unknown;
  errors: ValidationError[];
}

function* mergeNode(lhs: unknown, rhs: unknown, ref: TypeRef, work: WorkCounter): Steps<Merged> {
  if (lhs === undefined && rhs === undefined) return { out: undefined, errors: bothAbsent() };
  const atom = nodeKind(lhs, rhs, ref);
  const leftFirst = leftKind;
  const node: MergeNode = { lhs, rhs, out: undefined, inLeaf: false };
  // Different kinds on each side: the left is walked as its own kind for its errors only.
  const leftErrors = leftFirst ? yield* mergeAs({ lhs, rhs, out: undefined, inLeaf: false }, leftFirst, work) : [];
  const errors = yield* mergeAs(node, atom, work);
  return { out: node.out, errors: leftErrors.length ? leftErrors.concat(errors) : errors };
}

/** mergeNode of two values neither of which is a map or list: nothing below them to walk. */
function mergeLeafNode(lhs: unknown, rhs: unknown, ref: TypeRef): Merged {
  if (lhs === undefined && rhs === undefined) return { out: undefined, errors: bothAbsent() };
  const atom = nodeKind(lhs, rhs, ref);
  const leftFirst = leftKind;
  const node: MergeNode = { lhs, rhs, out: undefined, inLeaf: false };
  const leftErrors = leftFirst ? mergeLeafAs({ lhs, rhs, out: undefined, inLeaf: false }, leftFirst) : [];
  const errors = mergeLeafAs(node, atom);
  return { out: node.out, errors: leftErrors.length ? leftErrors.concat(errors) : errors };
}

/** Takes the node whole: the right-hand value when there is one. */
function mergeLeaf(node: MergeNode): void {
  if (node.inLeaf) return;
  node.inLeaf = true;
  node.out = node.rhs !== undefined ? node.rhs : node.lhs;
}

/** mergeAs of a node without maps or lists: every kind but a mismatched scalar is taken whole. */
function mergeLeafAs(node: MergeNode, atom: Atom): ValidationError[] {
  if (!atom.map && atom.scalar) {
    const errors = scalarErrors(atom.scalar, node.lhs, node.rhs);
    if (errors) return errors;
  } else if (!atom.map && !atom.list) return failure('schema error: invalid atom: inlined');
  mergeLeaf(node);
  return [];
}

/** Merges the node as `atom`'s kind, in upstream's order of precedence: map, scalar, list. */
function* mergeAs(node: MergeNode, atom: Atom, work: WorkCounter): Steps<ValidationError[]> {
  const { lhs, rhs } = node;
  if (atom.map) {
    const t = atom.map;
    const l = isRecord(lhs) ? lhs : undefined;
    const r = isRecord(rhs) ? rhs : undefined;
    // Both maps are empty exactly when they have no keys between them.
    const keys = t.atomic ? [] : yield* zipKeys(l, r, work);
    if (keys.length === 0) {
      mergeLeaf(node);
      return [];
    }
    let errors: ValidationError[] = [];
    const result: Record<string, unknown> = {};
    let empty = true;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as string;
      const lv = l ? own(l, key) : undefined;
      const rv = r ? own(r, key) : undefined;
      const ref = fieldType(t, key);
      // A walk (a generator) only where either side has children: not for each of 150,000 labels.
      const child = isContainer(lv) || isContainer(rv) ? yield* mergeNode(lv, rv, ref, work) : mergeLeafNode(lv, rv, ref);
      if (child.errors.length) errors = errors.concat(prefixed(elementString(fieldElement(key)), child.errors));
      if (child.out !== undefined) {
        result[key] = child.out;
        empty = false;
      }
      if (work.tick()) yield;
    }
    if (!empty) node.out = result;
    return errors;
  }
  if (atom.scalar) {
    const errors = scalarErrors(atom.scalar, lhs, rhs);
    if (errors) return errors;
    mergeLeaf(node);
    return [];
  }
  if (atom.list) {
    const t = atom.list;
    const l = Array.isArray(lhs) ? lhs : undefined;
    const r = Array.isArray(rhs) ? rhs : undefined;
    if (listIsLeaf(t, l, r)) {
      mergeLeaf(node);
      return [];
    }
    const merged = yield* mergeListItems(t, l ?? [], r ?? [], work);
    if (merged.items.length > 0) node.out = merged.items;
    return merged.errors;
  }
  return failure('schema error: invalid atom: inlined');
}

interface IndexedList {
  elements: PathElement[];
  /** Items by element; a duplicated element maps to null (it is replaced, not merged). */
  observed: Map<string, unknown>;
  errors: ValidationError[];
}

function* indexList(t: ListType, list: unknown[], allowDuplicates: boolean, work: WorkCounter): Steps<IndexedList> {
  const indexed: IndexedList = { elements: [], observed: new Map(), errors: [] };
  for (let i = 0; i < list.length; i++) {
    if (work.tick()) yield;
    const item = list[i];
    const pe = tryItemElement(t, item);
    if (pe instanceof Error) {
      append(indexed.errors, failure(`element ${i}: ${pe.message}`));
      continue;
    }
    const key = serializeElement(pe);
    const found = indexed.observed.has(key);
    if (found && !allowDuplicates) {
      append(indexed.errors, failure(`duplicate entries for key ${elementString(pe)}`));
      continue;
    }
    indexed.observed.set(key, found ? null : item);
    indexed.elements.push(pe);
  }
  return indexed;
}

/** Where mergeListItems is in both lists. */
interface ListCursor {
  li: number;
  ri: number;
  /** The next item of both lists that the applied list wants, at `sharedAt - 1` of the shared ones. */
  nextShared: PathElement | undefined;
  sharedAt: number;
  readonly shared: readonly PathElement[];
  /** Items of the applied list merged so far, by element key. */
  readonly mergedRight: Set<string>;
}

/** Moves the cursor to the next shared item (a function, not a closure made for every item). */
function advanceShared(cursor: ListCursor): void {
  cursor.nextShared = cursor.shared[cursor.sharedAt++];
}

/**
 * One move of mergeListItems through both lists: the pair of items to merge next (live, applied;
 * either may be absent), or undefined when this move skips a live item.
 */
function nextListPair(cursor: ListCursor, lhs: unknown[], left: IndexedList, right: IndexedList): [unknown, unknown] | undefined {
  const key = serializeElement;
  const lLen = left.elements.length;
  const rLen = right.elements.length;
  if (cursor.li < lLen && cursor.ri < rLen) {
    const pe = left.elements[cursor.li] as PathElement;
    if (elementsEqual(pe, right.elements[cursor.ri] as PathElement)) {
      cursor.mergedRight.add(key(pe));
      cursor.li++;
      cursor.ri++;
      advanceShared(cursor);
      return [left.observed.get(key(pe)), right.observed.get(key(pe))];
    }
    if (right.observed.has(key(pe)) && cursor.nextShared !== undefined && !elementsEqual(cursor.nextShared, pe)) {
      // A shared item, but not the next one the applied list wants.
      cursor.li++;
      return undefined;
    }
  }
  if (cursor.li < lLen) {
    const pe = left.elements[cursor.li] as PathElement;
    if (!right.observed.has(key(pe))) return [lhs[cursor.li++], undefined];
    if (cursor.mergedRight.has(key(pe))) cursor.li++;
  }
  if (cursor.ri < rLen) {
    const pe = right.elements[cursor.ri] as PathElement;
    cursor.mergedRight.add(key(pe));
    cursor.ri++;
    if (cursor.nextShared !== undefined && elementsEqual(cursor.nextShared, pe)) advanceShared(cursor);
    return [left.observed.has(key(pe)) ? left.observed.get(key(pe)) : undefined, right.observed.get(key(pe))];
  }
  return undefined;
}

/**
 * Merges list items keeping upstream's order: items of both lists in the applied order, items of the
 * live list only where they stood relative to the shared ones, new items where the applied list has
 * them. Errors below an item are dropped, as upstream drops them.
 */
function* mergeListItems(t: ListType, lhs: unknown[], rhs: unknown[], work: WorkCounter): Steps<{ items: unknown[]; errors: ValidationError[] }> {
  const right = yield* indexList(t, rhs, false, work);
  const left = yield* indexList(t, lhs, true, work);
  const errors = [...right.errors, ...left.errors];
  if (errors.length) return { items: [], errors };
  const shared = right.elements.filter((pe) => left.observed.has(serializeElement(pe)));
  // A cursor rather than shift(), which moves every remaining item: quadratic on long lists.
  const cursor: ListCursor = { li: 0, ri: 0, nextShared: shared[0], sharedAt: 1, shared, mergedRight: new Set() };
  const items: unknown[] = [];
  while (cursor.li < left.elements.length || cursor.ri < right.elements.length) {
    const pair = nextListPair(cursor, lhs, left, right);
    if (pair) {
      const [l, r] = pair;
      const { out } = isContainer(l) || isContainer(r) ? yield* mergeNode(l, r, t.element, work) : mergeLeafNode(l, r, t.element);
      if (out !== undefined) items.push(out);
    }
    if (work.tick()) yield;
  }
  return { items, errors: [] };
}

// ---------------------------------------------------------------------------------------------
// Removal.

/**
 * The value without the given fields (upstream RemoveItems). A member removes the field or item
 * with everything below it; atomic lists and maps that something below them is removed from go
 * whole. A struct or map emptied by the removal disappears (`undefined`), as Go's omitempty drops it.
 */
export function removeItems(value: unknown, toRemove: FieldSet, ref: TypeRef): unknown {
  return runSteps(removeItemsSteps(value, toRemove, ref));
}

/** removeItems in steps of about `entriesPerStep` entries (steps.ts). */
export function removeItemsSteps(value: unknown, toRemove: FieldSet, ref: TypeRef): Steps<unknown> {
  return removeFrom(value, toRemove, ref, new WorkCounter());
}

function* removeFrom(value: unknown, toRemove: FieldSet, ref: TypeRef, work: WorkCounter): Steps<unknown> {
  // Upstream's order of precedence (map, scalar, list), without closures: this runs for every field.
  // Only what has something to remove below it is walked (a generator each): not every label.
  const atom = deduce(resolve(ref), value);
  if (atom.map) {
    const t = atom.map;
    if (!isRecord(value) || t.atomic) return undefined;
    const result: Record<string, unknown> = {};
    let kept = 0;
    const keys = Object.keys(value);
    if (work.tick(keys.length)) yield;
    for (let i = 0; i < keys.length; i++) {
      if (work.tick()) yield;
      const key = keys[i] as string;
      const item = value[key];
      const pe = fieldElement(key);
      if (toRemove.hasMember(pe)) continue;
      const below = toRemove.child(pe);
      const rest = !below || below.empty() ? item : yield* removeFrom(item, below, fieldType(t, key), work);
      if (rest !== undefined) {
        result[key] = rest;
        kept++;
      }
    }
    return kept > 0 ? result : undefined;
  }
  if (atom.scalar) return value;
  if (atom.list) {
    const t = atom.list;
    if (!Array.isArray(value) || value.length === 0 || t.atomic) return undefined;
    const list: readonly unknown[] = value;
    const items: unknown[] = [];
    for (let i = 0; i < list.length; i++) {
      if (work.tick()) yield;
      const item = list[i];
      const pe = tryItemElement(t, item);
      if (pe instanceof Error) {
        items.push(item);
        continue;
      }
      if (toRemove.hasMember(pe)) continue;
      const below = toRemove.child(pe);
      const kept = !below || below.empty() ? item : yield* removeFrom(item, below, t.element, work);
      items.push(kept === undefined ? null : kept);
    }
    return items.length > 0 ? items : undefined;
  }
  return value;
}

// ---------------------------------------------------------------------------------------------
// Helpers of the apply algorithm.

/**
 * The set with every struct field that has paths below it made a member too (upstream
 * EnsureNamedFieldsAreMembers), so that removing the set removes such fields as a whole.
 */
export function ensureNamedFieldsAreMembers(set: FieldSet, ref: TypeRef): FieldSet {
  return runSteps(ensureNamedFieldsAreMembersSteps(set, ref));
}

/** ensureNamedFieldsAreMembers in steps of about `entriesPerStep` members (steps.ts). */
export function* ensureNamedFieldsAreMembersSteps(set: FieldSet, ref: TypeRef): Steps<FieldSet> {
  const work = new WorkCounter();
  yield* set.orderSteps(work);
  return yield* namedFieldsAreMembers(set, ref, work);
}

function* namedFieldsAreMembers(set: FieldSet, ref: TypeRef, work: WorkCounter): Steps<FieldSet> {
  const atom = ref === null ? {} : resolve(ref);
  const out = new FieldSet();
  const members = set.members;
  for (let i = 0; i < members.length; i++) {
    out.insertMember(members[i] as PathElement);
    if (work.tick()) yield;
  }
  const children = set.children;
  for (let i = 0; i < children.length; i++) {
    const node = children[i] as (typeof children)[number];
    let childRef: TypeRef = null;
    if (node.element.type === 'field' && atom.map) {
      if (Object.hasOwn(atom.map.fields, node.element.name)) out.insertMember(node.element);
      childRef = fieldType(atom.map, node.element.name);
    } else if (node.element.type === 'key' && atom.list) {
      childRef = atom.list.element;
    }
    out.setChild(node.element, yield* namedFieldsAreMembers(node.set, childRef, work));
    if (work.tick()) yield;
  }
  return out;
}

/**
 * The value without null struct fields: upstream decodes a merged object into Go structs, where a
 * null field is simply absent. Entries of maps and free-form values are kept as they are.
 */
export function dropNullFields(value: unknown, ref: TypeRef): unknown {
  return runSteps(dropNullFieldsSteps(value, ref));
}

/** dropNullFields in steps of about `entriesPerStep` entries (steps.ts). */
export function dropNullFieldsSteps(value: unknown, ref: TypeRef): Steps<unknown> {
  return dropNulls(value, ref, new WorkCounter());
}

function* dropNulls(value: unknown, ref: TypeRef, work: WorkCounter): Steps<unknown> {
  // Upstream's order of precedence (map, scalar, list), without closures: this runs for every field.
  // Copy on write: a map or list without nulls below is returned as it is (a map of 100,000 labels
  // is not rebuilt), so the result may share values with `value`. A value that is no map or list
  // is kept whatever its type, so only maps and lists are walked (a generator each).
  const atom = deduce(resolve(ref), value);
  if (atom.map) {
    const t = atom.map;
    if (!isRecord(value) || t.atomic) return value;
    const keys = Object.keys(value);
    if (work.tick(keys.length)) yield;
    let result: Record<string, unknown> | undefined;
    for (let i = 0; i < keys.length; i++) {
      if (work.tick()) yield;
      const key = keys[i] as string;
      const item = value[key];
      const declared = Object.hasOwn(t.fields, key);
      const walked = isContainer(item) && (declared || t.element !== 'deduced');
      const kept = item === null && declared ? undefined : walked ? yield* dropNulls(item, fieldType(t, key), work) : item;
      if (!result && kept === item) continue;
      if (!result) {
        result = {};
        for (let j = 0; j < i; j++) result[keys[j] as string] = value[keys[j] as string];
      }
      if (kept !== undefined || !(item === null && declared)) result[key] = kept;
    }
    return result ?? value;
  }
  if (atom.scalar) return value;
  if (atom.list) {
    const t = atom.list;
    if (!Array.isArray(value) || t.atomic) return value;
    const list: readonly unknown[] = value;
    let items: unknown[] | undefined;
    for (let i = 0; i < list.length; i++) {
      if (work.tick()) yield;
      const item = list[i];
      const kept = isContainer(item) ? yield* dropNulls(item, t.element, work) : item;
      if (kept !== item) (items ??= list.slice())[i] = kept;
    }
    return items ?? list;
  }
  return value;
}

/** A struct field Go holds by value (not through a pointer, which the schema marks `optional`). */
function isGoStructField(s: Schema): boolean {
  const protobuf = s['x-corral-protobuf'];
  return s.type === 'object' && s.properties !== undefined && s['x-corral-type'] === undefined && protobuf !== undefined && !protobuf.optional;
}

const fillableSchemas = new WeakMap<Schema, boolean>();

/**
 * Whether withGoStructs can change a value of this schema: some struct field held by value lies
 * below it. A schema that refers back to itself counts as fillable while it is being decided.
 */
function fillable(schema: Schema): boolean {
  const known = fillableSchemas.get(schema);
  if (known !== undefined) return known;
  fillableSchemas.set(schema, true);
  let result = false;
  if (schema['x-corral-type'] === undefined) {
    const properties = Object.values(schema.properties ?? {});
    result =
      properties.some((p) => isGoStructField(p) || fillable(p)) ||
      (schema.items !== undefined && fillable(schema.items)) ||
      (schema.additionalProperties !== undefined && fillable(schema.additionalProperties));
  }
  fillableSchemas.set(schema, result);
  return result;
}

/**
 * The value as a Go object holds it: struct fields held by value are always there, empty when
 * unset. Upstream compares Go objects, so such a field never appears or disappears in a
 * comparison (and an update never owns it as a whole, no `"."` in its entry).
 *
 * Copy on write: what needs no filling is returned as it is (shared with `value`, so the result is
 * for reading only); a map of 100,000 labels is neither copied nor walked.
 */
export function withGoStructs(value: unknown, schema: Schema): unknown {
  if (!fillable(schema)) return value;
  if (Array.isArray(value)) {
    const items = schema.items;
    if (!items) return value;
    const list: readonly unknown[] = value;
    let out: unknown[] | undefined;
    list.forEach((item, i) => {
      const filled = withGoStructs(item, items);
      if (filled !== item) (out ??= [...list])[i] = filled;
    });
    return out ?? value;
  }
  if (!isRecord(value)) return value;
  let out: Record<string, unknown> | undefined;
  const properties = schema.properties ?? {};
  for (const [name, property] of Object.entries(properties)) {
    const present = Object.hasOwn(value, name) && value[name] !== null;
    if (present) {
      const filled = withGoStructs(value[name], property);
      if (filled !== value[name]) (out ??= { ...value })[name] = filled;
    } else if (isGoStructField(property)) (out ??= { ...value })[name] = withGoStructs({}, property);
  }
  const element = schema.additionalProperties;
  if (element && fillable(element)) {
    for (const [key, item] of Object.entries(value)) {
      if (Object.hasOwn(properties, key)) continue;
      const filled = withGoStructs(item, element);
      if (filled !== item) (out ??= { ...value })[key] = filled;
    }
  }
  return out ?? value;
}
