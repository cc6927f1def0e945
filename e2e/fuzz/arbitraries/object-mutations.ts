/**
 * Mutations of a valid object: a hostile value (hostile-values.ts) in place of any field that is
 * there or that upstream knows (labels, annotations, timestamps, managedFields, owner references,
 * eventTime ...), a hostile key added to any map or struct (an unknown field named `Āx`), a field
 * removed. The result is a document whose mutated places are holes, serialized later as JSON or
 * YAML with the raw hostile text spliced in.
 */
import fc from 'fast-check';
import { hole } from '../wire-text.ts';
import { hostileKey, hostileValue } from './hostile-values.ts';

/** A JSON value with holes: `texts[n]` is the raw text of `hole(n)`. */
export interface HoledDocument {
  value: Record<string, unknown>;
  texts: string[];
  /** What was changed, for reports. */
  notes: string[];
}

type Path = readonly (string | number)[];

/** Fields every object may have, whether or not the valid example sets them. */
const wellKnownPaths: readonly Path[] = [
  ['apiVersion'],
  ['kind'],
  ['metadata'],
  ['metadata', 'name'],
  ['metadata', 'generateName'],
  ['metadata', 'namespace'],
  ['metadata', 'labels'],
  ['metadata', 'labels', 'a'],
  ['metadata', 'annotations'],
  ['metadata', 'annotations', 'a'],
  ['metadata', 'finalizers'],
  ['metadata', 'finalizers', 0],
  ['metadata', 'ownerReferences'],
  ['metadata', 'ownerReferences', 0],
  ['metadata', 'managedFields'],
  ['metadata', 'managedFields', 0],
  ['metadata', 'creationTimestamp'],
  ['metadata', 'deletionTimestamp'],
  ['metadata', 'deletionGracePeriodSeconds'],
  ['metadata', 'resourceVersion'],
  ['metadata', 'uid'],
  ['metadata', 'generation'],
  ['spec'],
  ['status'],
  ['data'],
  ['data', 'a'],
  ['stringData'],
  ['eventTime'],
  ['immutable'],
  ['type'],
];

/** Every path inside `value` (objects' keys and arrays' indices), found with an explicit stack. */
export function pathsOf(value: unknown): Path[] {
  const out: Path[] = [];
  const stack: { at: Path; v: unknown }[] = [{ at: [], v: value }];
  while (stack.length > 0) {
    const { at, v } = stack.pop()!;
    if (at.length > 0) out.push(at);
    if (Array.isArray(v)) v.forEach((item, i) => stack.push({ at: [...at, i], v: item }));
    else if (typeof v === 'object' && v !== null) for (const [k, item] of Object.entries(v)) stack.push({ at: [...at, k], v: item });
  }
  return out;
}

function clone<T>(value: T): T {
  return structuredClone(value);
}

/** Sets `path` in `root`, creating objects (or arrays, for numeric keys) on the way; `__proto__` stays an own key. */
function setAt(root: Record<string, unknown>, path: Path, value: unknown): void {
  let node: Record<string | number, unknown> = root;
  for (let i = 0; i < path.length; i++) {
    const key = path[i]!;
    if (i === path.length - 1) {
      Object.defineProperty(node, key, { value, enumerable: true, writable: true, configurable: true });
      return;
    }
    let next = Object.prototype.hasOwnProperty.call(node, key) ? node[key] : undefined;
    if (typeof next !== 'object' || next === null) {
      next = typeof path[i + 1] === 'number' ? [] : {};
      Object.defineProperty(node, key, { value: next, enumerable: true, writable: true, configurable: true });
    }
    node = next as Record<string | number, unknown>;
  }
}

function deleteAt(root: Record<string, unknown>, path: Path): void {
  let node: unknown = root;
  for (const key of path.slice(0, -1)) {
    if (typeof node !== 'object' || node === null) return;
    node = (node as Record<string | number, unknown>)[key];
  }
  if (typeof node === 'object' && node !== null) delete (node as Record<string | number, unknown>)[path[path.length - 1]!];
}

type Mutation = { op: 'replace'; path: Path; text: string } | { op: 'add-key'; path: Path; key: string; text: string } | { op: 'delete'; path: Path };

function applyMutation(doc: HoledDocument, m: Mutation): void {
  if (m.op === 'delete') {
    deleteAt(doc.value, m.path);
    doc.notes.push(`delete ${m.path.join('.')}`);
    return;
  }
  const n = doc.texts.length;
  doc.texts.push(m.text);
  const path = m.op === 'replace' ? m.path : [...m.path, m.key];
  setAt(doc.value, path, hole(n));
  doc.notes.push(`${path.map((p) => JSON.stringify(p)).join('.')} = ${m.text.length > 80 ? `${m.text.slice(0, 40)}…(${m.text.length} chars)` : m.text}`);
}

/** One to three mutations of `base`, over its own paths and the well-known ones. */
export function mutatedDocument(base: Record<string, unknown>): fc.Arbitrary<HoledDocument> {
  const paths = [...pathsOf(base), ...wellKnownPaths];
  const containers = [
    [],
    ...paths.filter((p) => {
      let v: unknown = base;
      for (const k of p) v = typeof v === 'object' && v !== null ? (v as Record<string | number, unknown>)[k] : undefined;
      return typeof v === 'object' && v !== null && !Array.isArray(v);
    }),
    ['metadata', 'labels'],
    ['metadata', 'annotations'],
  ] as Path[];
  const mutation: fc.Arbitrary<Mutation> = fc.oneof(
    { arbitrary: fc.record({ op: fc.constant('replace' as const), path: fc.constantFrom(...paths), text: hostileValue }), weight: 5 },
    {
      arbitrary: fc.record({
        op: fc.constant('add-key' as const),
        path: fc.constantFrom(...containers),
        key: hostileKey,
        text: fc.oneof(fc.constant('"1"'), hostileValue),
      }),
      weight: 3,
    },
    { arbitrary: fc.record({ op: fc.constant('delete' as const), path: fc.constantFrom(...paths) }), weight: 1 },
  );
  return fc.array(mutation, { minLength: 1, maxLength: 3 }).map((mutations) => {
    const doc: HoledDocument = { value: clone(base), texts: [], notes: [] };
    for (const m of mutations) applyMutation(doc, m);
    return doc;
  });
}

/** The unmutated object as a document (no holes). */
export function plainDocument(base: Record<string, unknown>): HoledDocument {
  return { value: clone(base), texts: [], notes: ['valid'] };
}
