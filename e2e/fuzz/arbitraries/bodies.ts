/**
 * Request bodies for a target: objects for POST and PUT (valid or mutated, as JSON, YAML or
 * protobuf, padded up to and past the 3 MiB body limit), every patch type for PATCH (JSON patch
 * operations, merge and strategic merge patches with directives, apply configurations), and
 * DeleteOptions for DELETE, plus the hostile YAML documents. Each body comes with its natural
 * Content-Type and a note of what it is.
 */
import fc from 'fast-check';
import { stringify as toYaml } from 'yaml';
import { schemaOf, validObject } from '../kinds.ts';
import { apiVersionOf } from '../../../shared/api/types.ts';
import type { ServedResource } from '../served.ts';
import { spliceHoles, toWire } from '../wire-text.ts';
import { hostileKey, hostileValue, nestedJson, nestingDepths } from './hostile-values.ts';
import { json, patchContentTypes, protobuf, yaml, type PatchKind } from './media.ts';
import { mutatedDocument, plainDocument, type HoledDocument } from './object-mutations.ts';
import { protobufBody } from './protobuf-bodies.ts';
import { hostileYaml } from './yaml-bodies.ts';

export interface Body {
  body: Buffer;
  /** The Content-Type that names the body's encoding (the request may send another). */
  contentType: string;
  note: string;
}

/** The server's default --max-request-bytes. */
export const maxRequestBytes = 3 * 1024 * 1024;

const yamlOptions = { lineWidth: 0 } as const;

function jsonText(doc: HoledDocument): string {
  return spliceHoles(JSON.stringify(doc.value), doc.texts);
}

function yamlText(doc: HoledDocument): string {
  return spliceHoles(toYaml(doc.value, yamlOptions), doc.texts);
}

/** Makes a document about `bytes` long: a data value, an annotation, or many labels. */
type Padding = { kind: 'none' } | { kind: 'data' | 'annotation' | 'labels'; bytes: number };

const padding: fc.Arbitrary<Padding> = fc.oneof(
  { arbitrary: fc.constant<Padding>({ kind: 'none' }), weight: 40 },
  {
    arbitrary: fc.record({
      kind: fc.constantFrom('data' as const, 'annotation' as const, 'labels' as const),
      bytes: fc.constantFrom(64 * 1024, 300 * 1024, 1024 * 1024 + 1, maxRequestBytes - 4096, maxRequestBytes + 1),
    }),
    weight: 1,
  },
);

function pad(doc: HoledDocument, p: Padding): HoledDocument {
  if (p.kind === 'none') return doc;
  const value = structuredClone(doc.value);
  const meta = (typeof value.metadata === 'object' && value.metadata !== null ? value.metadata : (value.metadata = {})) as Record<string, unknown>;
  if (p.kind === 'data') value.data = { ...(typeof value.data === 'object' && value.data !== null ? value.data : {}), big: 'x'.repeat(p.bytes) };
  else if (p.kind === 'annotation') meta.annotations = { big: 'x'.repeat(p.bytes) };
  else {
    // A label `lNNNNNN: v` is about 16 bytes of JSON.
    const labels: Record<string, string> = {};
    for (let i = 0; i < p.bytes / 16; i++) labels[`l${i}`] = 'v';
    meta.labels = labels;
  }
  return { value, texts: doc.texts, notes: [...doc.notes, `padded by ${p.kind} to ~${p.bytes} bytes`] };
}

/** A valid or mutated object of the target's kind. */
function document(r: ServedResource, name: string, namespace: string): fc.Arbitrary<HoledDocument> {
  const base = validObject(r, name, namespace);
  return fc
    .tuple(fc.oneof({ arbitrary: fc.constant(plainDocument(base)), weight: 1 }, { arbitrary: mutatedDocument(base), weight: 4 }), padding)
    .map(([doc, p]) => pad(doc, p));
}

/** The head of a valid object as YAML, for hostile YAML documents. */
function headYaml(r: ServedResource, name: string, namespace: string): string {
  const v = validObject(r, name, namespace);
  return toYaml({ apiVersion: v.apiVersion, kind: v.kind, metadata: v.metadata }, yamlOptions);
}

/** A POST or PUT body. */
export function objectBody(r: ServedResource, name: string, namespace: string): fc.Arbitrary<Body> {
  return fc.oneof(
    {
      arbitrary: document(r, name, namespace).map((doc) => ({ body: toWire(jsonText(doc)), contentType: json, note: `json: ${doc.notes.join('; ')}` })),
      weight: 10,
    },
    {
      arbitrary: document(r, name, namespace).map((doc) => ({ body: toWire(yamlText(doc)), contentType: yaml, note: `yaml: ${doc.notes.join('; ')}` })),
      weight: 3,
    },
    { arbitrary: hostileYaml(headYaml(r, name, namespace)).map(({ text, note }) => ({ body: toWire(text), contentType: yaml, note })), weight: 2 },
    {
      arbitrary: protobufBody(apiVersionOf(r), r.kind, validObject(r, name, namespace), schemaOf(r)).map(({ body, note }) => ({
        body,
        contentType: protobuf,
        note,
      })),
      weight: 3,
    },
    { arbitrary: rawJsonBody, weight: 1 },
  );
}

