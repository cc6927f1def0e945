/**
 * Field paths and sets of field paths, as server-side apply models them (upstream:
 * sigs.k8s.io/structured-merge-diff fieldpath), and their FieldsV1 encoding in
 * `metadata.managedFields[].fieldsV1`.
 *
 * A path is a list of elements: a struct or map field (`f:name`), a list item by its key fields
 * (`k:{"name":"c"}`), a set item by its value (`v:"a"`), or a list item by position (`i:0`). The
 * orders, string forms and JSON spellings below are upstream's, because clients see them: the
 * FieldsV1 tree in managedFields and the `.spec.list[name="x"]` paths of conflict messages.
 */
import { goQuote } from '../go/format.ts';
import { parseJson } from '../codec/json.ts';
import { sortSteps } from './sort-steps.ts';
import { runSteps, WorkCounter, type Steps } from './steps.ts';

/** One field of a list item's key. */
export interface KeyField {
  readonly name: string;
  readonly value: unknown;
}

export type PathElement =
  | { readonly type: 'field'; readonly name: string }
  | { readonly type: 'key'; readonly fields: readonly KeyField[] }
  | { readonly type: 'value'; readonly value: unknown }
  | { readonly type: 'index'; readonly index: number };

export type Path = readonly PathElement[];

export const fieldElement = (name: string): PathElement => ({ type: 'field', name });
export const valueElement = (value: unknown): PathElement => ({ type: 'value', value });
export const indexElement = (index: number): PathElement => ({ type: 'index', index });

/** A key element; its fields are kept sorted by name, as upstream compares and prints them. */
export function keyElement(fields: readonly KeyField[]): PathElement {
  return { type: 'key', fields: [...fields].sort((a, b) => compareStrings(a.name, b.name)) };
}

/** Builds a path from field names (strings), indexes (numbers) and ready elements. */
export function makePath(...parts: (string | number | PathElement)[]): PathElement[] {
  return parts.map((p) => (typeof p === 'string' ? fieldElement(p) : typeof p === 'number' ? indexElement(p) : p));
}

// ---------------------------------------------------------------------------------------------
// Values: comparison and equality with upstream's semantics (value.Compare / value.Equals).

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Go's strings.Compare: byte order of UTF-8, which is code point order. UTF-16 code unit order
 * differs only where a surrogate (a code point above U+FFFF) meets a code unit of U+E000 or more.
 */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys) return xs ? 1 : -1;
    return x < y ? -1 : 1;
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

/** Kind rank in upstream's value order: numbers, strings, booleans, lists, maps, null. */
function valueRank(v: unknown): number {
  if (typeof v === 'number') return 0;
  if (typeof v === 'string') return 1;
  if (typeof v === 'boolean') return 2;
  if (Array.isArray(v)) return 3;
  if (isRecord(v)) return 4;
  return 5;
}

/** Total order of JSON values (upstream value.Compare). */
export function compareValues(a: unknown, b: unknown): number {
  const ra = valueRank(a);
  const rb = valueRank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case 0:
      return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
    case 1:
      return compareStrings(a as string, b as string);
    case 2:
      return a === b ? 0 : a ? 1 : -1;
    case 3: {
      const la = a as unknown[];
      const lb = b as unknown[];
      for (let i = 0; ; i++) {
        if (i >= la.length && i >= lb.length) return 0;
        if (i >= la.length) return -1;
        if (i >= lb.length) return 1;
        const c = compareValues(la[i], lb[i]);
        if (c !== 0) return c;
      }
    }
    case 4:
      return compareMaps(a as Record<string, unknown>, b as Record<string, unknown>);
    default:
      return 0;
  }
}

/** Maps compare key by key in lexical key order; the map missing the smaller key is greater. */
function compareMaps(a: Record<string, unknown>, b: Record<string, unknown>): number {
  const la = Object.keys(a).length;
  const lb = Object.keys(b).length;
  if (la === 0 && lb === 0) return 0;
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort(compareStrings);
  let i = 0;
  for (const key of keys) {
    let c: number;
    if (i === la) c = -1;
    else if (i === lb) c = 1;
    else if (!Object.hasOwn(a, key)) c = 1;
    else if (!Object.hasOwn(b, key)) c = -1;
    else c = compareValues(a[key], b[key]);
    i++;
    if (c !== 0) return c;
  }
  return 0;
}

