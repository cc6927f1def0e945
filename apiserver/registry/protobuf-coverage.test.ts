/**
 * Every property of every served kind's schema carries its protobuf field number, as the protobuf
 * codec reads them from there: a property without one could not be encoded, and two properties of
 * one message sharing a number would corrupt each other. Properties are named by path: `[*]` is a
 * list's item, `{*}` a map's value.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { int32, map, object, pb, string, type Schema } from '../../shared/api/schema.ts';
import { allDefinitions } from './all.ts';
import { testKindDependencies } from '../testing/kind-dependencies.ts';
import { apiVersionOf } from './definition.ts';

/** TypeMeta travels in protobuf's runtime.Unknown envelope, outside the kind's own message. */
const envelopeFields = new Set(['apiVersion', 'kind']);

/** The largest field number protobuf allows; 19000-19999 are reserved for the implementation. */
const maxFieldNumber = 2 ** 29 - 1;

/** Problems with the protobuf markers of `schema`, the whole object's schema when `path` is empty. */
function protobufProblems(schema: Schema, path = ''): string[] {
  const problems: string[] = [];
  const byNumber = new Map<string, string>();
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const at = path ? `${path}.${name}` : name;
    const marker = property['x-corral-protobuf'];
    if (!marker) {
      if (!(path === '' && envelopeFields.has(name))) problems.push(`${at}: no x-corral-protobuf marker`);
    } else {
      const { field, optional } = marker;
      if (!Number.isInteger(field) || field < 1 || field > maxFieldNumber || (field >= 19000 && field <= 19999)) {
        problems.push(`${at}: ${field} is not a usable field number`);
      }
      // Fields of an embedded (inlined) struct are numbered within their own nested message.
      const slot = `${(marker.embedded ?? []).join('.')}/${field}`;
      const previous = byNumber.get(slot);
      if (previous !== undefined) problems.push(`${at}: field number ${field} is already used by ${previous}`);
      else byNumber.set(slot, at);
      // Go never holds slices or maps in pointers.
      if (optional && (property.type === 'array' || property.additionalProperties)) {
        problems.push(`${at}: a list or map cannot be optional`);
      }
    }
    problems.push(...protobufProblems(property, at));
  }
  if (schema.items) problems.push(...protobufProblems(schema.items, `${path}[*]`));
  if (schema.additionalProperties) problems.push(...protobufProblems(schema.additionalProperties, `${path}{*}`));
  return problems;
}

describe('protobufProblems', () => {
  it('names properties without a marker, reused numbers and optional lists at every depth', () => {
    const schema = object({
      apiVersion: string(),
      spec: pb(
        2,
        object({
          a: pb(1, string()),
          b: pb(1, int32()),
          items: pb(3, { type: 'array', items: object({ c: string() }) }, 'optional'),
          values: pb(4, map(object({ d: pb(0, string()) }))),
        }),
      ),
      other: string(),
    });
    assert.deepEqual(protobufProblems(schema), [
      'spec.b: field number 1 is already used by spec.a',
      'spec.items: a list or map cannot be optional',
      'spec.items[*].c: no x-corral-protobuf marker',
      'spec.values{*}.d: 0 is not a usable field number',
      'other: no x-corral-protobuf marker',
    ]);
  });

  it('lets numbers repeat across messages and exempts only top-level TypeMeta', () => {
    const schema = object({
      kind: string(),
      spec: pb(2, object({ kind: pb(2, string()) })),
      status: pb(3, object({ kind: string() })),
    });
    assert.deepEqual(protobufProblems(schema), ['status.kind: no x-corral-protobuf marker']);
  });
});

describe('every served kind has protobuf field numbers', () => {
  // The store is reached only when ComponentStatus is probed, which this test never does.
  for (const definition of allDefinitions(async () => undefined, testKindDependencies())) {
    it(`${apiVersionOf(definition)} ${definition.kind}`, () => {
      const problems = protobufProblems(definition.schema);
      assert.deepEqual(problems, [], `${definition.kind} (${apiVersionOf(definition)}):\n  ${problems.join('\n  ')}`);
    });
  }
});