/** Whole bodies that are not objects: malformed JSON, other top-level types, deep nesting. */
const rawJsonBody: fc.Arbitrary<Body> = fc.oneof(
  fc
    .constantFrom(
      '',
      ' ',
      '{',
      '}',
      '[]',
      'null',
      '0',
      '"x"',
      '{"a":1,"a":2}',
      '{"apiVersion":"v1"',
      '\ufeff{}',
      '{"kind":null,"apiVersion":null,"metadata":null}',
      '{"metadata":{"name":null}}',
    )
    .map((t) => ({ body: toWire(t), contentType: json, note: `json: ${JSON.stringify(t)}` })),
  fc
    .tuple(fc.constantFrom(...nestingDepths), fc.constantFrom('object' as const, 'array' as const))
    .map(([d, shape]) => ({ body: toWire(nestedJson(d, shape)), contentType: json, note: `json: whole body nested ${d} deep (${shape}s)` })),
  fc.uint8Array({ maxLength: 128 }).map((b) => ({ body: Buffer.from(b), contentType: json, note: `json: ${b.length} random bytes` })),
);

const jsonPatchPaths = [
  '/metadata/labels/a',
  '/metadata/labels',
  '/metadata/annotations/Āx',
  '/data/a',
  '/data',
  '/spec',
  '/spec/taints/0',
  '/spec/taints/-',
  '/metadata/name',
  '/metadata/resourceVersion',
  '/metadata/finalizers/-',
  '/metadata/managedFields',
  '/eventTime',
  '',
  '/',
  '/a~1b',
  '/~2',
  '/data/999999999',
  '/metadata/labels/-',
  `/${'a/'.repeat(2000)}b`,
];

const jsonPatchOp = fc.record({
  op: fc.constantFrom('"add"', '"replace"', '"remove"', '"test"', '"move"', '"copy"', '"bogus"', 'null', '1'),
  path: fc.oneof(
    fc.constantFrom(...jsonPatchPaths).map((p) => JSON.stringify(p)),
    hostileValue,
  ),
  from: fc.option(
    fc.constantFrom(...jsonPatchPaths).map((p) => JSON.stringify(p)),
    { nil: undefined },
  ),
  value: fc.option(hostileValue, { nil: undefined }),
});

const jsonPatch: fc.Arbitrary<{ text: string; note: string }> = fc.oneof(
  {
    arbitrary: fc.array(jsonPatchOp, { minLength: 1, maxLength: 3 }).map((ops) => {
      const text = `[${ops.map((o) => `{"op":${o.op},"path":${o.path}${o.from !== undefined ? `,"from":${o.from}` : ''}${o.value !== undefined ? `,"value":${o.value}` : ''}}`).join(',')}]`;
      return { text, note: `json-patch: ${text.length > 200 ? `${text.slice(0, 200)}…(${text.length} chars)` : text}` };
    }),
    weight: 5,
  },
  {
    arbitrary: fc.constantFrom('[]', '{}', 'null', '[null]', '[[]]', '"x"', '[{}]', '[{"op":"add"}]').map((text) => ({ text, note: `json-patch: ${text}` })),
    weight: 1,
  },
  { arbitrary: fc.constantFrom(...nestingDepths).map((d) => ({ text: nestedJson(d, 'array'), note: `json-patch: nested ${d} deep` })), weight: 1 },
);

const strategicDirectives = [
  '{"metadata":{"labels":{"$patch":"delete"}}}',
  '{"$patch":"replace"}',
  '{"$patch":"delete"}',
  '{"$patch":"bogus"}',
  '{"spec":{"taints":[{"$patch":"delete","key":"x"}]}}',
  '{"spec":{"taints":[{"$patch":"replace"}]}}',
  '{"spec":{"$setElementOrder/taints":[{"key":null}]}}',
  '{"spec":{"$setElementOrder/taints":null}}',
  '{"$retainKeys":["a"]}',
  '{"$retainKeys":null}',
  '{"metadata":{"$deleteFromPrimitiveList/finalizers":["x"]}}',
  '{"metadata":{"$deleteFromPrimitiveList/finalizers":null}}',
  '{"metadata":{"finalizers":{"$patch":"bogus"}}}',
  '{"metadata":{"ownerReferences":[{"$patch":"delete"}]}}',
  '{"data":{"$patch":"replace","a":"1"}}',
];