/** valuesEqual in steps of about `entriesPerStep` entries (steps.ts), for values that may be large. */
export function valuesEqualSteps(a: unknown, b: unknown): Steps<boolean> {
  return equalSteps(a, b, new WorkCounter());
}

/** valuesEqual, descending with a walk (a generator) into maps and lists only. */
function* equalSteps(a: unknown, b: unknown, work: WorkCounter): Steps<boolean> {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) {
      const x: unknown = a[i];
      const y: unknown = b[i];
      if (!(typeof x === 'object' && x !== null ? yield* equalSteps(x, y, work) : x === y)) return false;
      if (work.tick()) yield;
    }
    return true;
  }
  if (isRecord(a)) {
    if (!isRecord(b)) return false;
    // Listing 150,000 keys is a step of its own.
    const keys = Object.keys(a);
    if (work.tick(keys.length)) yield;
    const count = Object.keys(b).length;
    if (work.tick(count)) yield;
    if (keys.length !== count) return false;
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i] as string;
      if (!Object.hasOwn(b, k)) return false;
      const x = a[k];
      const y = b[k];
      if (!(typeof x === 'object' && x !== null ? yield* equalSteps(x, y, work) : x === y)) return false;
      if (work.tick()) yield;
    }
    return true;
  }
  return false;
}

/** Equality of JSON values (upstream value.Equals): maps regardless of key order. */
export function valuesEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => valuesEqual(item, b[i]));
  }
  if (isRecord(a)) {
    if (!isRecord(b)) return false;
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((k) => Object.hasOwn(b, k) && valuesEqual(a[k], b[k]));
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// Path elements: order, equality, string forms.

const elementRank = { field: 0, key: 1, value: 2, index: 3 } as const;

function compareKeyFields(a: readonly KeyField[], b: readonly KeyField[]): number {
  for (let i = 0; ; i++) {
    if (i >= a.length && i >= b.length) return 0;
    if (i >= a.length) return -1;
    if (i >= b.length) return 1;
    const fa = a[i] as KeyField;
    const fb = b[i] as KeyField;
    const c = compareStrings(fa.name, fb.name) || compareValues(fa.value, fb.value);
    if (c !== 0) return c;
  }
}

/** Upstream's element order: fields, then keys, then values, then indexes. */
export function compareElements(a: PathElement, b: PathElement): number {
  if (a.type !== b.type) return elementRank[a.type] < elementRank[b.type] ? -1 : 1;
  switch (a.type) {
    case 'field':
      return compareStrings(a.name, (b as typeof a).name);
    case 'key':
      return compareKeyFields(a.fields, (b as typeof a).fields);
    case 'value':
      return compareValues(a.value, (b as typeof a).value);
    case 'index': {
      const j = (b as typeof a).index;
      return a.index < j ? -1 : a.index > j ? 1 : 0;
    }
  }
}

export function elementsEqual(a: PathElement, b: PathElement): boolean {
  if (a.type !== b.type) return false;
  switch (a.type) {
    case 'field':
      return a.name === (b as typeof a).name;
    case 'key': {
      const other = (b as typeof a).fields;
      return a.fields.length === other.length && a.fields.every((f, i) => f.name === other[i]?.name && valuesEqual(f.value, other[i]?.value));
    }
    case 'value':
      return valuesEqual(a.value, (b as typeof a).value);
    case 'index':
      return a.index === (b as typeof a).index;
  }
}

export function comparePaths(a: Path, b: Path): number {
  for (let i = 0; ; i++) {
    if (i >= a.length && i >= b.length) return 0;
    if (i >= a.length) return -1;
    if (i >= b.length) return 1;
    const c = compareElements(a[i] as PathElement, b[i] as PathElement);
    if (c !== 0) return c;
  }
}

const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');

/** Go's %v of a float64: the shortest digits, in exponent notation below 1e-4 and from 1e6 on. */
function goFloat(n: number): string {
  if (!Number.isFinite(n)) return n > 0 ? '+Inf' : n < 0 ? '-Inf' : 'NaN';
  if (n === 0) return Object.is(n, -0) ? '-0' : '0';
  const exp = Math.floor(Math.log10(Math.abs(n)));
  if (exp < -4 || exp >= 6) {
    const [mantissa, e] = n.toExponential().split('e') as [string, string];
    const sign = e.startsWith('-') ? '-' : '+';
    const digits = e.replace(/^[+-]/, '');
    return `${mantissa}e${sign}${digits.padStart(2, '0')}`;
  }
  return String(n);
}

/** upstream value.ToString: how key and set values appear in path strings. */
function valueString(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : goFloat(v);
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(valueString).join(',')}]`;
  if (isRecord(v))
    return Object.entries(v)
      .map(([k, item]) => `${k}=${valueString(item)}`)
      .join('');
  return '{{undefined}}';
}

/** `.name`, `[key="x",port=80]`, `[="value"]`, `[3]`. */
export function elementString(e: PathElement): string {
  switch (e.type) {
    case 'field':
      return `.${e.name}`;
    case 'key':
      return `[${e.fields.map((f) => `${f.name}=${valueString(f.value)}`).join(',')}]`;
    case 'value':
      return `[=${valueString(e.value)}]`;
    case 'index':
      return `[${e.index}]`;
  }
}

/** A path as upstream prints it in conflict messages, e.g. `.spec.containers[name="c"].image`. */
export function pathString(path: Path): string {
  return path.map(elementString).join('');
}

// ---------------------------------------------------------------------------------------------
// Sets of paths.

interface SetNode {
  readonly element: PathElement;
  readonly set: FieldSet;
}

/**
 * The position of each element of an out-of-order ElementList, by identity: field elements (nearly
 * all of them) by name, with no string built per lookup; the others by their FieldsV1 key, whose
 * JSON writes map keys sorted, so that it is equal exactly when the elements are (elementsEqual).
 */
class ElementIndex {
  private readonly fields = new Map<string, number>();
  private readonly others = new Map<string, number>();

  get(e: PathElement): number | undefined {
    return e.type === 'field' ? this.fields.get(e.name) : this.others.get(serializeElement(e));
  }

  set(e: PathElement, at: number): void {
    if (e.type === 'field') this.fields.set(e.name, at);
    else this.others.set(serializeElement(e), at);
  }
}

/**
 * The distinct elements of one level of a set (or its child nodes), in element order when read.
 * Inserting in order appends; an insert out of order switches to an identity index and appends,
 * and the next ordered read sorts once. So n inserts in any order, then a read, cost O(n log n),
 * where inserting each at its place would move O(n²) items (120,000 labels: seconds).
 */
class ElementList<T> {
  private items: T[] = [];
  /** While `items` is out of order: the position of each element by identity. */
  private index: ElementIndex | undefined;

  constructor(private readonly elementOf: (item: T) => PathElement) {}

  get length(): number {
    return this.items.length;
  }

  /** The items in any order. */
  unordered(): readonly T[] {
    return this.items;
  }

  /** The items in element order. */
  ordered(): readonly T[] {
    if (this.index) {
      const elementOf = this.elementOf;
      this.items.sort((a, b) => compareElements(elementOf(a), elementOf(b)));
      this.index = undefined;
    }
    return this.items;
  }

  /** Whether the items are out of order and too many to sort at once (see `orderSteps`). */
  get largeUnordered(): boolean {
    return this.index !== undefined && this.items.length > largeLevel;
  }

  /** Puts the items in element order, as `ordered` does, in steps (a sort of 150,000 holds the loop). */
  *orderSteps(work: WorkCounter): Steps<void> {
    if (!this.index) return;
    const elementOf = this.elementOf;
    yield* sortSteps(this.items, (a, b) => compareElements(elementOf(a), elementOf(b)), work);
    this.index = undefined;
  }

  /** Items already in element order and distinct (a set operation's output). */
  static of<T>(elementOf: (item: T) => PathElement, items: T[]): ElementList<T> {
    const list = new ElementList(elementOf);
    list.items = items;
    return list;
  }

  /** The position of the item of `element`, or -1. */
  private find(element: PathElement): number {
    if (this.index) return this.index.get(element) ?? -1;
    const items = this.items;
    let lo = 0;
    let hi = items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareElements(this.elementOf(items[mid] as T), element) < 0) lo = mid + 1;
      else hi = mid;
    }
    const found = items[lo];
    return found !== undefined && elementsEqual(this.elementOf(found), element) ? lo : -1;
  }

  get(element: PathElement): T | undefined {
    const at = this.find(element);
    return at < 0 ? undefined : this.items[at];
  }

  /** Puts `item` in, replacing the item of the same element when `replace`; returns the item kept. */
  put(item: T, replace: boolean): T {
    const element = this.elementOf(item);
    const items = this.items;
    const last = items[items.length - 1];
    // The common case, and the whole of a build in order: after the last item.
    if (!this.index && (last === undefined || compareElements(this.elementOf(last), element) < 0)) {
      items.push(item);
      return item;
    }
    const at = this.find(element);
    if (at >= 0) {
      if (!replace) return items[at] as T;
      items[at] = item;
      return item;
    }
    if (!this.index) {
      const index = new ElementIndex();
      for (let i = 0; i < items.length; i++) index.set(this.elementOf(items[i] as T), i);
      this.index = index;
    }
    this.index.set(element, items.length);
    items.push(item);
    return item;
  }
}

/** Items of a level above which FieldSet.orderSteps sorts it in steps rather than on its first read. */
const largeLevel = 1024;

const self = (e: PathElement): PathElement => e;
const nodeElement = (n: SetNode): PathElement => n.element;

/**
 * A set of paths as a tree: `members` are the paths ending here, `children` the subtrees below an
 * element. Both read in element order, which is also the order of the FieldsV1 encoding; inserts
 * may come in any order (see ElementList). Operations return new sets that may share subtrees with
 * their inputs: only `insert` mutates, and only sets built fresh should be inserted into.
 */
export class FieldSet {
  private memberList = new ElementList(self);
  private childList = new ElementList(nodeElement);

  /** A set of `members` and `children` that are in element order and distinct already. */
  private static from(members: PathElement[], children: SetNode[]): FieldSet {
    const s = new FieldSet();
    s.memberList = ElementList.of(self, members);
    s.childList = ElementList.of(nodeElement, children);
    return s;
  }

  static of(...paths: Path[]): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.insert(p);
    return s;
  }

  /**
   * Puts every large level in element order in steps (steps.ts), so that the reads that follow (set
   * operations, encoding) need not sort one at once; small levels are left to sort when read.
   */
  *orderSteps(work: WorkCounter): Steps<void> {
    const large: { orderSteps(work: WorkCounter): Steps<void> }[] = [];
    this.collectLargeUnordered(large);
    for (let i = 0; i < large.length; i++) yield* (large[i] as (typeof large)[number]).orderSteps(work);
  }

  /** The levels of this set that are out of order and large, found without a walk in steps. */
  private collectLargeUnordered(into: { orderSteps(work: WorkCounter): Steps<void> }[]): void {
    if (this.memberList.largeUnordered) into.push(this.memberList);
    if (this.childList.largeUnordered) into.push(this.childList);
    for (const node of this.childList.unordered()) node.set.collectLargeUnordered(into);
  }

  /** The paths ending at this level, in element order. */
  get members(): readonly PathElement[] {
    return this.memberList.ordered();
  }

  /** The subtrees below this level, in element order. */
  get children(): readonly SetNode[] {
    return this.childList.ordered();
  }

  insert(path: Path): void {
    if (path.length === 0) return;
    let s: FieldSet = this;
    for (let i = 0; i < path.length - 1; i++) s = s.descend(path[i] as PathElement);
    s.insertMember(path[path.length - 1] as PathElement);
  }

  insertMember(element: PathElement): void {
    this.memberList.put(element, false);
  }

  /** The subtree below `element`, created when missing. */
  descend(element: PathElement): FieldSet {
    const existing = this.childList.get(element);
    return existing ? existing.set : this.childList.put({ element, set: new FieldSet() }, false).set;
  }

  /** Replaces the subtree below `element`. */
  setChild(element: PathElement, set: FieldSet): void {
    this.childList.put({ element, set }, true);
  }

  hasMember(element: PathElement): boolean {
    return this.memberList.get(element) !== undefined;
  }

  child(element: PathElement): FieldSet | undefined {
    return this.childList.get(element)?.set;
  }

  has(path: Path): boolean {
    if (path.length === 0) return false;
    let s: FieldSet | undefined = this;
    for (let i = 0; i < path.length - 1; i++) {
      s = s.child(path[i] as PathElement);
      if (!s) return false;
    }
    return s.hasMember(path[path.length - 1] as PathElement);
  }

  /** The paths below `element`, relative to it (empty when there are none). */
  withPrefix(element: PathElement): FieldSet {
    return this.child(element) ?? new FieldSet();
  }

  empty(): boolean {
    return this.memberList.length === 0 && this.childList.unordered().every((n) => n.set.empty());
  }

  size(): number {
    return this.memberList.length + this.childList.unordered().reduce((n, c) => n + c.set.size(), 0);
  }

  union(other: FieldSet): FieldSet {
    return FieldSet.from(mergeSorted(this.members, other.members, 'union'), unionNodes(this.children, other.children));
  }

  intersection(other: FieldSet): FieldSet {
    const children: SetNode[] = [];
    let i = 0;
    let j = 0;
    while (i < this.children.length && j < other.children.length) {
      const a = this.children[i] as SetNode;
      const b = other.children[j] as SetNode;
      const c = compareElements(a.element, b.element);
      if (c < 0) i++;
      else if (c > 0) j++;
      else {
        const both = a.set.intersection(b.set);
        if (!both.empty()) children.push({ element: a.element, set: both });
        i++;
        j++;
      }
    }
    return FieldSet.from(mergeSorted(this.members, other.members, 'intersection'), children);
  }

  /** Members of `other` leave as members only; children lose what the same child in `other` holds. */
  difference(other: FieldSet): FieldSet {
    const children: SetNode[] = [];
    for (const node of this.children) {
      const theirs = other.child(node.element);
      if (!theirs) {
        children.push(node);
        continue;
      }
      const rest = node.set.difference(theirs);
      if (!rest.empty()) children.push({ element: node.element, set: rest });
    }
    return FieldSet.from(mergeSorted(this.members, other.members, 'difference'), children);
  }

  /** Like difference, but a member of `other` also removes everything below it. */
  recursiveDifference(other: FieldSet): FieldSet {
    const children: SetNode[] = [];
    for (const node of this.children) {
      if (other.hasMember(node.element)) continue;
      const theirs = other.child(node.element);
      if (!theirs) {
        children.push(node);
        continue;
      }
      const rest = node.set.recursiveDifference(theirs);
      if (!rest.empty()) children.push({ element: node.element, set: rest });
    }
    return FieldSet.from(mergeSorted(this.members, other.members, 'difference'), children);
  }

  equals(other: FieldSet): boolean {
    if (this.members.length !== other.members.length || this.children.length !== other.children.length) return false;
    if (!this.members.every((m, i) => elementsEqual(m, other.members[i] as PathElement))) return false;
    return this.children.every((n, i) => {
      const o = other.children[i] as SetNode;
      return elementsEqual(n.element, o.element) && n.set.equals(o.set);
    });
  }

  /** Every path, members of a level before its subtrees, each in element order. */
  paths(): Path[] {
    const out: Path[] = [];
    const walk = (s: FieldSet, prefix: PathElement[]): void => {
      for (const m of s.members) out.push([...prefix, m]);
      for (const n of s.children) walk(n.set, [...prefix, n.element]);
    };
    walk(this, []);
    return out;
  }

  /** One path a line, as upstream's Set.String(). */
  toString(): string {
    return this.paths().map(pathString).join('\n');
  }
}

function mergeSorted(a: readonly PathElement[], b: readonly PathElement[], op: 'union' | 'intersection' | 'difference'): PathElement[] {
  const out: PathElement[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] as PathElement;
    const y = b[j] as PathElement;
    const c = compareElements(x, y);
    if (c < 0) {
      if (op !== 'intersection') out.push(x);
      i++;
    } else if (c > 0) {
      if (op === 'union') out.push(y);
      j++;
    } else {
      if (op !== 'difference') out.push(x);
      i++;
      j++;
    }
  }
  // Loops, not push(...rest): spreading 100,000 arguments overflows the stack.
  if (op !== 'intersection') for (; i < a.length; i++) out.push(a[i] as PathElement);
  if (op === 'union') for (; j < b.length; j++) out.push(b[j] as PathElement);
  return out;
}

function unionNodes(a: readonly SetNode[], b: readonly SetNode[]): SetNode[] {
  const out: SetNode[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] as SetNode;
    const y = b[j] as SetNode;
    const c = compareElements(x.element, y.element);
    if (c < 0) {
      out.push(x);
      i++;
    } else if (c > 0) {
      out.push(y);
      j++;
    } else {
      out.push({ element: x.element, set: x.set.union(y.set) });
      i++;
      j++;
    }
  }
  for (; i < a.length; i++) out.push(a[i] as SetNode);
  for (; j < b.length; j++) out.push(b[j] as SetNode);
  return out;
}

// ---------------------------------------------------------------------------------------------
// JSON as Go writes it, and the FieldsV1 encoding.

/**
 * A JSON string as Go's encoders write it: `<`, `>`, `&`, U+2028 and U+2029 escaped, control
 * characters as `\u00XX` (the encoder behind FieldsV1 keys spells only \n, \r and \t short;
 * encoding/json also spells \b and \f short).
 */
function goJSONString(s: string, shortBF: boolean): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const ch = s[i] as string;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (shortBF && ch === '\b') out += '\\b';
    else if (shortBF && ch === '\f') out += '\\f';
    else if (c < 0x20 || ch === '<' || ch === '>' || ch === '&' || c === 0x2028 || c === 0x2029) out += `\\u${hex(c, 4)}`;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && s.charCodeAt(i + 1) >= 0xdc00 && s.charCodeAt(i + 1) <= 0xdfff) {
      out += s.slice(i, i + 2);
      i++;
    } else if (c >= 0xd800 && c <= 0xdfff) out += '\\ufffd';
    else out += ch;
  }
  return `${out}"`;
}