/** A merge or strategic merge patch: a partial object with hostile values, or directives. */
function mergePatch(r: ServedResource, name: string, namespace: string, strategic: boolean): fc.Arbitrary<{ text: string; note: string }> {
  const partial = fc
    .tuple(
      fc.constantFrom(
        'metadata.labels',
        'metadata.annotations',
        'metadata',
        'data',
        'spec',
        'spec.taints',
        'status',
        'eventTime',
        'metadata.finalizers',
        'metadata.managedFields',
      ),
      hostileValue,
    )
    .map(([path, v]) => {
      const keys = path.split('.');
      const text = `${keys.map((k) => `{${JSON.stringify(k)}:`).join('')}${v}${'}'.repeat(keys.length)}`;
      return { text, note: `${path} = ${v.length > 80 ? `${v.slice(0, 40)}…(${v.length} chars)` : v}` };
    });
  const choices: fc.Arbitrary<{ text: string; note: string }>[] = [
    partial,
    document(r, name, namespace).map((doc) => ({ text: jsonText(doc), note: doc.notes.join('; ') })),
    fc.constantFrom('{}', 'null', '[]', '"x"', '1', '{"metadata":null}', '{"metadata":{"labels":null}}').map((text) => ({ text, note: text })),
    fc.tuple(hostileKey, hostileValue).map(([k, v]) => ({ text: `{${JSON.stringify(k)}:${v}}`, note: `{${JSON.stringify(k)}: …}` })),
  ];
  if (strategic) choices.push(fc.constantFrom(...strategicDirectives).map((text) => ({ text, note: text })));
  return fc.oneof(...choices);
}

/** An apply configuration: a mutated object as YAML or JSON (both are valid apply-patch+yaml). */
function applyPatch(r: ServedResource, name: string, namespace: string): fc.Arbitrary<{ text: string; note: string }> {
  return fc.oneof(
    { arbitrary: document(r, name, namespace).map((doc) => ({ text: yamlText(doc), note: `yaml ${doc.notes.join('; ')}` })), weight: 4 },
    { arbitrary: document(r, name, namespace).map((doc) => ({ text: jsonText(doc), note: `json ${doc.notes.join('; ')}` })), weight: 3 },
    { arbitrary: hostileYaml(headYaml(r, name, namespace)), weight: 2 },
  );
}

/** A PATCH body of one patch type. */
export function patchBody(r: ServedResource, name: string, namespace: string): fc.Arbitrary<Body & { patch: PatchKind }> {
  const as = (patch: PatchKind, a: fc.Arbitrary<{ text: string; note: string }>) =>
    a.map(({ text, note }) => ({ body: toWire(text), contentType: patchContentTypes[patch], note: `${patch} patch: ${note}`, patch }));
  return fc.oneof(
    { arbitrary: as('json-patch', jsonPatch), weight: 3 },
    { arbitrary: as('merge', mergePatch(r, name, namespace, false)), weight: 3 },
    { arbitrary: as('strategic', mergePatch(r, name, namespace, true)), weight: 3 },
    { arbitrary: as('apply', applyPatch(r, name, namespace)), weight: 4 },
  );
}

/** A DELETE body: DeleteOptions, valid or not. */
export const deleteBody: fc.Arbitrary<Body | undefined> = fc.oneof(
  { arbitrary: fc.constant(undefined), weight: 4 },
  {
    arbitrary: fc
      .constantFrom(
        '{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Foreground"}',
        '{"propagationPolicy":"bogus"}',
        '{"gracePeriodSeconds":1e30}',
        '{"gracePeriodSeconds":-1}',
        '{"preconditions":{"uid":null,"resourceVersion":null}}',
        '{"preconditions":{"uid":"x"}}',
        '{"preconditions":{"resourceVersion":"99999999999999999999999"}}',
        '{"dryRun":["All"]}',
        '{"dryRun":"All"}',
        '{"dryRun":[null]}',
        '{"orphanDependents":"yes"}',
        '{"kind":"Bogus","apiVersion":"v9"}',
        'null',
        '[]',
        '{',
      )
      .map((t) => ({ body: toWire(t), contentType: json, note: `DeleteOptions ${t}` })),
    weight: 3,
  },
  {
    arbitrary: hostileValue.map((v) => ({
      body: toWire(`{"propagationPolicy":${v}}`),
      contentType: json,
      note: `DeleteOptions propagationPolicy=${v.slice(0, 60)}`,
    })),
    weight: 1,
  },
  {
    arbitrary: fc
      .constantFrom(...nestingDepths)
      .map((d) => ({ body: toWire(`{"preconditions":${nestedJson(d, 'object')}}`), contentType: json, note: `DeleteOptions nested ${d} deep` })),
    weight: 1,
  },
);