/**
 * Compact JSON as Go's encoders write it: map keys sorted, HTML characters escaped. `encodingJSON`
 * selects encoding/json's spelling of \b and \f (the FieldsV1 encoder writes them as \u0008, \u000c).
 */
export function goJSON(value: unknown, encodingJSON = false): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return goJSONString(value, encodingJSON);
  if (typeof value === 'number') return Number.isFinite(value) ? JSON.stringify(value) : 'null';
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map((v) => goJSON(v, encodingJSON)).join(',')}]`;
  if (isRecord(value)) {
    const keys = Object.keys(value).sort(compareStrings);
    return `{${keys.map((k) => `${goJSONString(k, encodingJSON)}:${goJSON(value[k], encodingJSON)}`).join(',')}}`;
  }
  return 'null';
}

/** The FieldsV1 key of one element: `f:name`, `k:{"name":"c"}`, `v:"a"`, `i:0`. */
export function serializeElement(e: PathElement): string {
  switch (e.type) {
    case 'field':
      return `f:${e.name}`;
    case 'key':
      return `k:{${e.fields.map((f) => `${goJSONString(f.name, false)}:${goJSON(f.value)}`).join(',')}}`;
    case 'value':
      return `v:${goJSON(e.value)}`;
    case 'index':
      return `i:${e.index}`;
  }
}

/** A FieldsV1 tree that cannot be decoded. */
export class FieldsV1Error extends Error {
  override readonly name = 'FieldsV1Error';
}

/** Parses one FieldsV1 key; null for a key of an unknown type, which upstream skips. */
export function deserializeElement(s: string): PathElement | null {
  if (s.length < 2) throw new FieldsV1Error('key must be 2 characters long:');
  if (s[1] !== ':') throw new FieldsV1Error(`missing colon: ${s}`);
  const body = s.slice(2);
  switch (s[0]) {
    case 'f':
      return fieldElement(body);
    case 'v':
      return valueElement(parseJSON(body));
    case 'k': {
      const parsed = parseJSON(body);
      if (!isRecord(parsed)) throw new FieldsV1Error(`invalid key element: ${s}`);
      return keyElement(Object.entries(parsed).map(([name, value]) => ({ name, value })));
    }
    case 'i': {
      if (!/^[+-]?\d+$/.test(body)) throw new FieldsV1Error(`strconv.Atoi: parsing ${goQuote(body)}: invalid syntax`);
      return indexElement(Number(body));
    }
    default:
      return null;
  }
}

function parseJSON(text: string): unknown {
  try {
    return parseJson(text);
  } catch (err) {
    throw new FieldsV1Error(err instanceof Error ? err.message : String(err));
  }
}

/**
 * Encodes a set as a FieldsV1 tree: each element a key, `{}` for a member, `".": {}` for a path
 * that is both a member and has paths below it. Key order is element order, as upstream writes it.
 */
export function toFieldsV1(set: FieldSet): Record<string, unknown> {
  return runSteps(toFieldsV1Steps(set));
}

/** toFieldsV1 in steps of about `entriesPerStep` elements (steps.ts). */
export function* toFieldsV1Steps(set: FieldSet): Steps<Record<string, unknown>> {
  const work = new WorkCounter();
  yield* set.orderSteps(work);
  return yield* emitContents(set, false, work);
}

function* emitContents(set: FieldSet, includeSelf: boolean, work: WorkCounter): Steps<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  const members = set.members;
  const children = set.children;
  if (includeSelf && !(members.length === 0 && children.length === 0)) out['.'] = {};
  let mi = 0;
  let ci = 0;
  while (mi < members.length || ci < children.length) {
    const member = members[mi];
    const node = children[ci];
    const c = !member ? 1 : !node ? -1 : compareElements(member, node.element);
    if (c < 0 && member) {
      out[serializeElement(member)] = {};
      mi++;
    } else if (c > 0 && node) {
      out[serializeElement(node.element)] = yield* emitContents(node.set, false, work);
      ci++;
    } else if (node) {
      out[serializeElement(node.element)] = yield* emitContents(node.set, true, work);
      mi++;
      ci++;
    }
    if (work.tick()) yield;
  }
  return out;
}

/** Decodes a FieldsV1 tree; throws FieldsV1Error when it is malformed. */
export function fromFieldsV1(tree: unknown): FieldSet {
  return runSteps(fromFieldsV1Steps(tree));
}

/** fromFieldsV1 in steps of about `entriesPerStep` keys (steps.ts); the set comes out ordered. */
export function* fromFieldsV1Steps(tree: unknown): Steps<FieldSet> {
  if (tree === null || tree === undefined) return new FieldSet();
  if (!isRecord(tree)) throw new FieldsV1Error('fieldsV1 must be an object');
  const work = new WorkCounter();
  const set = (yield* readLevel(tree, work)).children ?? new FieldSet();
  yield* set.orderSteps(work);
  return set;
}

/** What an empty level (`{}`, or null) reads as: a member with nothing below. */
const memberLeaf: { children: FieldSet | undefined; isMember: boolean } = { children: undefined, isMember: true };

function isEmptyRecord(value: Record<string, unknown>): boolean {
  for (const _ in value) return false;
  return true;
}

function* readLevel(tree: Record<string, unknown>, work: WorkCounter): Steps<{ children: FieldSet | undefined; isMember: boolean }> {
  let children: FieldSet | undefined;
  let isMember = false;
  // Keys, not entries, and no call for the `{}` of a member: a level may hold 150,000 of them.
  const keys = Object.keys(tree);
  if (work.tick(keys.length)) yield;
  for (let i = 0; i < keys.length; i++) {
    if (work.tick()) yield;
    const key = keys[i] as string;
    const value = tree[key];
    if (key === '.') {
      isMember = true;
      continue;
    }
    const element = deserializeElement(key);
    if (!element) continue;
    if (value !== null && !isRecord(value)) throw new FieldsV1Error(`the value of ${goQuote(key)} must be an object`);
    const below = value === null || isEmptyRecord(value) ? memberLeaf : yield* readLevel(value, work);
    if (below.isMember) (children ??= new FieldSet()).insertMember(element);
    if (below.children) (children ??= new FieldSet()).setChild(element, below.children);
  }
  if (!children) isMember = true;
  return { children, isMember };
}
